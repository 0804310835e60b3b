public import Positioning
internal import Numerics

/// Encodes engine outputs as line-protocol lines:
///
///     position,site=S,tag=T x=..,y=..,z=..,vx=..,vy=..,vz=..,sigma=..,cxx=..,cxy=..,cyy=..[,cxz=..,cyz=..,czz=..][,mx=..,my=..,mz=..],anchors=4i,motion="moving" TS
///     proximity,site=S,tag=T,anchor=A distance=..[,azimuth=..] TS
///     removed,site=S,tag=T reason="timeout" TS
///     zone,site=S,tag=T,zone=Z event="enter"|"exit" TS
///
/// Positions (m), velocities (m/s) and distances (m) have 4 decimals (0.1 mm); `sigma` (m) and the
/// covariances (m²) 6 significant digits; azimuth (radians) 6 decimals. The 3-D covariance terms are
/// written only when `covZZ > 0`. Each line ends with `\n`.
public enum OutputEncoder {
    /// Decimals for positions, velocities and distances.
    public static let metreDecimals = 4
    /// Significant digits for sigma and covariances.
    public static let covarianceDigits = 6
    /// Decimals for angles.
    public static let angleDecimals = 6

    /// Appends one output line.
    /// - Parameters:
    ///   - output: the engine output.
    ///   - buffer: receives the line, `\n` included.
    /// - Returns: false, with nothing appended, when the output cannot be written faithfully: a
    ///   non-finite number, or an id that is empty, holds a line break or ends in a backslash.
    @discardableResult
    public static func append(_ output: Output, to buffer: inout [UInt8]) -> Bool {
        switch output {
        case .position(let p):
            return appendPosition(p, to: &buffer)
        case .proximity(let site, let tag, let anchor, let distance, let azimuth, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(tag), isRepresentableTagValue(anchor),
                  distance.isFinite,
                  azimuth?.isFinite ?? true else { return false }
            buffer.append("proximity")
            buffer.putTag("site", site)
            buffer.putTag("tag", tag)
            buffer.putTag("anchor", anchor)
            buffer.append(ASCII.space)
            buffer.putFieldKey("distance", first: true)
            FixedDecimal.append(distance, decimals: metreDecimals, to: &buffer)
            if let azimuth {
                buffer.putFieldKey("azimuth")
                FixedDecimal.append(azimuth, decimals: angleDecimals, to: &buffer)
            }
            buffer.appendTimestamp(time)
            return true
        case .removed(let site, let tag, let reason, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(tag) else { return false }
            buffer.append("removed")
            buffer.putTag("site", site)
            buffer.putTag("tag", tag)
            buffer.append(" reason=")
            buffer.putQuoted(reason.rawValue)
            buffer.appendTimestamp(time)
            return true
        case .zone(let site, let tag, let zone, let event, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(tag), isRepresentableTagValue(zone)
            else { return false }
            buffer.append("zone")
            buffer.putTag("site", site)
            buffer.putTag("tag", tag)
            buffer.putTag("zone", zone)
            buffer.append(" event=")
            buffer.putQuoted(event.rawValue)
            buffer.appendTimestamp(time)
            return true
        }
    }

    /// One output line as a String (with its `\n`), or nil when it cannot be written (see `append`).
    public static func encode(_ output: Output) -> String? {
        var bytes: [UInt8] = []
        guard append(output, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendPosition(_ p: PositionEstimate, to buffer: inout [UInt8]) -> Bool {
        guard p.position.isFinite, p.velocity.isFinite, p.covXX.isFinite, p.covXY.isFinite, p.covYY.isFinite,
              p.covXZ.isFinite, p.covYZ.isFinite, p.covZZ.isFinite else { return false }
        // The line is written into stack scratch and appended at once. Room: about 100 bytes of keys,
        // 13 numbers of at most `FixedDecimal.maxLength`, two integers, and the ids escaped (≤ 2×).
        let room = 800 + 2 * (p.site.utf8.count + p.tag.utf8.count)
        // The ids are checked as they are written; nothing reaches `buffer` when one is refused.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { scratch in
            var w = ByteWriter(scratch)
            w.put("position")
            guard w.putCheckedTag("site", p.site), w.putCheckedTag("tag", p.tag) else { return false }
            w.put(ASCII.space)
            w.putFieldKey("x", first: true)
            w.putDecimal(p.position.x, decimals: metreDecimals)
            metres("y", p.position.y, &w)
            metres("z", p.position.z, &w)
            metres("vx", p.velocity.x, &w)
            metres("vy", p.velocity.y, &w)
            metres("vz", p.velocity.z, &w)
            // sigma from the clamped variances: rounding can leave a variance a hair below zero.
            significant("sigma", (0.5 * (max(0, p.covXX) + max(0, p.covYY))).squareRoot(), &w)
            significant("cxx", p.covXX, &w)
            significant("cxy", p.covXY, &w)
            significant("cyy", p.covYY, &w)
            if p.covZZ > 0 {
                significant("cxz", p.covXZ, &w)
                significant("cyz", p.covYZ, &w)
                significant("czz", p.covZZ, &w)
            }
            // An undecided side of the anchors' plane: the other candidate (see `PositionEstimate.mirror`).
            if let m = p.mirror, m.isFinite {
                metres("mx", m.x, &w)
                metres("my", m.y, &w)
                metres("mz", m.z, &w)
            }
            w.putFieldKey("anchors")
            w.putInteger(Int64(p.anchors))
            w.put(0x69) // i
            w.put(",motion=")
            // The states' names need no escaping: written as literals.
            switch p.motion {
            case .moving: w.put("\"moving\"")
            case .stationary: w.put("\"stationary\"")
            case .unknown: w.put("\"unknown\"")
            }
            w.putTimestamp(p.time)
            buffer.append(contentsOf: w.written)
            return true
        }
    }

    @inline(__always)
    private static func metres(_ key: StaticString, _ value: Double, _ w: inout ByteWriter) {
        w.putFieldKey(key)
        w.putDecimal(value, decimals: metreDecimals)
    }

    @inline(__always)
    private static func significant(_ key: StaticString, _ value: Double, _ w: inout ByteWriter) {
        w.putFieldKey(key)
        w.putSignificant(value, digits: covarianceDigits)
    }
}
