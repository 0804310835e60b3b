import Positioning
import Wire
import Pipeline

/// What `IngestAdmission` does with each line of one chunk from one source, as the pipeline reports
/// it: the service's checks on the decoded event (counted as the server's rejections), outputs routed
/// to the feed hub and the history, applied events noted on the engine's clock (and recorded with
/// `recordMeasurements`), rejections answered on the session.
struct AdmissionSink: LineSink {
    let admission: IngestAdmission
    let engine: ServiceEngine
    let session: IngestSession
    let counters: ServiceCounters
    let checks: EventChecks
    /// Where applied lines are recorded, nil when they are not (`recordMeasurements`).
    let record: (any HistorySink)?
    /// The chunk's receive time, monotonic nanoseconds.
    let now: Int64
    /// The line being processed (its bytes are recorded).
    var piece: SplitLine = .tooLong(number: 0)
    /// True once an event of the chunk was applied.
    private(set) var appliedAny = false

    init(admission: IngestAdmission, engine: ServiceEngine, session: IngestSession, counters: ServiceCounters,
         checks: EventChecks, record: (any HistorySink)?, now: Int64) {
        self.admission = admission
        self.engine = engine
        self.session = session
        self.counters = counters
        self.checks = checks
        self.record = record
        self.now = now
    }

    mutating func admit(_ event: Event, line: Int, unit: TimestampPrecision) -> LineRejection? {
        guard let refused = checks.refusal(of: event, line: line, unit: unit, sites: session.siteFilter) else {
            return nil
        }
        counters.rejected(refused.key)
        return refused
    }

    mutating func output(_ output: Output) {
        engine.route(output)
    }

    mutating func applied(_ event: Event) {
        appliedAny = true
        engine.noteEvent(at: event.time)
        if let record, case .line(_, let bytes) = piece {
            record.append(measurementLine: IngestAdmission.lineWithTimestamp(bytes, event.time), site: event.site,
                          time: event.time)
        }
    }

    mutating func rejected(_ rejection: LineRejection) {
        session.reject(rejection, now: now)
        if let offset = rejection.clockOffset { admission.reportClockSkew(session, offset: offset) }
    }
}
