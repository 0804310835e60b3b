public import Positioning
internal import Numerics

/// The history queries of `HistoryStorage`, in PostgreSQL; the SQL mirrors `HistoryStore`'s.
extension PostgresHistoryStore: HistoryStorage {
    public func lastPositions(site: String?) throws -> [PositionEstimate] {
        try withConnection { c in
            let rows = try c.query("""
                SELECT t.site, t.tag, \(HistorySQL.readColumns) FROM last_positions l JOIN tags t ON t.id = l.tag_id
                WHERE $1::text IS NULL OR t.site = $1 ORDER BY t.site, t.tag
                """, [site])
            return (0..<rows.count).map { rows.position(row: $0, site: rows.string($0, 0) ?? "", tag: rows.string($0, 1) ?? "", from: 2) }
        }
    }

    public func positions(site: String, tag: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                          limit: Int? = nil) throws -> [PositionEstimate] {
        try withConnection { c in
            let rows = try c.query("""
                SELECT \(HistorySQL.readColumns) FROM positions
                WHERE tag_id = (SELECT id FROM tags WHERE site = $1 AND tag = $2) AND t_ns >= $3 AND t_ns < $4
                ORDER BY t_ns LIMIT $5
                """, [site, tag, String(from ?? .min), String(to ?? .max), limit.map { String(max(0, $0)) }])
            return (0..<rows.count).map { rows.position(row: $0, site: site, tag: tag, from: 0) }
        }
    }

    public func positionCount(site: String? = nil, tag: String? = nil, from: Nanoseconds? = nil,
                              to: Nanoseconds? = nil) throws -> Int {
        try withConnection { c in
            let rows = try c.query("""
                SELECT count(*) FROM positions WHERE tag_id IN (
                    SELECT id FROM tags WHERE ($1::text IS NULL OR site = $1) AND ($2::text IS NULL OR tag = $2))
                AND t_ns >= $3 AND t_ns < $4
                """, [site, site == nil ? nil : tag, String(from ?? .min), String(to ?? .max)])
            return Int(rows.int64(0, 0))
        }
    }

    public func tags(site: String? = nil) throws -> [(site: String, tag: String)] {
        try withConnection { c in
            let rows = try c.query("SELECT site, tag FROM tags WHERE $1::text IS NULL OR site = $1 ORDER BY site, tag", [site])
            return (0..<rows.count).map { (rows.string($0, 0) ?? "", rows.string($0, 1) ?? "") }
        }
    }

    public func measurements(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                             limit: Int? = nil) throws -> [RecordedMeasurement] {
        try measurementPage(site: site, after: (from ?? .min, .min), to: to, limit: limit).lines
    }

    public func measurementCount() throws -> Int {
        try withConnection { Int(try $0.query("SELECT count(*) FROM measurements").int64(0, 0)) }
    }

    public func forEachMeasurementPage(site: String? = nil, from: Nanoseconds? = nil, to: Nanoseconds? = nil,
                                       pageSize: Int = 50_000, _ body: ([RecordedMeasurement]) throws -> Void) throws {
        var after: (time: Int64, id: Int64) = (from ?? .min, .min)
        let limit = max(1, pageSize)
        while true {
            let (page, last) = try measurementPage(site: site, after: after, to: to, limit: limit)
            if !page.isEmpty { try body(page) }
            guard page.count == limit, let last else { return }
            after = last
        }
    }

    /// Lines after (time, id) and before `to`, in (time, id) order, with the last (time, id) read.
    private func measurementPage(site: String?, after: (time: Int64, id: Int64), to: Nanoseconds?, limit: Int?)
        throws -> (lines: [RecordedMeasurement], last: (Int64, Int64)?) {
        try withConnection { c in
            let rows = try c.query("""
                SELECT site, t_ns, line, id FROM measurements
                WHERE (t_ns, id) > ($2, $3) AND t_ns < $4 AND ($1::text IS NULL OR site = $1)
                ORDER BY t_ns, id LIMIT $5
                """, [site, String(after.time), String(after.id), String(to ?? .max), limit.map { String(max(0, $0)) }])
            let lines = (0..<rows.count).map {
                RecordedMeasurement(site: rows.string($0, 0) ?? "", time: rows.int64($0, 1), line: rows.bytes($0, 2) ?? [])
            }
            let last = rows.count > 0 ? (rows.int64(rows.count - 1, 1), rows.int64(rows.count - 1, 3)) : nil
            return (lines, last)
        }
    }

