internal import CSQLite
internal import Numerics
internal import Positioning

/// The SQL shared by the history writer and the history queries.
enum HistorySQL {
    /// Inserts one history row; a second row for the same tag and instant replaces the first.
    static let insertPosition = """
        INSERT OR REPLACE INTO positions (tag_id, t_ns, \(StoreSchema.valueColumnNames))
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
        """

    /// Rows per multi-row history insert: one statement step writes this many rows, which saves the
    /// per-statement work (cursor open, seek from the root) of all but one of them. 16 × 17 = 272
    /// parameters, far below SQLite's limit.
    static let rowsPerInsert = 16

    /// Inserts `rowsPerInsert` history rows (parameters 17·k + 1 … 17·k + 17 for row k), with the
    /// same replace rule as `insertPosition`.
    static let insertPositions: String = {
        let rows = (0..<rowsPerInsert).map { row in
            "(" + (1...17).map { "?\(row * 17 + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT OR REPLACE INTO positions (tag_id, t_ns, \(StoreSchema.valueColumnNames)) VALUES "
            + rows.joined(separator: ", ")
    }()

    /// Upserts a tag's last position, unless the stored one is newer.
    static let upsertLastPosition = """
        INSERT INTO last_positions (tag_id, t_ns, \(StoreSchema.valueColumnNames))
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
        ON CONFLICT (tag_id) DO UPDATE SET
            t_ns = excluded.t_ns, x = excluded.x, y = excluded.y, z = excluded.z,
            vx = excluded.vx, vy = excluded.vy, vz = excluded.vz, sigma = excluded.sigma,
            cxx = excluded.cxx, cxy = excluded.cxy, cyy = excluded.cyy,
            cxz = excluded.cxz, cyz = excluded.cyz, czz = excluded.czz,
            anchors = excluded.anchors, motion = excluded.motion
        WHERE excluded.t_ns >= last_positions.t_ns
        """

    /// Finds a tag's dictionary id.
    static let selectTagID = "SELECT id FROM tags WHERE site = ?1 AND tag = ?2"

    /// Adds a tag to the dictionary.
    static let insertTag = "INSERT INTO tags (site, tag) VALUES (?1, ?2)"

    /// Records one raw ingest line.
    static let insertMeasurement = "INSERT INTO measurements (site, t_ns, line) VALUES (?1, ?2, ?3)"

    /// The columns `Statement.readPosition(site:tag:from:)` reads, from `t_ns` on.
    static let readColumns = "t_ns, \(StoreSchema.valueColumnNames)"
}

extension Statement {
    /// Binds `tagID` to parameter `first`, the time to `first + 1` and the values to `first + 2`
    /// … `first + 16`, in `valueColumnNames` order.
    ///
    /// The hot path of the history writer: binds straight through the C API (17 binds per row) and
    /// checks the combined result once, instead of range-checking each index.
    /// - Parameters:
    ///   - estimate: the position; NaN values are stored as `NULL`.
    ///   - tagID: the id of its (site, tag) in `tags`.
    ///   - first: the parameter index of `tag_id` (1, or 17·k + 1 for row k of `insertPositions`).
    func bindPosition(_ estimate: PositionEstimate, tagID: Int64, first: Int32 = 1) throws {
        let p = first - 1
        var result = sqlite3_bind_int64(handle, p + 1, tagID)
        result |= sqlite3_bind_int64(handle, p + 2, estimate.time)
        result |= sqlite3_bind_double(handle, p + 3, estimate.position.x)
        result |= sqlite3_bind_double(handle, p + 4, estimate.position.y)
        result |= sqlite3_bind_double(handle, p + 5, estimate.position.z)
        result |= sqlite3_bind_double(handle, p + 6, estimate.velocity.x)
        result |= sqlite3_bind_double(handle, p + 7, estimate.velocity.y)
        result |= sqlite3_bind_double(handle, p + 8, estimate.velocity.z)
        result |= sqlite3_bind_double(handle, p + 9, estimate.sigma)
        result |= sqlite3_bind_double(handle, p + 10, estimate.covXX)
        result |= sqlite3_bind_double(handle, p + 11, estimate.covXY)
        result |= sqlite3_bind_double(handle, p + 12, estimate.covYY)
        result |= sqlite3_bind_double(handle, p + 13, estimate.covXZ)
        result |= sqlite3_bind_double(handle, p + 14, estimate.covYZ)
        result |= sqlite3_bind_double(handle, p + 15, estimate.covZZ)
        result |= sqlite3_bind_int64(handle, p + 16, Int64(estimate.anchors))
        // The motion names are static ASCII text: SQLITE_STATIC, no copy.
        let motion: StaticString = switch estimate.motion {
        case .stationary: "stationary"
        case .moving: "moving"
        case .unknown: "unknown"
        }
        result |= motion.withUTF8Buffer { text in
            text.baseAddress!.withMemoryRebound(to: CChar.self, capacity: text.count) {
                sqlite3_bind_text(handle, p + 17, $0, Int32(text.count), nil)
            }
        }
        guard result == SQLITE_OK else {
            // Some bind failed (only SQLITE_RANGE or SQLITE_MISUSE are possible here): name it.
            throw DatabaseError(extendedCode: SQLITE_MISUSE, message: "cannot bind a position (code \(result))", sql: sql)
        }
    }

    /// Steps a bound insert or upsert to completion and resets it for the next row.
    func executeBound() throws {
        let result = sqlite3_step(handle)
        guard result == SQLITE_DONE || result == SQLITE_ROW else {
            let error = DatabaseError(connection: connection, result: result, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
        sqlite3_reset(handle)
    }

    /// Reads a position whose `readColumns` start at column `first` of the current row.
    ///
    /// The hot path of history queries: reads straight through the C API, without building strings
    /// for the motion column.
    /// - Parameters:
    ///   - site: the site id to put in the estimate.
    ///   - tag: the tag id to put in the estimate.
    ///   - first: the column index of `t_ns`.
    func readPosition(site: String, tag: String, from first: Int) -> PositionEstimate {
        let column = Int32(first)
        return PositionEstimate(
            site: site, tag: tag,
            position: Vec3(real(column + 1), real(column + 2), real(column + 3)),
            velocity: Vec3(real(column + 4), real(column + 5), real(column + 6)),
            covXX: real(column + 8), covXY: real(column + 9), covYY: real(column + 10),
            covXZ: real(column + 11), covYZ: real(column + 12), covZZ: real(column + 13),
            anchors: Int(sqlite3_column_int64(handle, column + 14)),
            motion: motion(column + 15),
            time: sqlite3_column_int64(handle, column))
    }

    /// Column `column` as a double, `NULL` (how SQLite stores NaN) read back as NaN.
    private func real(_ column: Int32) -> Double {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? .nan : sqlite3_column_double(handle, column)
    }

    /// Column `column` as a `MotionState`, by its first byte (the three names differ there);
    /// anything else reads as `.unknown`.
    private func motion(_ column: Int32) -> MotionState {
        guard let text = sqlite3_column_text(handle, column) else { return .unknown }
        switch text.pointee {
        case UInt8(ascii: "s"): return .stationary
        case UInt8(ascii: "m"): return .moving
        default: return .unknown
        }
    }
}
