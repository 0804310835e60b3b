// libFuzzer target: the JSON config file of `sextant serve`, `ServiceConfig.apply(json:)`.
//
// Any bytes must give a config or a `ConfigError`; an accepted config must pass `validate()`.
import Server

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServiceConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var config = ServiceConfig()
    guard (try? config.apply(json: Array(UnsafeBufferPointer(start: data, count: size)))) != nil else { return 0 }
    do { try config.validate() } catch { fatalError("an applied config fails validation: \(error)") }
    _ = config.engine
    return 0
}