    public func zoneEvents(site: String, from: Nanoseconds? = nil, to: Nanoseconds? = nil) throws -> [ZoneEventRecord] {
        try withConnection { c in
            let rows = try c.query("""
                SELECT tag, zone, event, t_ns FROM zone_events
                WHERE site = $1 AND t_ns >= $2 AND t_ns < $3 ORDER BY t_ns, id
                """, [site, String(from ?? .min), String(to ?? .max)])
            return (0..<rows.count).compactMap { r in
                guard let event = ZoneEvent(rawValue: rows.string(r, 2) ?? "") else { return nil }
                return ZoneEventRecord(site: site, tag: rows.string(r, 0) ?? "", zone: rows.string(r, 1) ?? "",
                                       event: event, time: rows.int64(r, 3))
            }
        }
    }

    public func saveSite(_ site: Site, json: [UInt8]) throws {
        _ = try withConnection { c in
            try c.query("""
                INSERT INTO sites (id, name, json, dimensions, updated_at)
                VALUES ($1, $2, decode($3, 'hex'), $4, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                ON CONFLICT (id) DO UPDATE SET
                    name = excluded.name, json = excluded.json,
                    dimensions = excluded.dimensions, updated_at = excluded.updated_at
                """, [site.id, site.name, Self.hex(json), String(site.dimensions)])
        }
    }

    public func loadSites() throws -> [Site] {
        let stored = try withConnection { c in
            let rows = try c.query("SELECT id, json FROM sites ORDER BY id")
            return (0..<rows.count).map { (id: rows.string($0, 0) ?? "", json: rows.bytes($0, 1) ?? []) }
        }
        return try stored.map { try Site(json: $0.json, source: "database site '\($0.id)'") }
    }

    public func siteJSON(id: String) throws -> [UInt8]? {
        try withConnection { c in
            let rows = try c.query("SELECT json FROM sites WHERE id = $1", [id])
            return rows.count > 0 ? rows.bytes(0, 0) ?? [] : nil
        }
    }

    @discardableResult
    public func removeSite(id: String) throws -> Bool {
        try withConnection { c in
            try c.query("DELETE FROM sites WHERE id = $1 RETURNING id", [id]).count > 0
        }
    }

    /// Lower-case hexadecimal digits of `bytes`, for `decode(…, 'hex')` in a text parameter.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for b in bytes { text.append(digits[Int(b >> 4)]); text.append(digits[Int(b & 15)]) }
        return String(decoding: text, as: UTF8.self)
    }
}

extension PostgresResult {
    /// Reads a position whose `HistorySQL.readColumns` start at column `first` of `row`.
    func position(row: Int, site: String, tag: String, from first: Int) -> PositionEstimate {
        let c = first
        let motion: MotionState = switch bytes(row, c + 15)?.first {
        case UInt8(ascii: "s"): .stationary
        case UInt8(ascii: "m"): .moving
        default: .unknown
        }
        return PositionEstimate(
            site: site, tag: tag,
            position: Vec3(double(row, c + 1), double(row, c + 2), double(row, c + 3)),
            velocity: Vec3(double(row, c + 4), double(row, c + 5), double(row, c + 6)),
            covXX: double(row, c + 8), covXY: double(row, c + 9), covYY: double(row, c + 10),
            covXZ: double(row, c + 11), covYZ: double(row, c + 12), covZZ: double(row, c + 13),
            anchors: Int(int64(row, c + 14)), motion: motion, time: int64(row, c))
    }
}
