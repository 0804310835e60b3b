import Numerics
import Positioning
import Testing
import Wire

@Suite("Encoders")
struct EncoderTests {
    static let ids = ["S", "hall 3", "a,b=c", #"back\slash"#, "ünï ✓", "x=", " lead"]

    /// A random event of every kind, with ids that need escaping.
    static func randomEvent(_ rng: inout SeededRandom) -> Event {
        func id() -> String { ids[Int(rng.next() % UInt64(ids.count))] }
        func real(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
        let time = Int64(bitPattern: rng.next()) >> Int(rng.next() % 64)
        switch rng.next() % 4 {
        case 0:
            var direction: Direction?
            switch rng.next() % 4 {
            case 0: direction = nil
            case 1: direction = .angles(azimuth: real(-.pi ... .pi), elevation: nil)
            case 2: direction = .angles(azimuth: rng.next() % 2 == 0 ? nil : real(-.pi ... .pi),
                                        elevation: real(-.pi / 2 ... .pi / 2))
            default: direction = .vector(Vec3(real(-1...1), real(-1...1), real(-1...1)).normalized!)
            }
            let distance: Double? = direction == nil || rng.next() % 2 == 0 ? real(0...1000) : nil
            return .ranging(Ranging(site: id(), anchor: id(), tag: id(),
                                    technology: [nil, .uwb, .cs][Int(rng.next() % 3)], distance: distance,
                                    std: rng.next() % 2 == 0 ? nil : real(0.001...2), direction: direction, time: time))
        case 1:
            return .motion(site: id(), tag: id(), state: MotionState.allCases.randomElement(using: &rng)!, time: time)
        case 2:
            return .removed(site: id(), anchor: id(), tag: id(),
                            reason: RemovalReason.allCases.randomElement(using: &rng)!, time: time)
        default:
            return .session(site: id(), anchor: id(), tag: rng.next() % 2 == 0 ? nil : id(),
                            state: SessionState.allCases.randomElement(using: &rng)!, time: time)
        }
    }

    @Test func ingestRoundTripsExactly() throws {
        var rng = SeededRandom(seed: 2024)
        let decoder = IngestDecoder()
        for _ in 0..<3000 {
            let event = Self.randomEvent(&rng)
            let line = try #require(IngestEncoder.encode(event))
            #expect(line.hasSuffix("\n"))
            let back = try decoder.decode(line, timestamps: .requireTimestamp)
            #expect(back == event, "\(line)")
        }
    }

    @Test func ingestLinesOfEveryKind() {
        let r = Ranging(site: "S", anchor: "A 1", tag: "T", technology: .uwb, distance: 3.21, std: 0.1,
                        direction: .angles(azimuth: 0.5, elevation: nil), time: 42)
        #expect(IngestEncoder.encode(.ranging(r))
                == "ranging,site=S,anchor=A\\ 1,tag=T,tech=uwb distance=3.21,std=0.1,azimuth=0.5 42\n")
        #expect(IngestEncoder.encode(.motion(site: "S", tag: "T", state: .moving, time: -1))
                == "motion,site=S,tag=T state=\"moving\" -1\n")
        #expect(IngestEncoder.encode(.removed(site: "S", anchor: "A", tag: "T", reason: .peerEnded, time: 1))
                == "removed,site=S,anchor=A,tag=T reason=\"peerEnded\" 1\n")
        #expect(IngestEncoder.encode(.session(site: "S", anchor: "A", tag: nil, state: .resumed, time: 1))
                == "session,site=S,anchor=A state=\"resumed\" 1\n")
    }

    @Test func unrepresentableEventsAppendNothing() {
        let bad: [Event] = [
            .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: nil, time: 1)),
            .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: .nan, time: 1)),
            .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: 1, direction: .vector(Vec3(.infinity, 0, 0)),
                             time: 1)),
            .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: nil,
                             direction: .angles(azimuth: nil, elevation: nil), time: 1)),
            .motion(site: "", tag: "T", state: .moving, time: 1),
            .motion(site: "S", tag: "T\\", state: .moving, time: 1),
            .removed(site: "S", anchor: "A\nB", tag: "T", reason: .timeout, time: 1),
            .session(site: "S", anchor: "A", tag: "", state: .resumed, time: 1),
        ]
        for event in bad {
            var buffer: [UInt8] = [1, 2]
            #expect(!IngestEncoder.append(event, to: &buffer))
            #expect(buffer == [1, 2])
        }
    }

    static let estimate = PositionEstimate(
        site: "Hall 3", tag: "t,1", position: Vec3(1.23456, -0.00004, 1.5), velocity: Vec3(0.1, -0.25, 0),
        covXX: 0.0123456789, covXY: -0.000123456789, covYY: 0.02, anchors: 4, motion: .moving,
        time: 1_700_000_000_000_000_000)

    @Test func positionLine() {
        let line = OutputEncoder.encode(.position(Self.estimate))
        #expect(line == "position,site=Hall\\ 3,tag=t\\,1 x=1.2346,y=0,z=1.5,vx=0.1,vy=-0.25,vz=0,"
                + "sigma=0.127172,cxx=0.0123457,cxy=-0.000123457,cyy=0.02,anchors=4i,motion=\"moving\" "
                + "1700000000000000000\n")
    }

    @Test func positionLineWith3DCovarianceParsesBack() throws {
        var e = Self.estimate
        e.covXZ = 0.001
        e.covYZ = -0.002
        e.covZZ = 0.05
        let line = try #require(OutputEncoder.encode(.position(e)))
        let parsed = try #require(try ParsedLine.parse(line))
        #expect(parsed.measurement == "position")
        #expect(parsed.tag("site") == "Hall 3" && parsed.tag("tag") == "t,1")
        #expect(parsed.timestamp == e.time)
        #expect(parsed.field("anchors") == .integer(4))
        #expect(parsed.field("motion") == .string("moving"))
        // Positions and velocities carry 4 decimals: error at most half a unit in the last place.
        let metres: [(String, Double)] = [("x", e.position.x), ("y", e.position.y), ("z", e.position.z),
                                          ("vx", e.velocity.x), ("vy", e.velocity.y), ("vz", e.velocity.z)]
        for (key, value) in metres {
            let read = try #require(parsed.field(key)?.doubleValue)
            #expect(abs(read - value) <= 0.5e-4 + 1e-12, "\(key)")
        }
        // Covariances and sigma carry 6 significant digits: relative error at most 5e-6.
        let relative: [(String, Double)] = [("sigma", e.sigma), ("cxx", e.covXX), ("cxy", e.covXY), ("cyy", e.covYY),
                                            ("cxz", e.covXZ), ("cyz", e.covYZ), ("czz", e.covZZ)]
        for (key, value) in relative {
            let read = try #require(parsed.field(key)?.doubleValue)
            #expect(abs(read - value) <= 5e-6 * abs(value), "\(key)")
        }
    }

    /// An undecided side of the anchors' plane adds the image as `mx`, `my`, `mz` after the covariance;
    /// a decided one writes the line as it was (nothing of the image). 4 decimals: half a unit.
    @Test func anUndecidedSideWritesTheImage() throws {
        var e = Self.estimate
        e.covZZ = 0.3
        let decided = try #require(OutputEncoder.encode(.position(e)))
        #expect(!decided.contains("mz="))
        e.mirror = Vec3(3.25, -1.5, 0.875)
        let line = try #require(OutputEncoder.encode(.position(e)))
        #expect(line.contains(",czz=0.3,mx=3.25,my=-1.5,mz=0.875,anchors="), "\(line)")
        let parsed = try #require(try ParsedLine.parse(line))
        #expect(abs((parsed.field("mz")?.doubleValue ?? .nan) - 0.875) <= 0.5e-4)
        #expect(line.replacingOccurrences(of: ",mx=3.25,my=-1.5,mz=0.875", with: "") == decided)
    }

    @Test func twoDimensionalPositionHasNoZTerms() throws {
        let parsed = try #require(try ParsedLine.parse(OutputEncoder.encode(.position(Self.estimate))!))
        #expect(parsed.field("czz") == nil && parsed.field("cxz") == nil && parsed.field("cyz") == nil)
    }

    @Test func proximityAndRemovedLines() {
        #expect(OutputEncoder.encode(.proximity(site: "S", tag: "T", anchor: "A=1", distance: 2.50004, azimuth: nil,
                                                time: 5))
                == "proximity,site=S,tag=T,anchor=A\\=1 distance=2.5 5\n")
        #expect(OutputEncoder.encode(.proximity(site: "S", tag: "T", anchor: "A", distance: 2, azimuth: -0.1234567,
                                                time: 5))
                == "proximity,site=S,tag=T,anchor=A distance=2,azimuth=-0.123457 5\n")
        #expect(OutputEncoder.encode(.removed(site: "S", tag: "T", reason: .timeout, time: 5))
                == "removed,site=S,tag=T reason=\"timeout\" 5\n")
    }

    @Test func nonFiniteOutputsAppendNothing() {
        var e = Self.estimate
        e.velocity.x = .nan
        var buffer: [UInt8] = []
        #expect(!OutputEncoder.append(.position(e), to: &buffer))
        #expect(!OutputEncoder.append(.proximity(site: "S", tag: "T", anchor: "A", distance: .infinity, azimuth: nil,
                                                 time: 1), to: &buffer))
        #expect(!OutputEncoder.append(.removed(site: "S", tag: "", reason: .timeout, time: 1), to: &buffer))
        #expect(buffer.isEmpty)
    }

    @Test func positionsWithUnrepresentableIdsAppendNothing() {
        // The ids of a position line are checked while they are written into scratch.
        for (site, tag) in [("", "T"), ("S", ""), ("S\nX", "T"), ("S", "T\r"), ("S\\", "T"), ("S", "a,b\\"),
                            (String(repeating: "s", count: 40) + "\n", "T")] {
            var e = Self.estimate
            e.site = site
            e.tag = tag
            var buffer: [UInt8] = [7]
            #expect(!OutputEncoder.append(.position(e), to: &buffer), "\(site) \(tag)")
            #expect(buffer == [7])
        }
    }

    @Test func everyMotionStateIsWrittenByItsName() throws {
        for state in MotionState.allCases {
            var e = Self.estimate
            e.motion = state
            e.site = String(repeating: "long site ", count: 3)   // a large String, not stored inline
            let line = try #require(OutputEncoder.encode(.position(e)))
            #expect(line.contains(",motion=\"\(state.rawValue)\" "))
            #expect(line.hasPrefix("position,site=long\\ site\\ long\\ site\\ long\\ site\\ ,tag=t\\,1 "))
        }
    }

    @Test func manyOutputsShareOneBuffer() throws {
        var buffer: [UInt8] = []
        OutputEncoder.append(.position(Self.estimate), to: &buffer)
        OutputEncoder.append(.removed(site: "S", tag: "T", reason: .peerEnded, time: 2), to: &buffer)
        var lines: [ParsedLine] = []
        var splitter = LineSplitter()
        try splitter.feed(buffer) { piece in
            if case .line(_, let bytes) = piece, let line = try ParsedLine.parse(bytes) { lines.append(line) }
        }
        #expect(lines.map(\.measurement) == ["position", "removed"])
    }
}

