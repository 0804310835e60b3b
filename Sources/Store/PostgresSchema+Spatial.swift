/// Where PostGIS is available, `positions` gets `geom`, the 2-D point (x, y) in the site frame
/// (metres, SRID 0; NULL when x or y is NaN), which the history writer fills in its `COPY`, and the
/// database gets `cell_visits`, the index of where tags were: one row per tag, square of a 4 m grid
/// (`cell`) and 10 s time bucket (`CellVisits.bucketNanoseconds`) that holds its positions, at the
/// time of its first one there, written by the writer beside the positions. A tag crossing a few
/// cells in a bucket gives a few visits for tens of positions, so the index costs the server a
/// fraction of an index on every position (docs/storage.md).
///
/// "Who was inside this polygon between t1 and t2" is `sextant_inside(polygon, t1, t2)`: it looks up
/// the cells that cover the polygon in the visits over the window, and reads each (tag, bucket)
/// found through the primary key, from the tag's first visit there to the bucket's end (both within
/// the window), keeping the rows whose `geom` intersects the polygon exactly. Applied at each open
/// after the migrations, and not a migration, because it depends on the server's extensions.
extension PostgresSchema {
    /// The edge of a grid cell of `cell_visits.cell`, metres in the site frame.
    static let cellSize = 4.0
    /// A polygon whose bounding box covers at most this many cells is looked up cell by cell (each
    /// narrowed to the window's buckets in the index of visits); a larger one column by column of cells.
    static let maxCellsOneByOne = 1024
    /// A polygon more columns of cells wide than this is looked up as one range of cells, from the
    /// first corner's to the last (a scan of everything between, filtered by time and `geom`).
    static let maxCellColumns = 4096
    /// Cells of the column ranges that `sextant_inside` still looks up one by one (each an index
    /// descent, about 2 µs); beyond, it reads each column's range of the index from the window's
    /// first bucket on.
    static let maxCellsLookedUp = 16384

    /// The cell of the point (x, y): `column × 2³² + row + 2³¹`, with column = ⌊x / cellSize⌋ and
    /// row = ⌊y / cellSize⌋ each clamped to the 32-bit integers, so that the cells of one column are
    /// consecutive values; nil when x or y is NaN. `sextant_cell(x, y)` in the server is the same.
    /// - Parameters: x, y: metres in the site frame.
    static func cell(x: Double, y: Double) -> Int64? {
        guard !x.isNaN && !y.isNaN else { return nil }
        return cellIndex(x) * cellColumnStride + (cellIndex(y) + cellRowOffset)
    }

    /// ⌊v / cellSize⌋, clamped to the 32-bit integers. - Parameter v: metres, not NaN.
    static func cellIndex(_ v: Double) -> Int64 {
        Int64(min(max((v / cellSize).rounded(.down), Double(Int32.min)), Double(Int32.max)))
    }

    /// What one column of cells adds to `cell`: 2³².
    static let cellColumnStride: Int64 = 1 << 32
    /// What makes a row index of `cell` non-negative: 2³¹.
    static let cellRowOffset: Int64 = 1 << 31

    /// The extension and `geom`. Idempotent.
    static let spatialSQL = """
        CREATE EXTENSION IF NOT EXISTS postgis;
        ALTER TABLE positions ADD COLUMN IF NOT EXISTS geom geometry(Point);
        """

    /// The key of the advisory lock that orders the writers' batches (shared) before retention's
    /// raising of `cell_visits_pruned` (exclusive): a writer relies on a visit it stored only while
    /// retention may not delete it.
    static let visitsLock = schemaLock + 1

