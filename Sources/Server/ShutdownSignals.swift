@preconcurrency import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Turns signals (SIGTERM and SIGINT by default) into one call of a handler, on a dedicated queue.
///
/// The signals' default action is replaced by `SIG_IGN` (so they no longer kill the process) and a
/// `DispatchSource` delivers them. Keep the value alive for as long as the handler should run.
/// `@unchecked Sendable`: the sources are set up in `init` and only cancelled in `deinit`.
public final class ShutdownSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let queue = DispatchQueue(label: "sextant.signals")

    /// SIGTERM and SIGINT, the signals that shut the service down.
    public static var termination: [Int32] { [SIGTERM, SIGINT] }

    /// - Parameters:
    ///   - signals: the signals to catch (e.g. `ShutdownSignals.termination`).
    ///   - handler: called on a private queue with the signal number, for every delivery.
    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for s in signals {
            signal(s, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: s, queue: queue)
            source.setEventHandler { @Sendable in handler(s) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit { for s in sources { s.cancel() } }
}
