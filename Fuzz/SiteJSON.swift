// libFuzzer target: the site map loader, `Site(json:source:)`.
//
// A site the loader accepts must survive what the service does with it: written back with
// `jsonBytes()` it must read back equal, its GeoJSON must be made, and an engine built on it must
// take a few measurements from each of its anchors.
import Positioning

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSiteJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let site = try? Site(json: bytes, source: "fuzz.json") else { return 0 }
    let written = site.jsonBytes()
    let again: Site
    do {
        again = try Site(json: written, source: "written.json")
    } catch {
        fatalError("a loaded site, written back, is refused: \(error)")
    }
    if again != site { fatalError("a loaded site, written back, reads back different") }
    _ = site.geoJSONBytes()

    var engine = Engine(sites: [site])
    var time: Nanoseconds = 1_000_000_000
    for round in 0..<3 {
        for (k, anchor) in site.anchors.prefix(8).enumerated() {
            time += 50_000_000
            let ranging = Ranging(site: site.id, anchor: anchor.id, tag: "T", technology: anchor.technologies.first,
                                  distance: 1 + Double((k + round) % 5), std: nil, direction: nil, time: time)
            try? engine.handle(.ranging(ranging)) { _ in }
        }
    }
    engine.advance(to: time + 60_000_000_000) { _ in }
    return 0
}
