import Foundation
import Numerics
import Positioning
import Server
import Wire

/// The demo's dashboard: reads the feed over TCP like any client, keeps each tag's latest position
/// and every position for the accuracy evaluation.
final class FeedWatcher: @unchecked Sendable {
    /// What the table shows of a tag.
    struct Latest { var x, y, sigma: Double; var motion: String; var anchors: Int; var time: Int64 }

    private let state = Locked<(latest: [String: Latest], samples: [EstimateSample], stopped: Bool)>(([:], [], false))
    private let done = DispatchSemaphore(value: 0)

    var latest: [String: Latest] { state.withLock { $0.latest } }
    var samples: [EstimateSample] { state.withLock { $0.samples } }

    /// Connects to the feed, subscribes to everything, and reads on a new thread.
    func start(port: UInt16) throws {
        let socket = try Socket.connect(host: "127.0.0.1", port: port)
        try socket.writeAll(Array("subscribe\n".utf8))
        socket.setReceiveTimeout(0.1)
        let thread = Thread { [self] in
            var splitter = LineSplitter()
            while !state.withLock({ $0.stopped }) {
                guard let chunk = try? socket.read() else { break }
                if chunk.isEmpty { continue }
                splitter.feed(chunk) { piece in
                    guard case .line(_, let bytes) = piece, let line = try? ParsedLine.parse(bytes) else { return }
                    handle(line)
                }
            }
            done.signal()
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        _ = done.wait(timeout: .now() + 1)
    }

    private func handle(_ line: ParsedLine) {
        guard let site = line.tag("site"), let tag = line.tag("tag"), let t = line.timestamp else { return }
        switch line.measurement {
        case "position":
            let f = { (k: String) in line.field(k)?.doubleValue ?? 0 }
            let latest = Latest(x: f("x"), y: f("y"), sigma: f("sigma"), motion: line.field("motion")?.stringValue ?? "?",
                                anchors: Int(f("anchors")), time: t)
            let sample = EstimateSample(site: site, tag: tag, time: t, position: Vec3(f("x"), f("y"), f("z")),
                                        covariance: PositionCovariance(xx: f("cxx"), xy: f("cxy"), yy: f("cyy")))
            state.withLock { $0.latest[tag] = latest; $0.samples.append(sample) }
        case "removed":
            state.withLock { _ = $0.latest.removeValue(forKey: tag) }
        default:
            break
        }
    }
}
