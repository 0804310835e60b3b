/// The history writer's record of the grid-cell visits it has stored in `cell_visits`, which decides
/// which positions of a batch start a visit: a position starts one unless the writer has already
/// stored a visit of the same tag, cell and time bucket at or before the position's time.
///
/// The invariant `sextant_inside` relies on: for every stored position (tag, cell, t) there is a visit
/// (tag, cell, t′) with t′ ≤ t in the bucket of t. Each writer keeps it for the rows it writes itself,
/// whatever other writers, restarts, or replaced rows did: it skips a visit only when it stored one
/// itself (committed) that retention may not have deleted (`prunedBefore`). Extra visits (a fresh
/// writer, a second writer of the same tag, rows replaced or deleted since) only add candidates,
/// which the polygon test removes. Pure: values in, decisions out.
///
/// Use: `begin(prunedBefore:)` for each attempt at a batch, `starts(tagID:time:cell:)` for each row
/// in (tag, time) order, then `commit()` once the transaction committed (an attempt that failed is
/// forgotten at the next `begin`).
struct CellVisits {
    /// The length of a visit's time bucket: 10 s in nanoseconds. A position's bucket is
    /// ⌊t / bucketNanoseconds⌋; a visit stands for its tag's positions in one cell from the visit's
    /// time to the end of its bucket.
    static let bucketNanoseconds: Int64 = 10_000_000_000

    /// The bucket of `time` (Unix nanoseconds): ⌊time / bucketNanoseconds⌋, without overflow.
    /// `sextant_visit_bucket` in the server is the same.
    static func bucket(_ time: Int64) -> Int64 {
        time >= 0 ? time / bucketNanoseconds : (time + 1) / bucketNanoseconds - 1
    }

    /// One tag's stored visits in its newest bucket: each cell with the time of its earliest visit.
    struct Tag {
        var bucket: Int64
        var cells: [(cell: Int64, time: Int64)]
    }

    /// The committed visits, by tag id.
    private var tags: [Int64: Tag] = [:]
    /// The tags' records as the current attempt leaves them, applied by `commit()`.
    private var staged: [(tagID: Int64, tag: Tag?)] = []
    /// The tag whose run of rows is being noted, and its record so far.
    private var runTagID: Int64?
    private var runTag: Tag?
    /// Visits at times before this may be deleted by retention (`cell_visits_pruned`): not relied on.
    private var prunedBefore: Int64 = .min
    /// Commits since records were last dropped.
    private var commitsSinceDrop = 0
    /// Every this many commits, the records of tags not written in the newest two buckets are dropped:
    /// they decide nothing for newer rows (a row in a newer bucket starts a visit anyway), and a
    /// history with tags coming and going would otherwise keep one record per tag ever written.
    static let dropInterval = 256

    /// How many tags have a record (for tests).
    var count: Int { tags.count }

    /// Starts an attempt at a batch, dropping what an earlier attempt staged.
    /// - Parameter prunedBefore: `cell_visits_pruned.before_ns`, read in the attempt's transaction.
    mutating func begin(prunedBefore: Int64) {
        staged.removeAll(keepingCapacity: true)
        runTagID = nil
        runTag = nil
        self.prunedBefore = prunedBefore
    }

    /// Whether the row (tag, time) in `cell` must be stored with a visit. Rows of one tag should come
    /// together in time order (the batch's order); any order stays correct, with more visits.
    /// - Parameters: tagID: the row's tag id; time: Unix nanoseconds; cell: `PostgresSchema.cell`.
    mutating func starts(tagID: Int64, time: Int64, cell: Int64) -> Bool {
        if runTagID != tagID {
            endRun()
            runTagID = tagID
            runTag = tags[tagID]
        }
        let bucket = Self.bucket(time)
        if var tag = runTag, tag.bucket >= bucket {
            guard tag.bucket == bucket else { return true }   // an older bucket: not recorded, always stored
            if let i = tag.cells.firstIndex(where: { $0.cell == cell }) {
                if tag.cells[i].time <= time && tag.cells[i].time >= prunedBefore { return false }
                tag.cells[i].time = time
            } else {
                tag.cells.append((cell, time))
            }
            runTag = tag
        } else {
            runTag = Tag(bucket: bucket, cells: [(cell, time)])
        }
        return true
    }

    /// Keeps what the attempt stored: call after its transaction committed.
    mutating func commit() {
        endRun()
        for s in staged { tags[s.tagID] = s.tag }
        staged.removeAll(keepingCapacity: true)
        commitsSinceDrop += 1
        if commitsSinceDrop >= Self.dropInterval {
            commitsSinceDrop = 0
            // A record's bucket only moves forward, so the newest one is the newest ever committed.
            if let newest = tags.values.lazy.map(\.bucket).max() { tags = tags.filter { $0.value.bucket >= newest - 1 } }
        }
    }

    /// Forgets every record (a new connection: the database may not be the one written before).
    mutating func forget() {
        tags.removeAll()
        begin(prunedBefore: .min)
    }

    private mutating func endRun() {
        if let id = runTagID { staged.append((id, runTag)) }
        runTagID = nil
        runTag = nil
    }
}
