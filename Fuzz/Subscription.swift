// libFuzzer target: what a feed client sends before its subscription is active.
//
// The bytes are cut into lines and trimmed as `ServiceLoop.request` does, and each line that is not a
// `#stats` request goes to `Subscription.parse`; an accepted subscription must answer `matches`.
import Foundation
import Server

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubscription(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: [" ", "\t", "\r"])
        if line.hasPrefix("#stats") { continue }
        guard let s = try? Subscription.parse(line) else { continue }
        for kind in Subscription.Kind.allCases {
            _ = s.matches(site: s.sites?.first ?? "site", tag: s.tags?.first ?? "tag", kind: kind)
        }
    }
    return 0
}
