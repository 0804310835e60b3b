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

    /// Bytes held now.
    var count: Int { bytes.count }

    /// Hands the bytes so far to `send` (one chunk of a streamed `COPY`) and empties the buffer,
    /// keeping its storage; what is added next continues the same input.
    mutating func send(through send: ([UInt8]) -> Void) {
        send(bytes)
        bytes.removeAll(keepingCapacity: true)
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

    /// A position row in `positions` column order: tag id, time, the 13 reals, anchors, motion, with
    /// `geometry` the point (x, y) for PostGIS's `geom`. The row is laid out in a stack buffer
    /// and appended in one go (a row is 35 fields: one append each cost more than the rest of its
    /// encoding).
    mutating func position(_ e: PositionEstimate, tagID: Int64, geometry: Bool = false) {
        withUnsafeTemporaryAllocation(byteCount: Self.maxPositionBytes, alignment: 8) { buffer in
            var row = RowWriter(base: buffer.baseAddress!)
            row.field16(17 + (geometry ? 1 : 0))
            row.int64(tagID)
            row.int64(e.time)
            row.double(e.position.x); row.double(e.position.y); row.double(e.position.z)
            row.double(e.velocity.x); row.double(e.velocity.y); row.double(e.velocity.z)
            row.double(e.sigma)
            row.double(e.covXX); row.double(e.covXY); row.double(e.covYY)
            row.double(e.covXZ); row.double(e.covYZ); row.double(e.covZZ)
            row.int32(4)
            row.big32(UInt32(bitPattern: Int32(clamping: e.anchors)))
            let motion: StaticString = switch e.motion {
            case .stationary: "stationary"
            case .moving: "moving"
            case .unknown: "unknown"
            }
            row.int32(Int32(motion.utf8CodeUnitCount))
            row.raw(motion.utf8Start, count: motion.utf8CodeUnitCount)
            if geometry {
                let x = e.position.x, y = e.position.y
                if x.isNaN || y.isNaN {
                    row.int32(-1)
                } else {
                    row.int32(Int32(Self.wkbPointBytes))
                    row.byte(1)                                  // little-endian
                    row.little32(1)                              // wkbPoint
                    row.little64(x.bitPattern)
                    row.little64(y.bitPattern)
                }
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: row.offset))
        }
    }

    /// A `cell_visits` row: cell, time (Unix nanoseconds), tag id.
    mutating func visit(cell: Int64, time: Int64, tagID: Int64) {
        beginRow(fields: 3)
        int64(cell); int64(time); int64(tagID)
    }

    /// The most bytes `position` writes for one row (see `PostgresBatchWriter.rowBytes`).
    static let maxPositionBytes = 256

    /// Writes the fields of one row into raw memory, big-endian as COPY wants (WKB inside is little-endian).
    private struct RowWriter {
        let base: UnsafeMutableRawPointer
        var offset = 0

        mutating func field16(_ v: UInt16) {
            base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt16.self); offset += 2
        }
        mutating func int32(_ v: Int32) { big32(UInt32(bitPattern: v)) }
        mutating func big32(_ v: UInt32) {
            base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt32.self); offset += 4
        }
        mutating func big64(_ v: UInt64) {
            base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: UInt64.self); offset += 8
        }
        mutating func int64(_ v: Int64) {
            int32(8)
            big64(UInt64(bitPattern: v))
        }
        mutating func double(_ v: Double) {
            int32(8)
            big64(v.bitPattern)
        }
        mutating func little32(_ v: UInt32) {
            base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self); offset += 4
        }
        mutating func little64(_ v: UInt64) {
            base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt64.self); offset += 8
        }
        mutating func byte(_ v: UInt8) {
            base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self); offset += 1
        }
        mutating func raw(_ p: UnsafePointer<UInt8>, count: Int) {
            (base + offset).copyMemory(from: p, byteCount: count); offset += count
        }
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
