public import Positioning

extension PostgresHistoryStore {
    /// The positions of a site's tags inside a polygon (boundary included) with `from <= time < to`,
    /// ordered by tag then time: "who was inside this area between t1 and t2", one query through
    /// `sextant_inside`, which finds the tags that visited the grid cells covering the polygon in
    /// `cell_visits`, reads their rows of those time buckets through the primary key, and keeps the
    /// points that intersect it (a database whose role could not add `cell_visits` is asked with
    /// `ST_Intersects` on `geom` alone). Needs PostGIS in the server (`isSpatial`).
    /// - Parameters:
    ///   - site: the site id.
    ///   - polygon: the area as WKT in the site frame, metres, for example
    ///     `POLYGON((0 0, 10 0, 10 5, 0 5, 0 0))`.
    ///   - from: inclusive start, Unix nanoseconds; nil for the beginning.
    ///   - to: exclusive end, Unix nanoseconds; nil for no end.
    /// - Throws: `PostgresError` when PostGIS is missing or the WKT does not parse.
    public func positionsInside(site: String, polygon: String, from: Nanoseconds? = nil,
                                to: Nanoseconds? = nil) throws -> [PositionEstimate] {
        guard isSpatial else {
            throw PostgresError(sqlState: nil, message: "PostGIS is not installed in the server, so positions have no "
                                + "geom column (Debian: apt install postgresql-15-postgis-3, then reopen the database)")
        }
        let columns = HistorySQL.readColumns.split(separator: ",").map { "p." + $0.trimmingCharacters() }
            .joined(separator: ", ")
        let sql = hasCells ? """
            SELECT t.tag, \(columns)
            FROM sextant_inside(ST_GeomFromText($2), $3, $4) p JOIN tags t ON t.id = p.tag_id
            WHERE t.site = $1
            ORDER BY t.tag, p.t_ns
            """ : """
            SELECT t.tag, \(columns)
            FROM positions p JOIN tags t ON t.id = p.tag_id
            WHERE t.site = $1 AND ST_Intersects(p.geom, ST_GeomFromText($2))
              AND p.t_ns >= $3 AND p.t_ns < $4
            ORDER BY t.tag, p.t_ns
            """
        return try withConnection { c in
            let rows = try c.query(sql, [site, polygon, String(from ?? .min), String(to ?? .max)])
            return (0..<rows.count).map { rows.position(row: $0, site: site, tag: rows.string($0, 0) ?? "", from: 1) }
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and newlines.
    func trimmingCharacters() -> String { String(self).trimmingWhitespace() }
}
