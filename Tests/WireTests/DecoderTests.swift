import Positioning
import Testing
import Wire

/// Decodes with a required timestamp unless told otherwise.
private func decode(_ line: String, _ policy: TimestampPolicy = .requireTimestamp) throws(Rejection) -> Event? {
    try IngestDecoder().decode(line, lineNumber: 7, timestamps: policy)
}

/// The rejection of a line that must be rejected.
private func rejection(_ line: String, _ policy: TimestampPolicy = .requireTimestamp) -> Rejection? {
    do {
        _ = try decode(line, policy)
        return nil
    } catch {
        return error
    }
}

@Suite("Ingest decoder")
struct DecoderTests {
    @Test func minimalRanging() throws {
        let event = try decode("ranging,site=S,anchor=A,tag=T distance=3.21 1000")
        #expect(event == .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: 3.21, time: 1000)))
    }

    @Test func fullRangingWithAngles() throws {
        let event = try decode("ranging,site=S,anchor=A,tag=T,tech=cs,extra=x distance=3i,std=0.1,azimuth=0.3,"
                               + "elevation=-0.1,rssi=-70 5")
        #expect(event == .ranging(Ranging(site: "S", anchor: "A", tag: "T", technology: .cs, distance: 3, std: 0.1,
                                          direction: .angles(azimuth: 0.3, elevation: -0.1), time: 5)))
    }

    /// Every technology's name (matched on the line's bytes, on both scanners' paths) gives it.
    @Test(arguments: Technology.allCases)
    func everyTechnologyByName(tech: Technology) throws {
        for fields in ["distance=2", "distance=2,rssi=-70"] {
            let event = try decode("ranging,site=S,anchor=A,tag=T,tech=\(tech.rawValue) \(fields) 5")
            #expect(event == .ranging(Ranging(site: "S", anchor: "A", tag: "T", technology: tech, distance: 2, time: 5)))
        }
    }

    @Test func oneAngleAloneAndNoDistance() throws {
        let az = try decode("ranging,site=S,anchor=A,tag=T azimuth=-3.14159 5")
        #expect(az == .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: nil,
                                       direction: .angles(azimuth: -3.14159, elevation: nil), time: 5)))
        let el = try decode("ranging,site=S,anchor=A,tag=T distance=2u,elevation=1.5 5")
        #expect(el == .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: 2,
                                       direction: .angles(azimuth: nil, elevation: 1.5), time: 5)))
    }

    @Test func directionVectorIsNormalised() throws {
        guard case .ranging(let r)? = try decode("ranging,site=S,anchor=A,tag=T dir_x=0,dir_y=0.6,dir_z=0.82 5"),
              case .vector(let v)? = r.direction else {
            Issue.record("expected a vector direction")
            return
        }
        // 1e-12: normalisation is a handful of roundings of numbers near 1.
        #expect(abs(v.norm - 1) < 1e-12)
        #expect(abs(v.y - 0.6 / (0.6 * 0.6 + 0.82 * 0.82).squareRoot()) < 1e-12)
        #expect(r.distance == nil)
    }

    @Test func otherEventKinds() throws {
        #expect(try decode("motion,site=S,tag=T state=\"stationary\" 9")
                == .motion(site: "S", tag: "T", state: .stationary, time: 9))
        #expect(try decode("removed,site=S,anchor=A,tag=T reason=\"peerEnded\" 9")
                == .removed(site: "S", anchor: "A", tag: "T", reason: .peerEnded, time: 9))
        #expect(try decode("session,site=S,anchor=A state=\"suspended\" 9")
                == .session(site: "S", anchor: "A", tag: nil, state: .suspended, time: 9))
        #expect(try decode("session,site=S,anchor=A,tag=T state=\"invalidated\" 9")
                == .session(site: "S", anchor: "A", tag: "T", state: .invalidated, time: 9))
    }

    @Test func escapedIdsAreDecoded() throws {
        let event = try decode(#"motion,site=Hall\ 3,tag=a\,b\=c state="moving" 1"#)
        #expect(event == .motion(site: "Hall 3", tag: "a,b=c", state: .moving, time: 1))
    }

    @Test func timestampPolicies() throws {
        let line = "motion,site=S,tag=T state=\"moving\""
        #expect(try decode(line, .defaultTo(77)) == .motion(site: "S", tag: "T", state: .moving, time: 77))
        #expect(try decode(line + " 5", .defaultTo(77)) == .motion(site: "S", tag: "T", state: .moving, time: 5))
        #expect(rejection(line)?.reason == .missingTimestamp)
    }

    @Test func blankAndCommentLinesGiveNothing() throws {
        #expect(try decode("") == nil)
        #expect(try decode("  # note") == nil)
        #expect(try decode("\r") == nil)
    }

    @Test(arguments: [
        ("ranging,site=S,anchor=A,tag=T distance=abc 1", "malformed"),
        ("ranging,site=S,anchor=A,tag=T 1", "malformed"),
        ("position,site=S,tag=T x=1 1", "unknown_measurement"),
        ("ranging,anchor=A,tag=T distance=1 1", "missing_tag"),
        ("ranging,site=S,tag=T distance=1 1", "missing_tag"),
        ("ranging,site=S,anchor=A distance=1 1", "missing_tag"),
        ("motion,site=S state=\"moving\" 1", "missing_tag"),
        ("removed,site=S,tag=T reason=\"timeout\" 1", "missing_tag"),
        ("session,site=S state=\"resumed\" 1", "missing_tag"),
        ("motion,site=S,tag=T mood=\"moving\" 1", "missing_field"),
        ("removed,site=S,anchor=A,tag=T why=\"timeout\" 1", "missing_field"),
        ("session,site=S,anchor=A x=1 1", "missing_field"),
        ("ranging,site=S,anchor=A,tag=T dir_x=1,dir_y=0 1", "missing_field"),
        ("ranging,site=S,anchor=A,tag=T distance=\"3\" 1", "bad_field_type"),
        ("ranging,site=S,anchor=A,tag=T distance=t 1", "bad_field_type"),
        ("motion,site=S,tag=T state=1 1", "bad_field_type"),
        ("removed,site=S,anchor=A,tag=T reason=t 1", "bad_field_type"),
        ("ranging,site=S,anchor=A,tag=T distance=-0.5 1", "negative_distance"),
        ("ranging,site=S,anchor=A,tag=T distance=-1i 1", "negative_distance"),
        ("ranging,site=S,anchor=A,tag=T distance=nan 1", "non_finite"),
        ("ranging,site=S,anchor=A,tag=T distance=1,std=inf 1", "non_finite"),
        ("ranging,site=S,anchor=A,tag=T azimuth=1e999 1", "non_finite"),
        ("ranging,site=S,anchor=A,tag=T dir_x=nan,dir_y=0,dir_z=0 1", "non_finite"),
        ("ranging,site=S,anchor=A,tag=T distance=1000.5 1", "absurd_distance"),
        ("ranging,site=S,anchor=A,tag=T distance=1,std=0 1", "bad_std"),
        ("ranging,site=S,anchor=A,tag=T distance=1,std=-0.1 1", "bad_std"),
        ("ranging,site=S,anchor=A,tag=T azimuth=3.1416 1", "bad_angle"),
        ("ranging,site=S,anchor=A,tag=T distance=1,elevation=-1.5708 1", "bad_angle"),
        ("ranging,site=S,anchor=A,tag=T dir_x=0.5,dir_y=0.5,dir_z=0.5 1", "direction_not_unit"),
        ("ranging,site=S,anchor=A,tag=T dir_x=1.06,dir_y=0,dir_z=0 1", "direction_not_unit"),
        ("ranging,site=S,anchor=A,tag=T std=0.1 1", "no_measurement"),
        ("ranging,site=S,anchor=A,tag=T,tech=wifi distance=1 1", "bad_value"),
        ("motion,site=S,tag=T state=\"flying\" 1", "bad_value"),
        ("removed,site=S,anchor=A,tag=T reason=\"bored\" 1", "bad_value"),
        ("session,site=S,anchor=A state=\"paused\" 1", "bad_value"),
        ("ranging,site=S,anchor=A,tag=T distance=1", "missing_timestamp"),
    ])
    func rejections(line: String, key: String) {
        let r = rejection(line)
        #expect(r?.reason.key == key, "\(line): \(r?.message ?? "accepted")")
        #expect(r?.line == 7)
    }

    @Test func boundaryValuesAreAccepted() throws {
        for line in ["ranging,site=S,anchor=A,tag=T distance=0 1",
                     "ranging,site=S,anchor=A,tag=T distance=1000 1",
                     "ranging,site=S,anchor=A,tag=T azimuth=3.141592653589793,elevation=-1.5707963267948966 1",
                     "ranging,site=S,anchor=A,tag=T dir_x=1.049,dir_y=0,dir_z=0 1",
                     "ranging,site=S,anchor=A,tag=T dir_x=0,dir_y=0,dir_z=-0.951 1"] {
            #expect(throws: Never.self, "\(line)") { _ = try decode(line) }
        }
    }

    @Test func messagesAreActionable() {
        let r = IngestDecoder()
        do {
            _ = try r.decode("ranging,site=S,anchor=A,tag=T distance=-143.0 1", lineNumber: 812,
                             timestamps: .requireTimestamp)
            Issue.record("accepted")
        } catch {
            #expect(error.message == "line 812: field 'distance' is negative (-143.0)")
        }
        #expect(rejection("ranging,site=S,tag=T distance=1 1")?.reason == .missingTag("anchor"))
        #expect(rejection("ranging,site=S,anchor=A,tag=T dir_x=1,dir_z=0 1")?.reason == .missingField("dir_y"))
        #expect(rejection("motion,site=S,tag=T state=1i 1")?.message
                == "line 7: field 'state' must be a string, not an integer")
        #expect(rejection("ranging,site=S,anchor=A,tag=T,tech=wifi distance=1 1")?.message
                == "line 7: 'tech' has unknown value 'wifi' (expected uwb or cs or aoa)")
        #expect(rejection("position,site=S x=1 1")?.reason == .unknownMeasurement("position"))
        #expect(rejection("m,t= f=1 1")?.message == "line 7: malformed line: tag 't' has an empty value (column 5)")
    }

    @Test func counterCountsByKey() {
        var counter = RejectionCounter(extraKeys: ["unknown_site"])
        #expect(counter.counts.count == RejectReason.allKeys.count + 1)
        #expect(counter["bad_std"] == 0 && counter["unknown_site"] == 0)
        counter.record(.badStd(0))
        counter.record(.badStd(-1))
        counter.record(key: "unknown_site")
        counter.record(key: "unsupported_technology")
        #expect(counter["bad_std"] == 2)
        #expect(counter["unknown_site"] == 1)
        #expect(counter["unsupported_technology"] == 1)
        #expect(counter.total == 4)
        #expect(Set(RejectReason.allKeys).count == RejectReason.allKeys.count)
    }

    @Test func readerCombinesSplitterAndDecoder() throws {
        let text = "ranging,site=S,anchor=A,tag=T distance=1 10\n# c\nbad\n\(String(repeating: "x", count: 100))\n"
            + "motion,site=S,tag=T state=\"moving\""
        var rng = SeededRandom(seed: 11)
        let bytes = Array(text.utf8)
        for _ in 0..<30 {
            var reader = IngestReader(maxLineLength: 64)
            var out: [Result<Event, Rejection>] = []
            var at = 0
            while at < bytes.count {
                let next = min(bytes.count, at + Int(rng.next() % 20) + 1)
                reader.feed(Array(bytes[at..<next]), timestamps: .defaultTo(99)) { out.append($0) }
                at = next
            }
            reader.finish(timestamps: .defaultTo(99)) { out.append($0) }
            #expect(out.count == 4)
            #expect(try out[0].get() == .ranging(Ranging(site: "S", anchor: "A", tag: "T", distance: 1, time: 10)))
            #expect(out[1] == .failure(Rejection(line: 3, reason: out[1].rejectReason!)))
            #expect(out[1].rejectReason?.key == "malformed")
            #expect(out[2] == .failure(Rejection(line: 4, reason: .lineTooLong(limit: 64))))
            #expect(try out[3].get() == .motion(site: "S", tag: "T", state: .moving, time: 99))
        }
    }
}

extension Result where Failure == Rejection {
    var rejectReason: RejectReason? {
        if case .failure(let r) = self { return r.reason }
        return nil
    }
}