    /// `cell_visits` with its indexes and the functions, filled from the rows of a database made
    /// before it (from x and y of every row with a point), and the indexes on every position of such
    /// a database (`positions_cell` on the dropped column `cell`, or `positions_geom`) dropped.
    /// Idempotent; run under the schema's advisory lock (`schemaLock`). On a big history the fill
    /// reads every row once, holding the table's lock meanwhile. The SQL functions are not `STRICT`
    /// (NULL in gives NULL out all the same), so that the planner inlines them: a call that is not
    /// inlined costs about 20 µs, 110 times the inlined expression (`psql`, 300,000 rows).
    static let cellSQL = """
        CREATE OR REPLACE FUNCTION sextant_cell_index(v double precision) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN greatest(least(floor(v / \(cellSize)::float8), 2147483647), -2147483648)::bigint;
        CREATE OR REPLACE FUNCTION sextant_cell(x double precision, y double precision) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN x = 'NaN' OR y = 'NaN' THEN NULL
            ELSE sextant_cell_index(x) * \(cellColumnStride) + (sextant_cell_index(y) + \(cellRowOffset)) END;
        CREATE OR REPLACE FUNCTION sextant_visit_bucket(t bigint) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN t >= 0 THEN t / \(bucket) ELSE (t + 1) / \(bucket) - 1 END;
        CREATE OR REPLACE FUNCTION sextant_visit_start(b bigint) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN b <= \(Int64.min / bucket - 1) THEN -9223372036854775808 ELSE b * \(bucket) END;
        CREATE OR REPLACE FUNCTION sextant_visit_end(b bigint) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN CASE WHEN b >= \(Int64.max / bucket) THEN 9223372036854775807 ELSE (b + 1) * \(bucket) END;
        CREATE OR REPLACE FUNCTION sextant_cell_ranges(area geometry) RETURNS TABLE (lo bigint, hi bigint)
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE ROWS 64 AS $$
        DECLARE
            x0 bigint := sextant_cell_index(ST_XMin(area));
            x1 bigint := sextant_cell_index(ST_XMax(area));
            y0 bigint := sextant_cell_index(ST_YMin(area));
            y1 bigint := sextant_cell_index(ST_YMax(area));
            size float8 := \(cellSize);
        BEGIN
            IF ST_IsEmpty(area) THEN
                RETURN;
            ELSIF (x1 - x0 + 1)::float8 * (y1 - y0 + 1) <= \(maxCellsOneByOne) THEN
                -- Each cell whose square meets the area, as a range of one cell.
                RETURN QUERY SELECT k.c, k.c FROM generate_series(x0, x1) cx, generate_series(y0, y1) cy,
                    LATERAL (SELECT cx * \(cellColumnStride) + (cy + \(cellRowOffset))) k (c)
                    WHERE ST_Intersects(area, ST_MakeEnvelope(cx * size, cy * size, (cx + 1) * size, (cy + 1) * size, ST_SRID(area)))
                    ORDER BY 1;
            ELSIF x1 - x0 < \(maxCellColumns) THEN
                -- Each column of cells that the area meets, over the area's extent in that column:
                -- clipped to the column widened by half a cell each way (an area that only touches
                -- the column's edge still counts), with one cell more each way against rounding.
                RETURN QUERY SELECT cx * \(cellColumnStride) + (greatest(sextant_cell_index(ST_YMin(s.g)) - 1, y0) + \(cellRowOffset)),
                        cx * \(cellColumnStride) + (least(sextant_cell_index(ST_YMax(s.g)) + 1, y1) + \(cellRowOffset))
                    FROM generate_series(x0, x1) cx,
                    LATERAL (SELECT ST_ClipByBox2D(area, ST_MakeEnvelope((cx - 0.5) * size, ST_YMin(area), (cx + 1.5) * size,
                        ST_YMax(area), ST_SRID(area))) g) s
                    WHERE NOT ST_IsEmpty(s.g)
                    ORDER BY 1;
            ELSE
                RETURN QUERY SELECT x0 * \(cellColumnStride) + (y0 + \(cellRowOffset)), x1 * \(cellColumnStride) + (y1 + \(cellRowOffset));
            END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS cell_visits (cell bigint NOT NULL, t_ns bigint NOT NULL, tag_id bigint NOT NULL);
        CREATE TABLE IF NOT EXISTS cell_visits_pruned (before_ns bigint NOT NULL);
        INSERT INTO cell_visits_pruned SELECT -9223372036854775808 WHERE NOT EXISTS (SELECT 1 FROM cell_visits_pruned);
        CREATE OR REPLACE FUNCTION sextant_inside(area geometry, from_ns bigint, to_ns bigint) RETURNS SETOF positions
        LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE ROWS 1000
        SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
        DECLARE
            lows bigint[];
            highs bigint[];
            cells float8;
            since bigint := sextant_visit_start(sextant_visit_bucket(from_ns));
        BEGIN
            SELECT array_agg(lo ORDER BY lo), array_agg(hi ORDER BY lo), sum((hi - lo)::float8 + 1)
                INTO lows, highs, cells FROM sextant_cell_ranges(area);
            IF cells <= \(maxCellsLookedUp) THEN
                -- One index lookup per cell, each over the buckets of the window.
                RETURN QUERY WITH v AS MATERIALIZED (
                        SELECT c.tag_id, min(c.t_ns) AS first FROM cell_visits c
                        WHERE c.cell = ANY (ARRAY(SELECT generate_series(r.lo, r.hi) FROM unnest(lows, highs) r (lo, hi)))
                            AND c.t_ns >= since AND c.t_ns < to_ns
                        GROUP BY c.tag_id, sextant_visit_bucket(c.t_ns))
                    SELECT p.* FROM v, LATERAL (
                        SELECT * FROM positions p WHERE p.tag_id = v.tag_id AND p.t_ns >= greatest(v.first, from_ns)
                            AND p.t_ns < least(sextant_visit_end(sextant_visit_bucket(v.first)), to_ns)
                            AND ST_Intersects(p.geom, area) OFFSET 0) p;
            ELSIF cells > 0 THEN
                -- One index range per column of cells, read from the window's first bucket to the cells' last visits.
                RETURN QUERY WITH v AS MATERIALIZED (
                        SELECT c.tag_id, min(c.t_ns) AS first FROM unnest(lows, highs) r (lo, hi), LATERAL (
                            SELECT c.tag_id, c.t_ns FROM cell_visits c WHERE c.cell >= r.lo AND c.cell <= r.hi
                                AND c.t_ns >= since AND c.t_ns < to_ns OFFSET 0) c
                        GROUP BY c.tag_id, sextant_visit_bucket(c.t_ns))
                    SELECT p.* FROM v, LATERAL (
                        SELECT * FROM positions p WHERE p.tag_id = v.tag_id AND p.t_ns >= greatest(v.first, from_ns)
                            AND p.t_ns < least(sextant_visit_end(sextant_visit_bucket(v.first)), to_ns)
                            AND ST_Intersects(p.geom, area) OFFSET 0) p;
            END IF;
        END $$;
        INSERT INTO cell_visits (cell, t_ns, tag_id)
            SELECT sextant_cell(x, y), min(t_ns), tag_id FROM positions
            WHERE geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cell_visits)
            GROUP BY tag_id, sextant_cell(x, y), sextant_visit_bucket(t_ns);
        CREATE INDEX IF NOT EXISTS cell_visits_cell ON cell_visits (cell, t_ns) INCLUDE (tag_id);
        CREATE INDEX IF NOT EXISTS cell_visits_time ON cell_visits USING brin (t_ns);
        DROP INDEX IF EXISTS positions_cell;
        DROP INDEX IF EXISTS positions_geom;
        ALTER TABLE positions DROP COLUMN IF EXISTS cell;
        """

