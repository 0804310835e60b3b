/// The schema of Sextant's data directory (`sextant.sqlite`), as numbered migrations.
///
/// Tables:
/// - `sites(id TEXT PRIMARY KEY, name, json BLOB, dimensions, updated_at)`: the site maps; `json` holds
///   the exact bytes given to `saveSite` (read it with `CAST(json AS TEXT)` in the sqlite3 shell).
/// - `tags(id INTEGER PRIMARY KEY, site, tag, UNIQUE(site, tag))`: a dictionary giving each
///   (site, tag) pair a small integer, so history rows do not repeat the strings.
/// - `positions(tag_id, t_ns, x, y, z, vx, vy, vz, sigma, cxx, cxy, cyy, cxz, cyz, czz, anchors, motion)`,
///   `WITHOUT ROWID` with `PRIMARY KEY(tag_id, t_ns)`: clustered by tag then time, so one tag's time
///   range is one contiguous B-tree range (no index, no rowid lookups) and each row carries only an
///   integer key. Metres, m/s, m², Unix nanoseconds; `motion` is the `MotionState` raw value.
/// - `last_positions`: the same columns keyed by `tag_id` alone, one row per tag, upserted once per
///   batch with the batch's newest row of each tag (older rows never overwrite newer ones).
/// - `measurements(site, t_ns, line BLOB)`: raw ingest lines, when recording is on; a rowid table
///   (appends are cheap) with an index on `t_ns`, which grows at its right edge.
/// - `zone_events(site, tag, zone, event, t_ns)`: zone enters and exits (`event` is `enter` or
///   `exit`), indexed by (site, t_ns) for `sextant zones`.
/// - Views `positions_named` and `last_positions_named`: the rows with `site` and `tag` in place of
///   `tag_id`, and `time`, ISO 8601 UTC text, beside `t_ns`; a time range across tags reads one
///   primary-key range per tag. docs/storage.md describes them.
public enum StoreSchema {
    /// File name of the database inside a data directory.
    public static let fileName = "sextant.sqlite"

    /// The migrations, in version order. Never edit a released one: append a new version instead.
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "create sites", sql: """
            CREATE TABLE sites (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                json BLOB NOT NULL,
                dimensions INTEGER NOT NULL,
                updated_at TEXT NOT NULL);
            """),
        Migration(version: 2, name: "create tags and positions", sql: """
            CREATE TABLE tags (
                id INTEGER PRIMARY KEY,
                site TEXT NOT NULL,
                tag TEXT NOT NULL,
                UNIQUE (site, tag));
            CREATE TABLE positions (
                tag_id INTEGER NOT NULL, t_ns INTEGER NOT NULL,
                \(positionColumns),
                PRIMARY KEY (tag_id, t_ns)) WITHOUT ROWID;
            """),
        Migration(version: 3, name: "create last_positions", sql: """
            CREATE TABLE last_positions (
                tag_id INTEGER PRIMARY KEY NOT NULL, t_ns INTEGER NOT NULL,
                \(positionColumns));
            """),
        Migration(version: 4, name: "create measurements", sql: """
            CREATE TABLE measurements (
                site TEXT NOT NULL,
                t_ns INTEGER NOT NULL,
                line BLOB NOT NULL);
            CREATE INDEX measurements_time ON measurements (t_ns);
            """),
        Migration(version: 5, name: "create zone_events", sql: """
            CREATE TABLE zone_events (
                site TEXT NOT NULL,
                tag TEXT NOT NULL,
                zone TEXT NOT NULL,
                event TEXT NOT NULL,
                t_ns INTEGER NOT NULL);
            CREATE INDEX zone_events_site_time ON zone_events (site, t_ns);
            """),
        // Literal SQL, not built from the column lists above: a shipped migration must never change.
        // `time` is exact (nine fractional digits) and fixed width, so its text order is time order.
        // `tags CROSS JOIN` makes the tag dictionary the outer loop (SQLite keeps a CROSS JOIN's
        // order), so a time range across tags is one primary-key range per tag, not a scan of the
        // history; an index on `t_ns` would do the same at about half the history writer's rate.
        Migration(version: 6, name: "create views positions_named and last_positions_named", sql: """
            CREATE VIEW positions_named AS
                SELECT t.site, t.tag, p.t_ns,
                    strftime('%Y-%m-%dT%H:%M:%S', p.t_ns / 1000000000, 'unixepoch')
                        || '.' || printf('%09d', p.t_ns % 1000000000) || 'Z' AS time,
                    p.x, p.y, p.z, p.vx, p.vy, p.vz, p.sigma, p.cxx, p.cxy, p.cyy, p.cxz, p.cyz, p.czz,
                    p.anchors, p.motion
                FROM tags t CROSS JOIN positions p ON p.tag_id = t.id;
            CREATE VIEW last_positions_named AS
                SELECT t.site, t.tag, l.t_ns,
                    strftime('%Y-%m-%dT%H:%M:%S', l.t_ns / 1000000000, 'unixepoch')
                        || '.' || printf('%09d', l.t_ns % 1000000000) || 'Z' AS time,
                    l.x, l.y, l.z, l.vx, l.vy, l.vz, l.sigma, l.cxx, l.cxy, l.cyy, l.cxz, l.cyz, l.czz,
                    l.anchors, l.motion
                FROM tags t CROSS JOIN last_positions l ON l.tag_id = t.id;
            """),
        // PostgreSQL's version 7 sets a fill factor; SQLite rewrites a row in place in its B-tree
        // page and has no such setting, so here the version only keeps the two lists in step.
        Migration(version: 7, name: "leave room in last_positions pages", sql: """
            -- nothing to change in SQLite
            """),
    ]

    /// A migrator holding `migrations`.
    public static var migrator: Migrator { Migrator(migrations) }

    /// The value columns shared by `positions` and `last_positions`. `REAL` affinity matters: SQLite
    /// stores whole-valued reals (the zero 3-D covariance terms of 2-D sites) in zero or one byte.
    /// The reals may be `NULL` because SQLite stores NaN as `NULL`: a NaN from the engine must not
    /// fail a whole batch on a constraint; it reads back as NaN.
    static let positionColumns = """
        x REAL, y REAL, z REAL, vx REAL, vy REAL, vz REAL, sigma REAL,
                cxx REAL, cxy REAL, cyy REAL, cxz REAL, cyz REAL, czz REAL,
                anchors INTEGER NOT NULL, motion TEXT NOT NULL
        """

    /// The value column names, in the order `PositionRow` binds and reads them (after `t_ns`).
    static let valueColumnNames = "x, y, z, vx, vy, vz, sigma, cxx, cxy, cyy, cxz, cyz, czz, anchors, motion"
}
