internal import Foundation
internal import Positioning

extension HistoryWriter {
    /// The writer thread: waits for a reason to write, takes every queued row, writes them in one
    /// transaction, and repeats until `close()`. Rows of a batch that failed transiently stay in
    /// `batchPositions`/`batchLines` (thread-local) and go out with the next attempt.
    func run() {
        // The writer runs at the process's priority. It once ran at nice 10 (for the feed's latency,
        // which that did not improve); on a busy machine that starved it for seconds, and rows waited
        // far longer than `maxDelay`: a SIGKILL then lost over a second of history.
        ThreadName.setCurrent("sextant.history")
        var batchPositions: [PositionEstimate] = []
        var batchLines: [PendingRow] = []
        condition.lock()
        while true {
            let isRetrying = !batchPositions.isEmpty || !batchLines.isEmpty
            waitForWork(isRetrying: isRetrying)
            take(into: &batchPositions, &queuedPositions)
            take(into: &batchLines, &queuedLines)
            inFlight = batchPositions.count + batchLines.count
            let through = accepted
            let isLast = isClosing
            condition.unlock()

            var failure: (any Error)?
            if inFlight > 0 {
                do { try batchWriter.write(positions: batchPositions, rows: batchLines) } catch { failure = error }
            }

            condition.lock()
            record(positions: batchPositions.count, lines: batchLines.count, failure: failure)
            let keep = failure.map(batchWriter.isTransient) ?? false
            if keep && !isLast {
                inFlight = batchPositions.count + batchLines.count
            } else {
                if keep { counters.droppedRows += inFlight }  // close() gives up on them
                inFlight = 0
                clear(&batchPositions)
                clear(&batchLines)
            }
            attempted = through
            condition.broadcast()
            if isLast { break }
        }
        batchWriter.close()
        isFinished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits (with `condition` locked) until there is a reason to write: closing, a flush waiting for
    /// rows not yet attempted, `batchSize` rows queued, or the oldest pending rows having waited
    /// `maxDelay` (`retryDelay` while a failed batch is kept).
    private func waitForWork(isRetrying: Bool) {
        let clock = ContinuousClock()
        var deadline: ContinuousClock.Instant?
        while true {
            let queued = queuedPositions.count + queuedLines.count
            if isClosing || flushTarget > attempted { return }
            if !isRetrying && queued >= batchSize { return }
            guard queued > 0 || isRetrying else {
                condition.wait()
                continue
            }
            let end = deadline ?? clock.now.advanced(by: isRetrying ? retryDelay : maxDelay)
            deadline = end
            let remaining = clock.now.duration(to: end)
            guard remaining > .zero else { return }
            let (seconds, attoseconds) = remaining.components
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
        }
    }

    /// Moves the queued rows into the batch: a swap when the batch is empty, an append after a failure.
    private func take<Row>(into batch: inout [Row], _ queue: inout [Row]) {
        if batch.isEmpty {
            swap(&batch, &queue)
        } else {
            batch.append(contentsOf: queue)
            clear(&queue)
        }
    }

    /// Empties `rows`, keeping its storage unless a backlog made it much larger than a batch.
    private func clear<Row>(_ rows: inout [Row]) {
        rows.removeAll(keepingCapacity: rows.capacity <= 4 * batchSize)
    }

    /// Updates the counters after an attempt of `positions` + `lines` rows (with `condition` locked).
    private func record(positions: Int, lines: Int, failure: (any Error)?) {
        guard positions + lines > 0 else { return }
        guard let failure else {
            counters.positionsWritten += positions
            counters.measurementsWritten += lines
            counters.rowsWritten += positions + lines
            counters.batches += 1
            counters.lastError = nil
            return
        }
        counters.failedBatches += 1
        counters.lastError = "\(failure)"
        counters.lastFailure = counters.lastError
        if !batchWriter.isTransient(failure) { counters.droppedRows += positions + lines }
    }
}
