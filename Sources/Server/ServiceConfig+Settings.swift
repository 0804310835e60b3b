import Foundation

/// The accepted range of a numeric setting, with its unit: the one place each range is written. The
/// JSON reader, `validate()`, the `serve` flags and their messages all take it from here.
public struct SettingRange: Sendable, Equatable {
    /// The smallest value (accepted unless `excludesLower`).
    public let lower: Double
    /// The largest value accepted.
    public let upper: Double
    /// The range is `(lower, upper]`: the lower bound itself is refused.
    public let excludesLower: Bool
    /// The unit the message names (`seconds`, `bytes`, `days`), or nil.
    public let unit: String?
    /// What a special value means (`0: off`), or nil.
    public let note: String?

    public init(_ lower: Double, _ upper: Double, excludingLower: Bool = false, unit: String? = nil, note: String? = nil) {
        self.lower = lower; self.upper = upper; self.excludesLower = excludingLower; self.unit = unit; self.note = note
    }

    /// Whether `v` is a finite value in the range.
    public func contains(_ v: Double) -> Bool {
        v.isFinite && (excludesLower ? v > lower : v >= lower) && v <= upper
    }

    /// The range in words: `between 0.1 and 86400 seconds`, `more than 0 and at most 60 seconds (0: off)`.
    public var text: String {
        let unit = unit.map { " " + $0 } ?? ""
        let words = excludesLower ? "more than \(Self.number(lower)) and at most \(Self.number(upper))\(unit)"
                                  : "between \(Self.number(lower)) and \(Self.number(upper))\(unit)"
        return words + (note.map { " (\($0))" } ?? "")
    }

    /// Reads a number of the range from a flag's text.
    /// - Throws: `SettingError` saying what it must be: `must be between 0 and 60 seconds, got -1`.
    public func read(number s: String) throws(SettingError) -> Double {
        guard let v = Double(s), v.isFinite else { throw SettingError("must be a number, got '\(s)'") }
        guard contains(v) else { throw SettingError("must be \(text), got \(s)") }
        return v
    }

    /// Reads a whole number of the range from a flag's text.
    public func read(integer s: String) throws(SettingError) -> Int {
        guard let v = Int(s) else { throw SettingError("must be an integer, got '\(s)'") }
        guard contains(Double(v)) else { throw SettingError("must be \(text), got \(s)") }
        return v
    }

    /// A bound as an operator writes it: `86400`, `0.1`, `1000000000`.
    public static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }
}

/// The `serve` flag that sets a setting: its name without `--`, what its value looks like, and its help.
/// The flag's default and its config key are shown beside the help, from the setting.
public struct SettingFlag: Sendable {
    /// The flag's name without the leading `--` (`tag-timeout`).
    public let name: String
    /// What the value looks like in the help (`S`, `FILE|DIR`), or nil for a switch.
    public let placeholder: String?
    /// What the flag does, without its default (the help adds it).
    public let help: String
    /// May be given several times (`--site`); the values replace the file's list.
    public let repeatable: Bool

    public init(_ name: String, _ placeholder: String?, help: String, repeatable: Bool = false) {
        self.name = name; self.placeholder = placeholder; self.help = help; self.repeatable = repeatable
    }
}

/// One setting of `sextant serve`, declared once: its JSON key, its range or accepted values, its
/// default as the help shows it, and the flag that sets it (if any). The JSON reader, `validate()`, the
/// flags of `serve` (help, parser, errors) and the docs' key table all come from `ServiceConfig.settings`.
///
/// To add a setting: add the field to `ServiceConfig`, then one entry to `ServiceConfig.settings`
/// (e.g. `.text("database", \.database, flag: SettingFlag("database", "URL", help: "…"))`). That entry
/// makes the JSON key, the `serve --database URL` flag, its help line and its errors; add its row to
/// the key table in docs/service.md at the same place (a test checks the table, row by row, against
/// this list). A setting without `flag` is a config key only.
public struct ConfigSetting: Sendable {
    /// What kind of value the setting takes.
    public enum Kind: Sendable, Equatable {
        case number, integer, boolean, text, paths, tokens
        /// One of these names.
        case choice([String])
    }

