import Foundation
import Server

/// A second gateway for the states the simulation does not show on demand: tag P1 heard by anchor C4
/// alone (distance only), and tag R1 ranged by four anchors for 3 s (a position), then ended by each
/// of them (removed), quiet for 2 s, and again. Lines are stamped with the wall clock as they are sent.
final class LifecycleGateway: @unchecked Sendable {
    private let socket: Socket
    private let lock = NSLock()
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)
    /// R1's place on the demo warehouse, metres, at its tag height.
    static let r1 = (x: 17.0, y: 9.0, z: 1.2)
    static let r1Anchors: [(id: String, position: (Double, Double, Double))] =
        [("U5", (13, 12.5, 4.2)), ("U6", (27, 12.5, 4.2)), ("D1", (20, 12.5, 4.5)), ("C1", (20, 0.3, 3.8))]

    init(port: UInt16) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
        let thread = Thread { [self] in run(); done.signal() }
        thread.name = "map-test-gateway"
        thread.start()
    }

    func stop() {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 2)
        socket.close()
    }

    private func run() {
        let start = ServiceClock.wallNow()
        var ended = false
        while !lock.withLock({ stopped }) {
            let now = ServiceClock.wallNow()
            let phase = Double((now - start) % 5_000_000_000) * 1e-9   // a 5 s cycle
            var text = "ranging,site=demo-warehouse,anchor=C4,tag=P1 distance=3.5 \(now)\n"
            if phase < 3 {
                ended = false
                for a in Self.r1Anchors {
                    let d = ((a.position.0 - Self.r1.x) * (a.position.0 - Self.r1.x) + (a.position.1 - Self.r1.y) * (a.position.1 - Self.r1.y)
                             + (a.position.2 - Self.r1.z) * (a.position.2 - Self.r1.z)).squareRoot()
                    text += "ranging,site=demo-warehouse,anchor=\(a.id),tag=R1 distance=\(String(format: "%.3f", d)) \(now)\n"
                }
            } else if !ended {
                ended = true
                for a in Self.r1Anchors { text += "removed,site=demo-warehouse,anchor=\(a.id),tag=R1 reason=\"peerEnded\" \(now)\n" }
            }
            do { try socket.writeAll(Array(text.utf8)) } catch { return }
            usleep(100_000)   // 10 lines a second per pair, as a gateway paces them
        }
    }
}
