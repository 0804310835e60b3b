public import Positioning
internal import Numerics

/// Encodes events in the ingest format that `IngestDecoder` reads, e.g. for the simulator to write a
/// stream. Numbers are written in the shortest form that reads back exactly, so
/// `decode(encode(event)) == event` for every event the encoder accepts. Each line ends with `\n`.
public enum IngestEncoder {
    /// Appends one ingest line.
    /// - Parameters:
    ///   - event: the event; its time is written as the timestamp.
    ///   - buffer: receives the line, `\n` included.
    /// - Returns: false, with nothing appended, when the event cannot be written: a non-finite number,
    ///   a ranging with neither distance nor direction, or an id that is empty, holds a line break or
    ///   ends in a backslash.
    @discardableResult
    public static func append(_ event: Event, to buffer: inout [UInt8]) -> Bool {
        switch event {
        case .ranging(let r):
            return appendRanging(r, to: &buffer)
        case .motion(let site, let tag, let state, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(tag) else { return false }
            buffer.append("motion")
            buffer.putTag("site", site)
            buffer.putTag("tag", tag)
            buffer.append(" state=")
            buffer.putQuoted(state.rawValue)
            buffer.appendTimestamp(time)
        case .removed(let site, let anchor, let tag, let reason, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(anchor), isRepresentableTagValue(tag)
            else { return false }
            buffer.append("removed")
            buffer.putTag("site", site)
            buffer.putTag("anchor", anchor)
            buffer.putTag("tag", tag)
            buffer.append(" reason=")
            buffer.putQuoted(reason.rawValue)
            buffer.appendTimestamp(time)
        case .session(let site, let anchor, let tag, let state, let time):
            guard isRepresentableTagValue(site), isRepresentableTagValue(anchor),
                  tag.map(isRepresentableTagValue) ?? true else { return false }
            buffer.append("session")
            buffer.putTag("site", site)
            buffer.putTag("anchor", anchor)
            if let tag { buffer.putTag("tag", tag) }
            buffer.append(" state=")
            buffer.putQuoted(state.rawValue)
            buffer.appendTimestamp(time)
        }
        return true
    }

    /// One ingest line as a String (with its `\n`), or nil when it cannot be written (see `append`).
    public static func encode(_ event: Event) -> String? {
        var bytes: [UInt8] = []
        guard append(event, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendRanging(_ r: Ranging, to buffer: inout [UInt8]) -> Bool {
        guard isRepresentableTagValue(r.site), isRepresentableTagValue(r.anchor), isRepresentableTagValue(r.tag),
              r.distance?.isFinite ?? true, r.std?.isFinite ?? true else { return false }
        var azimuth: Double?, elevation: Double?, vector: Vec3?
        switch r.direction {
        case nil: break
        case .angles(let az, let el):
            guard az?.isFinite ?? true, el?.isFinite ?? true else { return false }
            azimuth = az
            elevation = el
        case .vector(let v):
            guard v.isFinite else { return false }
            vector = v
        }
        guard r.distance != nil || azimuth != nil || elevation != nil || vector != nil else { return false }

        buffer.append("ranging")
        buffer.putTag("site", r.site)
        buffer.putTag("anchor", r.anchor)
        buffer.putTag("tag", r.tag)
        if let tech = r.technology { buffer.putTag("tech", tech.rawValue) }
        buffer.append(ASCII.space)
        var first = true
        func field(_ key: StaticString, _ value: Double?) {
            guard let value else { return }
            buffer.putFieldKey(key, first: first)
            buffer.appendShortest(value)
            first = false
        }
        field("distance", r.distance)
        field("std", r.std)
        field("azimuth", azimuth)
        field("elevation", elevation)
        field("dir_x", vector?.x)
        field("dir_y", vector?.y)
        field("dir_z", vector?.z)
        buffer.appendTimestamp(r.time)
        return true
    }
}