    /// The key in the JSON config file (`tagTimeout`).
    public let key: String
    public let kind: Kind
    /// The accepted range of a number or integer.
    public let range: SettingRange?
    /// The default, as the help and the docs show it (`10`, `"./sextant-data"`, `off`).
    public let defaultText: String
    /// The `serve` flag that sets it, or nil when only the config file does.
    public let flag: SettingFlag?
    /// Reads the key's JSON value into a config (type and range checked; the message names no key).
    let readJSON: @Sendable (Any, inout ServiceConfig) throws(SettingError) -> Void
    /// Reads a list of tokens, whose errors name the item (`ingestTokens[1]`); nil for other settings.
    var readTokens: (@Sendable (Any, inout ServiceConfig) throws(ConfigError) -> Void)? = nil
    /// Reads a flag's values (every occurrence, in order) into a config.
    let readText: @Sendable ([String], inout ServiceConfig) throws(SettingError) -> Void
    /// Whether the config's value is in range (`validate()`).
    let isValid: @Sendable (ServiceConfig) -> Bool

    /// Applies the key's JSON value to a config.
    /// - Throws: `ConfigError` naming the key, for a wrong type or a value out of range.
    func apply(json value: Any, to config: inout ServiceConfig) throws(ConfigError) {
        if let readTokens { return try readTokens(value, &config) }
        do { try readJSON(value, &config) } catch { throw ConfigError(key: key, message: error.message) }
    }

    /// Applies a flag's values (every occurrence, in order) to a config.
    /// - Throws: `SettingError` saying what the value must be, e.g. `must be between 0 and 60 seconds, got -1`.
    public func apply(flagValues: [String], to config: inout ServiceConfig) throws(SettingError) {
        try readText(flagValues, &config)
    }
}

/// What is wrong with one value of a setting, without naming it: the caller adds the key or the flag.
public struct SettingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A field of `ServiceConfig` that a setting reads into (a key path literal, `\.tagTimeout`).
typealias Field<Value> = any WritableKeyPath<ServiceConfig, Value> & Sendable

