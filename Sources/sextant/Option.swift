import Foundation
import Positioning
import Server
import Wire

/// One option of a command, declared once: its name, what its value looks like, its help, its default
/// and how its text is read and checked. A command's help (its OPTIONS block), its parser and the
/// parser's errors all come from its list of `OptionSpec`s (see `CommandSpec`), in the way
/// swift-argument-parser derives them from `@Option` declarations.
///
/// To add an option to a command: declare it as a `static let` of the command with one of the makers
/// of `Option` (`.text`, `.list`, `.number`, `.integer`, `.flag`, `.choice`, `.time`), add it to the command's
/// `spec` list, and read it with `arguments[option]`. For `serve` (and the store's `--data-dir`), declare
/// a `ConfigSetting` in `ServiceConfig.settings` instead: that one entry gives the flag, its help, its
/// range and its JSON key.
struct OptionSpec: Sendable {
    /// The name without the leading `--`.
    let name: String
    /// What the value looks like in the help (`FILE`, `S`), or nil for a switch.
    let placeholder: String?
    /// What the option does (the help adds the default).
    let help: String
    /// The default as the help shows it, or nil.
    var defaultText: String?
    /// May be given several times.
    let repeatable: Bool
    /// The key of the JSON config file it overrides, or nil.
    var configKey: String? = nil
    /// Reads and checks one value (a switch reads ""); the message says what the value must be.
    let read: @Sendable (String) throws(SettingError) -> any Sendable

    /// `--name PLACEHOLDER`, as the help and the usage errors show it.
    var synopsis: String { "--" + name + (placeholder.map { " " + $0 } ?? "") }
}

/// A typed handle on a declared option: `arguments[option]` gives its value (or its default).
struct Option<Value: Sendable>: Sendable {
    let spec: OptionSpec
    /// The value when the option is absent.
    let defaultValue: Value
    /// The value from every occurrence's read values, in order (the last one, unless repeatable).
    let collect: @Sendable ([any Sendable]) -> Value

    /// An option whose value is the last one given, or `defaultValue`.
    init(_ name: String, _ placeholder: String?, help: String, default defaultValue: Value, defaultText: String? = nil,
         read: @escaping @Sendable (String) throws(SettingError) -> Value) {
        spec = OptionSpec(name: name, placeholder: placeholder, help: help, defaultText: defaultText, repeatable: false,
                          read: { s throws(SettingError) in try read(s) })
        self.defaultValue = defaultValue
        collect = { values in values.last.map { $0 as! Value } ?? defaultValue }
    }

    init(spec: OptionSpec, defaultValue: Value, collect: @escaping @Sendable ([any Sendable]) -> Value) {
        self.spec = spec; self.defaultValue = defaultValue; self.collect = collect
    }
}

extension Option where Value == String? {
    /// A string, or nil when absent.
    static func text(_ name: String, _ placeholder: String, help: String, defaultText: String? = nil) -> Option {
        Option(name, placeholder, help: help, default: nil, defaultText: defaultText) { $0 }
    }
}

extension Option where Value == String {
    /// A string with a default.
    static func text(_ name: String, _ placeholder: String, default value: String, help: String) -> Option {
        Option(name, placeholder, help: help, default: value, defaultText: value) { $0 }
    }
}

extension Option where Value == [String] {
    /// A string that may be given several times: every value, in order.
    static func list(_ name: String, _ placeholder: String, help: String) -> Option {
        Option(spec: OptionSpec(name: name, placeholder: placeholder, help: help, defaultText: nil, repeatable: true,
                                read: { $0 }),
               defaultValue: [], collect: { $0.map { $0 as! String } })
    }
}

extension Option where Value == Bool {
    /// A switch: true when given.
    static func flag(_ name: String, help: String) -> Option {
        Option(name, nil, help: help, default: false) { _ in true }
    }
}