    /// `CellVisits.bucketNanoseconds`, for the SQL.
    private static let bucket = CellVisits.bucketNanoseconds

    /// A `geom` that the server computed from x and y (`GENERATED ALWAYS … STORED`) becomes a plain
    /// column with its values kept, since the writer sends the point itself.
    static let plainGeometrySQL = "ALTER TABLE positions ALTER COLUMN geom DROP EXPRESSION IF EXISTS"

    /// What `positions.geom` is in a database.
    enum GeometryColumn {
        /// No such column (no PostGIS, or opened with `spatial: false`).
        case none
        /// Computed by the server (`GENERATED ALWAYS … STORED`): the writer must not send it.
        case generated
        /// A plain column: the writer sends each point.
        case plain
    }

    /// What PostGIS gave `positions` in a database.
    struct Spatial {
        /// What `geom` is.
        var geometry: GeometryColumn
        /// True when `cell_visits`, its index and `sextant_inside` exist: the writer stores each
        /// batch's visits, and polygon queries go through them.
        var cells: Bool
    }

    /// What `positions.geom` is now.
    static func geometryColumn(_ connection: PostgresConnection) -> GeometryColumn {
        let sql = "SELECT is_generated FROM information_schema.columns WHERE table_name = 'positions' AND column_name = 'geom'"
        guard let found = try? connection.query(sql), found.count == 1 else { return .none }
        return found.string(0, 0) == "ALWAYS" ? .generated : .plain
    }

    /// Whether `cell_visits`, its index, `cell_visits_pruned` and this `sextant_inside` exist now.
    static func hasCells(_ connection: PostgresConnection) -> Bool {
        let sql = """
            SELECT 1 WHERE to_regclass('cell_visits_cell') IS NOT NULL AND to_regclass('cell_visits_pruned') IS NOT NULL
                AND to_regprocedure('sextant_visit_bucket(bigint)') IS NOT NULL
                AND to_regprocedure('sextant_inside(geometry, bigint, bigint)') IS NOT NULL
            """
        return (try? connection.query(sql).count) == 1
    }

    /// What PostGIS gave `positions` now, changing nothing.
    static func spatial(_ connection: PostgresConnection) -> Spatial {
        let geometry = geometryColumn(connection)
        return Spatial(geometry: geometry, cells: geometry != .none && hasCells(connection))
    }

    /// Adds `geom` (`spatialSQL`) when the server offers PostGIS, makes a generated `geom` plain
    /// (`plainGeometrySQL`), and adds `cell_visits` (`cellSQL`) where it is missing.
    /// - Returns: what `positions` has afterwards (a `geom` still `generated`, or no `cells`, if the
    ///   role may not alter the table: the server then goes on computing `geom`, and polygon queries
    ///   use the spatial index the database already has).
    static func enableSpatial(_ connection: PostgresConnection) -> Spatial {
        var geometry = geometryColumn(connection)
        switch geometry {
        case .plain: break
        case .generated:
            try? connection.execute(plainGeometrySQL)
            geometry = geometryColumn(connection)
        case .none:
            guard (try? connection.query("SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'").count) == 1,
                  run("BEGIN; \(spatialSQL) COMMIT;", on: connection)
            else { return Spatial(geometry: .none, cells: false) }
            geometry = .plain
        }
        let cells = hasCells(connection)
            || run("BEGIN; SELECT pg_advisory_xact_lock(\(schemaLock)); \(cellSQL) COMMIT;", on: connection)
        return Spatial(geometry: geometry, cells: cells)
    }

    /// Runs a transaction, rolled back if it fails. - Returns: whether it committed.
    private static func run(_ transaction: String, on connection: PostgresConnection) -> Bool {
        do {
            try connection.execute(transaction)
            return true
        } catch {
            try? connection.execute("ROLLBACK")
            return false
        }
    }
}