// Foundation gives JSON's true and false as NSNumbers that also cast to Double and Int (1 and 0), and
// numbers that also cast to Bool: the boolean ones say so by their type code, "c".
private func isBoolean(_ v: Any) -> Bool {
    (v as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
}

private func jsonNumber(_ v: Any) throws(SettingError) -> Double {
    guard !isBoolean(v) else { throw SettingError("must be a number") }
    if let d = v as? Double { return d }
    if let i = v as? Int { return Double(i) }
    throw SettingError("must be a number")
}

/// A whole number in range. `Int(exactly:)`, not a comparison with `Double(range.upperBound)`:
/// `Double(Int.max)` is 2^63, which `Int(_:)` cannot hold (a crash, kept as a regression test in ConfigTests).
private func jsonInteger(_ v: Any, _ range: SettingRange) throws(SettingError) -> Int {
    let d = try jsonNumber(v)
    guard let i = Int(exactly: d) else { throw SettingError("must be an integer \(range.text)") }
    guard range.contains(Double(i)) else { throw SettingError("must be \(range.text)") }
    return i
}

/// `a, b or c`.
func alternatives(_ names: [String]) -> String {
    names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
}

extension ConfigSetting {
    /// A number of `range`.
    static func number(_ key: String, _ field: Field<Double>, _ range: SettingRange,
                       flag: SettingFlag? = nil) -> ConfigSetting {
        number(key, range, defaultText: SettingRange.number(ServiceConfig()[keyPath: field]), flag: flag,
               set: { $0[keyPath: field] = $1 }, get: { $0[keyPath: field] })
    }

    /// A number of `range`, or nil (unset).
    static func optionalNumber(_ key: String, _ field: Field<Double?>, _ range: SettingRange,
                               defaultText: String, flag: SettingFlag? = nil) -> ConfigSetting {
        number(key, range, defaultText: defaultText, flag: flag, set: { $0[keyPath: field] = $1 }, get: { $0[keyPath: field] })
    }

    /// A number of `range`, stored by `set`; `get` gives nil when it is unset (valid).
    private static func number(_ key: String, _ range: SettingRange, defaultText: String, flag: SettingFlag?,
                               set: @escaping @Sendable (inout ServiceConfig, Double) -> Void,
                               get: @escaping @Sendable (ServiceConfig) -> Double?) -> ConfigSetting {
        ConfigSetting(key: key, kind: .number, range: range, defaultText: defaultText, flag: flag,
                      readJSON: { v, c throws(SettingError) in
                          let d = try jsonNumber(v)
                          guard range.contains(d) else { throw SettingError("must be \(range.text)") }
                          set(&c, d)
                      },
                      readText: { values, c throws(SettingError) in
                          for s in values { set(&c, try range.read(number: s)) }
                      },
                      isValid: { c in get(c).map(range.contains) ?? true })
    }

    /// A whole number of `range`.
    static func integer(_ key: String, _ field: Field<Int>, _ range: SettingRange,
                        flag: SettingFlag? = nil) -> ConfigSetting {
        ConfigSetting(key: key, kind: .integer, range: range, defaultText: String(ServiceConfig()[keyPath: field]), flag: flag,
                      readJSON: { v, c throws(SettingError) in c[keyPath: field] = try jsonInteger(v, range) },
                      readText: { values, c throws(SettingError) in
                          for s in values { c[keyPath: field] = try range.read(integer: s) }
                      },
                      isValid: { range.contains(Double($0[keyPath: field])) })
    }

    /// A TCP port, 0 to 65535 (0: any free port).
    static func port(_ key: String, _ field: Field<UInt16>, flag: SettingFlag) -> ConfigSetting {
        let range = SettingRange(0, 65535)
        return ConfigSetting(key: key, kind: .integer, range: range, defaultText: String(ServiceConfig()[keyPath: field]),
                             flag: flag,
                             readJSON: { v, c throws(SettingError) in c[keyPath: field] = UInt16(try jsonInteger(v, range)) },
                             readText: { values, c throws(SettingError) in
                                 for s in values { c[keyPath: field] = UInt16(try range.read(integer: s)) }
                             },
                             isValid: { _ in true })
    }

    /// `true` or `false`; a switch flag sets it to `flagSets`.
    static func boolean(_ key: String, _ field: Field<Bool>, flag: SettingFlag? = nil,
                        flagSets: Bool = true) -> ConfigSetting {
        ConfigSetting(key: key, kind: .boolean, range: nil, defaultText: String(ServiceConfig()[keyPath: field]), flag: flag,
                      readJSON: { v, c throws(SettingError) in
                          guard isBoolean(v), let b = v as? Bool else { throw SettingError("must be true or false") }
                          c[keyPath: field] = b
                      },
                      readText: { values, c in if !values.isEmpty { c[keyPath: field] = flagSets } },
                      isValid: { _ in true })
    }

    /// A string (checked by `validate()` where it must be more than any string).
    static func text(_ key: String, _ field: Field<String>, flag: SettingFlag? = nil)
        -> ConfigSetting {
        ConfigSetting(key: key, kind: .text, range: nil, defaultText: "\"\(ServiceConfig()[keyPath: field])\"", flag: flag,
                      readJSON: { v, c throws(SettingError) in
                          guard let s = v as? String else { throw SettingError("must be a string") }
                          c[keyPath: field] = s
                      },
                      readText: { values, c in if let s = values.last { c[keyPath: field] = s } },
                      isValid: { _ in true })
    }

    /// A list of paths; the flag's values, when given, replace the file's.
    static func paths(_ key: String, _ field: Field<[String]>, defaultText: String,
                      flag: SettingFlag) -> ConfigSetting {
        ConfigSetting(key: key, kind: .paths, range: nil, defaultText: defaultText, flag: flag,
                      readJSON: { v, c throws(SettingError) in
                          guard let list = v as? [String] else { throw SettingError("must be a list of paths") }
                          c[keyPath: field] = list
                      },
                      readText: { values, c in if !values.isEmpty { c[keyPath: field] = values } },
                      isValid: { _ in true })
    }

    /// One of the cases of `T`, by its raw value.
    static func choice<T: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, _ field: Field<T>, flag: SettingFlag? = nil
    ) -> ConfigSetting where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        return ConfigSetting(key: key, kind: .choice(names), range: nil, defaultText: "\"\(ServiceConfig()[keyPath: field].rawValue)\"",
                             flag: flag,
                             readJSON: { v, c throws(SettingError) in
                                 guard let s = v as? String else { throw SettingError("must be a string") }
                                 guard let p = T(rawValue: s) else {
                                     throw SettingError("must be \(alternatives(names)), not \"\(s)\"")
                                 }
                                 c[keyPath: field] = p
                             },
                             readText: { values, c throws(SettingError) in
                                 for s in values {
                                     guard let p = T(rawValue: s) else { throw SettingError("must be \(alternatives(names)), got '\(s)'") }
                                     c[keyPath: field] = p
                                 }
                             },
                             isValid: { _ in true })
    }

    /// A list of tokens (`[{"name", "token", "sites"?}]`); config file only.
    static func tokens(_ key: String, _ field: Field<AccessList>) -> ConfigSetting {
        ConfigSetting(key: key, kind: .tokens, range: nil, defaultText: "none", flag: nil,
                      readJSON: { _, _ in }, readTokens: { v, c throws(ConfigError) in
                          c[keyPath: field] = try ServiceConfig.tokens(v, key: key)
                      },
                      readText: { _, _ in }, isValid: { _ in true })
    }
}