extension Option where Value == Double? {
    /// A number in `range`, or nil when absent.
    static func number(_ name: String, _ placeholder: String, in range: ClosedRange<Double>, help: String,
                       defaultText: String? = nil) -> Option {
        let bounds = SettingRange(range.lowerBound, range.upperBound)
        return Option(name, placeholder, help: help, default: nil, defaultText: defaultText) { s throws(SettingError) in
            try bounds.read(number: s)
        }
    }
}

extension Option where Value == Double {
    /// A number in `range`, with a default.
    static func number(_ name: String, _ placeholder: String, default value: Double, in range: ClosedRange<Double>,
                       help: String) -> Option {
        Option<Double?>.number(name, placeholder, in: range, help: help).defaulting(to: value, SettingRange.number(value))
    }
}

extension Option where Value == Int? {
    /// A whole number in `range`, or nil when absent.
    static func integer(_ name: String, _ placeholder: String, in range: ClosedRange<Int>, help: String,
                        defaultText: String? = nil) -> Option {
        let bounds = SettingRange(Double(range.lowerBound), Double(range.upperBound))
        return Option(name, placeholder, help: help, default: nil, defaultText: defaultText) { s throws(SettingError) in
            try bounds.read(integer: s)
        }
    }
}

extension Option where Value == Int {
    /// A whole number in `range`, with a default.
    static func integer(_ name: String, _ placeholder: String, default value: Int, in range: ClosedRange<Int>,
                        help: String) -> Option {
        Option<Int?>.integer(name, placeholder, in: range, help: help).defaulting(to: value, String(value))
    }
}

extension Option {
    /// This option with a default: `value` when absent, shown in the help as `text`.
    func defaulting<Wrapped>(to value: Wrapped, _ text: String) -> Option<Wrapped> where Value == Wrapped? {
        var spec = spec
        spec.defaultText = text
        return Option<Wrapped>(spec: spec, defaultValue: value) { values in values.last.map { $0 as! Wrapped } ?? value }
    }
}

extension Option where Value == Nanoseconds? {
    /// A time: ISO 8601 with an offset, or Unix nanoseconds; nil when absent.
    static func time(_ name: String, help: String) -> Option {
        Option(name, "TIME", help: help, default: nil) { text throws(SettingError) in
            guard let t = TimeText.parse(text) else {
                throw SettingError("must be an ISO 8601 time with an offset (2026-11-30T14:05:00Z, "
                                   + "2026-11-30T15:05:00.250+01:00) or Unix nanoseconds, got '\(text)'")
            }
            return t
        }
    }
}

extension Option {
    /// One of `choices` (the names as typed), with a default.
    static func choice(_ name: String, _ placeholder: String, _ choices: [(String, Value)], default value: String,
                       help: String) -> Option {
        let names = choices.map(\.0)
        let table = Dictionary(choices, uniquingKeysWith: { a, _ in a })
        return Option(name, placeholder, help: help, default: table[value]!, defaultText: value) { s throws(SettingError) in
            guard let v = table[s] else {
                throw SettingError("must be \(names.dropLast().joined(separator: ", ")) or \(names.last!), got '\(s)'")
            }
            return v
        }
    }
}

extension Option where Value == String? {
    /// The `serve` flag of a string setting (`--data-dir`), for another command that shares it; nil when absent.
    static func setting(_ key: String) -> Option {
        let spec = OptionSpec(setting: ServiceConfig.setting(key: key)!)
        return Option(spec: spec, defaultValue: nil, collect: { $0.last.map { $0 as! String } })
    }
}

extension OptionSpec {
    /// The flag of a `serve` setting: its help adds the default and (with `showingKey`) the config key.
    init(setting: ConfigSetting, showingKey: Bool = true) {
        let flag = setting.flag!
        self.init(name: flag.name, placeholder: flag.placeholder, help: flag.help,
                  defaultText: flag.placeholder == nil ? nil : setting.defaultText, repeatable: flag.repeatable,
                  configKey: showingKey ? setting.key : nil,
                  read: { s throws(SettingError) in
                      var scratch = ServiceConfig()
                      try setting.apply(flagValues: [s], to: &scratch)
                      return s
                  })
    }
}

