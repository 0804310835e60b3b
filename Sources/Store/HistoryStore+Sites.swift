public import Positioning

extension HistoryStore {
    /// Inserts a site map, or replaces the stored one with the same id. History is keyed by the site
    /// id, so replacing a site keeps its positions and last positions.
    /// - Parameters:
    ///   - site: the parsed site; its `id`, `name` and `dimensions` fill the indexed columns.
    ///   - json: the site's JSON bytes, stored exactly and parsed again by `loadSites()`.
    public func saveSite(_ site: Site, json: [UInt8]) throws {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: """
                INSERT INTO sites (id, name, json, dimensions, updated_at)
                VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ON CONFLICT (id) DO UPDATE SET
                    name = excluded.name, json = excluded.json,
                    dimensions = excluded.dimensions, updated_at = excluded.updated_at
                """)
            try statement.bind(site.id, at: 1)
            try statement.bind(site.name, at: 2)
            try statement.bind(json, at: 3)
            try statement.bind(Int64(site.dimensions), at: 4)
            try statement.execute()
        }
    }

    /// Inserts or replaces a site map, storing its canonical JSON (`Site.jsonBytes()`).
    /// - Parameter site: the site to store.
    public func saveSite(_ site: Site) throws {
        try saveSite(site, json: site.jsonBytes())
    }

    /// Every stored site, parsed from its JSON with `Site(json:source:)`, sorted by id.
    ///
    /// Throws the loader's `SiteError` (its source names the site, `database site 'ID'`) if a stored
    /// map no longer parses.
    public func loadSites() throws -> [Site] {
        let stored = try withDatabase { database in
            var rows: [(id: String, json: [UInt8])] = []
            try database.cachedStatement(sql: "SELECT id, json FROM sites ORDER BY id").forEachRow { row in
                rows.append((row.string(at: 0) ?? "", row.blob(at: 1) ?? []))
            }
            return rows
        }
        return try stored.map { try Site(json: $0.json, source: "database site '\($0.id)'") }
    }

    /// The stored JSON of one site, exactly as saved, or nil if there is no such site.
    /// - Parameter id: the site id.
    public func siteJSON(id: String) throws -> [UInt8]? {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: "SELECT json FROM sites WHERE id = ?1")
            try statement.bind(id, at: 1)
            defer { statement.reset() }
            return try statement.step() ? statement.blob(at: 0) ?? [] : nil
        }
    }

    /// Deletes a site map (its history stays until retention removes it).
    /// - Parameter id: the site id.
    /// - Returns: true if a site was deleted.
    @discardableResult
    public func removeSite(id: String) throws -> Bool {
        try withDatabase { database in
            let statement = try database.cachedStatement(sql: "DELETE FROM sites WHERE id = ?1")
            try statement.bind(id, at: 1)
            try statement.execute()
            return database.changes > 0
        }
    }
}
