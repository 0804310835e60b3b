extension ConfigSetting {
    /// An HTTP endpoint: `"ADDR:PORT"` (or a bare port, on loopback), or `0` / `"0"` for off. The
    /// default shown is `sextant serve`'s (`HTTPEndpoint.standard`).
    static func endpoint(_ key: String, _ field: Field<HTTPEndpoint?>, flag: SettingFlag) -> ConfigSetting {
        @Sendable func read(_ text: String) throws(SettingError) -> HTTPEndpoint? {
            do { return try HTTPEndpoint.parse(text) } catch { throw SettingError(error.message) }
        }
        return ConfigSetting(key: key, kind: .text, range: nil, defaultText: "\"\(HTTPEndpoint.standard)\"", flag: flag,
                             readJSON: { v, c throws(SettingError) in
                                 if let s = v as? String { c[keyPath: field] = try read(s); return }
                                 if let n = v as? Int, n == 0, !(v is Bool) { c[keyPath: field] = nil; return }
                                 throw SettingError("must be \"ADDR:PORT\" (e.g. \"127.0.0.1:7402\") or 0 for off")
                             },
                             readText: { values, c throws(SettingError) in
                                 for s in values { c[keyPath: field] = try read(s) }
                             },
                             isValid: { _ in true })
    }
}
