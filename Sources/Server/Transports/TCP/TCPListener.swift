#if canImport(Glibc)
import Glibc
#endif

/// A listening socket of the loop and its accept policy: at most 64 connections a turn (one port
/// cannot starve the loop), the `ConnectionGate` asked for each, and a pause of 0.1 s when accept
/// runs out of descriptors (the listener stays readable, so it is not watched meanwhile rather than
/// spun on; connections wait in the backlog).
final class TCPListener {
    let socket: Socket
    let port: ConnectionGate.Port
    let token: UInt64
    /// Not polled until this monotonic time (nil: polled).
    private(set) var pausedUntil: Int64?
    private let poller: Poller
    private let logger: Logger

    init(socket: Socket, port: ConnectionGate.Port, token: UInt64, poller: Poller, logger: Logger) throws(SystemError) {
        self.socket = socket
        self.port = port
        self.token = token
        self.poller = poller
        self.logger = logger
        try poller.register(socket.fd, token: token)
    }

    /// Accepts the pending connections. A connection the gate refuses gets `# error: …` and is closed;
    /// `open` makes the owner of an admitted one's descriptor, which `keep` stores once the poller
    /// watches it under the token `newToken` gave (otherwise the owner closes it).
    /// - Parameters:
    ///   - openConnections: the port's connections now, for the gate's limit.
    ///   - allConnections: the loop's connections on every port, for the log when out of descriptors.
    func acceptPending<Owner>(gate: ConnectionGate, openConnections: () -> Int, allConnections: () -> Int,
                              newToken: () -> UInt64,
                              open: (Int32, UInt64, String) -> Owner, keep: (Owner) -> Void) {
        guard pausedUntil == nil else { return }
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard case .done(let accepted) = try Syscall.accept(socket.fd) else { return }
                fd = accepted
            } catch {
                if error.code == EMFILE || error.code == ENFILE {
                    pause(gate: gate, openConnections: allConnections())
                } else {
                    logger.error("accept failed on the \(port.rawValue) port", ["error": error])
                }
                return
            }
            let peer = Syscall.peerName(fd)
            if let refusal = gate.refusal(port: port, peer: peer, open: openConnections()) {
                let socket = Socket(fd: fd)
                _ = try? Syscall.send(fd, Array("# error: \(refusal)\n".utf8)[...])
                socket.close()
                continue
            }
            let token = newToken()
            let owner = open(fd, token, peer)
            do { try poller.register(fd, token: token) } catch {
                logger.error("cannot watch a new connection", ["port": port.rawValue, "error": error])
                continue
            }
            gate.opened(port: port, peer: peer)
            keep(owner)
        }
    }

    /// Watches the listener again once its pause is over.
    func resumeIfDue(now: Int64) {
        guard let until = pausedUntil, until <= now else { return }
        do { try poller.register(socket.fd, token: token) } catch {
            logger.error("cannot watch a listener again", ["error": "\(error)"])
            return
        }
        pausedUntil = nil
    }

    /// Stops listening (shutdown).
    func close() {
        if pausedUntil == nil { poller.remove(socket.fd) }
        socket.close()
    }

    private func pause(gate: ConnectionGate, openConnections: Int) {
        poller.remove(socket.fd)
        pausedUntil = ServiceClock.monotonicNow() + 100_000_000
        gate.logOutOfDescriptors(port: port, openConnections: openConnections)
    }
}
