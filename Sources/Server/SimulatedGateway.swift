import Foundation
public import Positioning
import Wire

/// A simulated gateway: streams a `Simulator` run over TCP into an ingest port at real-time pace
/// (each line is sent once the wall clock reaches its timestamp), on its own thread.
///
/// Threading: the thread owns the socket and the simulation; `stop()`, `linesSent` and `error` may be
/// read from any thread (they are guarded by `lock`).
public final class SimulatedGateway: @unchecked Sendable {
    private let simulator: Simulator
    private let host: String
    private let port: UInt16
    private let onTruth: @Sendable (TruthSample) -> Void
    private let lock = NSLock()
    private var stopped = false
    private var sent = 0
    private var failure: String?
    private let done = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - site: the simulated site.
    ///   - config: the run; its `startTime` should be the wall-clock time (Unix ns) to start at.
    ///   - host: the service's address.
    ///   - port: its ingest port.
    ///   - onTruth: receives each ground-truth sample as its time is reached (on the gateway thread).
    public init(site: Site, config: SimulationConfig, host: String = "127.0.0.1", port: UInt16,
                onTruth: @escaping @Sendable (TruthSample) -> Void = { _ in }) {
        simulator = Simulator(site: site, config: config)
        self.host = host
        self.port = port
        self.onTruth = onTruth
    }

    /// Lines sent so far.
    public var linesSent: Int { lock.withLock { sent } }
    /// Why the gateway stopped early, if it did.
    public var error: String? { lock.withLock { failure } }

    /// Connects and starts streaming on a new thread.
    public func start() throws {
        let socket = try Socket.connect(host: host, port: port)
        let thread = Thread { [self] in
            run(socket)
            done.signal()
        }
        thread.name = "sextant-gateway"
        thread.start()
    }

    /// Stops streaming and waits for the thread to end (at most 2 s).
    public func stop() {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 2)
    }

    private func run(_ socket: Socket) {
        var stream = simulator.makeStream()
        var buffer: [UInt8] = []
        var pending: SimulationItem? = nil
        while !lock.withLock({ stopped }) {
            let now = ServiceClock.wallNow()
            // Everything due by now goes out in one write.
            while let item = pending ?? stream.next() {
                pending = nil
                if item.time > now { pending = item; break }
                switch item {
                case .event(let e):
                    if IngestEncoder.append(e, to: &buffer) { lock.withLock { sent += 1 } }
                case .truth(let s):
                    onTruth(s)
                }
            }
            if !buffer.isEmpty {
                do { try socket.writeAll(buffer) } catch {
                    lock.withLock { failure = "\(error)" }
                    return
                }
                buffer.removeAll(keepingCapacity: true)
            }
            guard let next = pending else { return }   // the run is over
            let wait = min(Double(next.time - ServiceClock.wallNow()) * 1e-9, 0.05)
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
    }
}
