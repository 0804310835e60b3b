/// A kind of connection the loop serves (the TCP ingest port, the TCP feed; an HTTP or MQTT transport
/// next). The loop calls it on its thread only: for the poller events of the tokens it registered
/// (`ServiceLoop.register`), at its deadlines, once a second, at the end of each turn, and at shutdown.
///
/// To add a transport: make it conform, create it in `ServiceLoop.bind()` next to the TCP ones (it
/// gets the shared components there: `loop.admission` for ingest, `loop.engine.hub` for feed
/// subscribers, `loop.gate` for connection limits) and `add` it with its listeners' tokens; each
/// connection it accepts gets `newToken()` and is `own`ed until `forget`. A transport with a thread of
/// its own (a broker client) starts it there, stops it in `closeAll()`, and reaches the loop with
/// `ServiceLoop.submit`. Its feed subscribers are flushed through `flush(_:)` at the end of each turn.
protocol LoopTransport: AnyObject {
    /// Readiness of a descriptor this transport registered under `token` (`Poller` event bits).
    func handle(token: UInt64, events: UInt32)
    /// The earliest monotonic time (ns) it needs `timers(now:)` called, nil for none.
    var nextDeadline: Int64? { get }
    /// Its deadlines that passed (called every turn).
    func timers(now: Int64)
    /// Once a second.
    func everySecond(now: Int64)
    /// End of the turn: a feed subscriber the hub closed under the `disconnect` policy.
    func overflowed(_ subscriber: FeedSubscriber)
    /// End of the turn: a feed subscriber of this transport has bytes to send.
    func flush(_ subscriber: FeedSubscriber)
    /// Shutdown, first step: stop accepting and close ingest sources.
    func stopAccepting()
    /// Shutdown, last step: tries to send what is queued (true when nothing is left to send)…
    func drain() -> Bool
    /// … and then closes everything.
    func closeAll()
    /// Connections open now.
    var openConnections: Int { get }
}

extension LoopTransport {
    var nextDeadline: Int64? { nil }
    func timers(now: Int64) {}
    func everySecond(now: Int64) {}
    func overflowed(_ subscriber: FeedSubscriber) {}
    func flush(_ subscriber: FeedSubscriber) {}
    func drain() -> Bool { true }
}
