internal import Positioning

/// The input of one `COPY … FROM STDIN (FORMAT binary)`: the signature, tuples of length-prefixed
/// big-endian fields, and the trailer, as PostgreSQL's documentation of COPY's binary format gives
/// them. Binary needs no number formatting and keeps every double exact (NaN included).
struct PostgresCopyBuffer {
    /// The bytes so far.
    private(set) var bytes: [UInt8]

    /// A buffer holding the header (`PGCOPY\n\377\r\n\0`, flags 0, no extension).
    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity + 21)
        bytes += [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
        append32(0)
        append32(0)
    }

    /// Starts a tuple of `fields` fields.
    mutating func beginRow(fields: Int16) { append16(UInt16(bitPattern: fields)) }

    /// A `bigint` field.
    mutating func int64(_ value: Int64) {
        append32(8)
        append64(UInt64(bitPattern: value))
    }

    /// An `integer` field.
    mutating func int32(_ value: Int32) {
        append32(4)
        append32(UInt32(bitPattern: value))
    }

    /// A `double precision` field.
    mutating func double(_ value: Double) {
        append32(8)
        append64(value.bitPattern)
    }

    /// A NULL field.
    mutating func null() { append32(UInt32.max) }

    /// A PostGIS `geometry(Point)` field, SRID 0: the 2-D point (x, y) as little-endian WKB (byte
    /// order 1, type 1, x, y; 21 bytes), which the server's `geometry_recv` reads as it is; NULL when
    /// x or y is NaN (the position has no place in the plane).
    mutating func point(x: Double, y: Double) {
        guard !x.isNaN && !y.isNaN else { null(); return }
        append32(UInt32(Self.wkbPointBytes))
        bytes.append(1)                                  // little-endian
        withUnsafeBytes(of: UInt32(1).littleEndian) { bytes.append(contentsOf: $0) }   // wkbPoint
        withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: y.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Bytes of a 2-D WKB point: order, type, two doubles.
    static let wkbPointBytes = 1 + 4 + 8 + 8

    /// A `text` or `bytea` field.
    mutating func data<C: Collection<UInt8>>(_ value: C) {
        append32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `text` field.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { data($0) }
    }

    /// Ends the input: the trailer (a field count of -1). - Returns: the bytes to send.
    mutating func finish() -> [UInt8] {
        append16(0xFFFF)
        return bytes
    }

    /// A position row in `positions` column order: tag id, time, the 13 reals, anchors, motion, and
    /// with `geometry` the point (x, y) for PostGIS's `geom`.
    mutating func position(_ e: PositionEstimate, tagID: Int64, geometry: Bool = false) {
        beginRow(fields: geometry ? 18 : 17)
        int64(tagID)
        int64(e.time)
        double(e.position.x); double(e.position.y); double(e.position.z)
        double(e.velocity.x); double(e.velocity.y); double(e.velocity.z)
        double(e.sigma)
        double(e.covXX); double(e.covXY); double(e.covYY); double(e.covXZ); double(e.covYZ); double(e.covZZ)
        int32(Int32(clamping: e.anchors))
        let motion: StaticString = switch e.motion {
        case .stationary: "stationary"
        case .moving: "moving"
        case .unknown: "unknown"
        }
        motion.withUTF8Buffer { data($0) }
        if geometry { point(x: e.position.x, y: e.position.y) }
    }

    private mutating func append16(_ v: UInt16) {
        bytes.append(UInt8(v >> 8)); bytes.append(UInt8(truncatingIfNeeded: v))
    }

    private mutating func append32(_ v: UInt32) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func append64(_ v: UInt64) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