@Suite struct AnchorHealthEncoderTests {
    @Test func anAnchorHealthLineReadsBack() throws {
        var h = AnchorHealth()
        h.lines = 120; h.ranges = 96; h.rejected = 1; h.blocked = 4; h.squaredInnovations = 96 * 0.81
        let r = AnchorReport(site: "hall a", anchor: "U,1", health: h, learnedBias: 0.12345)
        var bytes: [UInt8] = []
        #expect(OutputEncoder.appendAnchorHealth(r, silentSeconds: 0.25, time: 1_700_000_000_000_000_000, to: &bytes))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text == "anchor_health,site=hall\\ a,anchor=U\\,1 lines=120i,ranges=96i,rejected=1i,blocked=4i,"
                + "innovation_rms=0.9,learned_bias=0.1235,silent_s=0.25 1700000000000000000\n")
        let line = try #require(try ParsedLine.parse(text))
        #expect(line.tag("anchor") == "U,1" && line.field("lines") == .integer(120))

        // Never heard: no RMS, no silence.
        bytes.removeAll()
        #expect(OutputEncoder.appendAnchorHealth(AnchorReport(site: "s", anchor: "A", health: AnchorHealth(), learnedBias: 0),
                                                 silentSeconds: nil, time: 5, to: &bytes))
        #expect(String(decoding: bytes, as: UTF8.self)
                == "anchor_health,site=s,anchor=A lines=0i,ranges=0i,rejected=0i,blocked=0i,learned_bias=0 5\n")
        #expect(!OutputEncoder.appendAnchorHealth(AnchorReport(site: "s", anchor: "A\n", health: h, learnedBias: 0),
                                                  silentSeconds: nil, time: 5, to: &bytes))
    }
}
