import Foundation
import Testing
import Server
@testable import sextant

/// Each option is declared once; the help, the parser, its errors and `serve`'s config keys come from
/// that declaration.
@Suite struct OptionDeclarationTests {
    static let commands: [CommandSpec] = [
        DemoCommand.spec, ReplayCommand.spec, SimulateCommand.spec, EvaluateCommand.spec, ServeCommand.spec, StatusCommand.spec,
        SiteCommand.spec, HistoryCommand.spec, ZonesCommand.spec, SurveyCoverageCommand.spec, SurveyPlanCommand.spec,
        SurveyCalibrateCommand.spec, SurveyAnchorsCommand.spec, SurveyBiasCommand.spec, SurveyReportCommand.spec,
    ]

    @Test("every declared option of every command is in its help, with its value and default, once",
          arguments: commands.map(\.name))
    func helpListsEveryOption(command: String) throws {
        let spec = try #require(Self.commands.first { $0.name == command })
        let lines = spec.help.split(separator: "\n").map(String.init)
        for option in spec.options {
            let entries = lines.filter { $0.hasPrefix("  " + option.synopsis + " ") || $0 == "  " + option.synopsis }
            #expect(entries.count == 1, "\(command): \(option.synopsis) listed \(entries.count) times")
        }
        // The help's words, with the wrapping undone.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = words(spec.help)
        for option in spec.options {
            if let d = option.defaultText { #expect(help.contains("default " + words(d)), "\(command): \(option.synopsis)") }
            if let k = option.configKey { #expect(help.contains("key " + k), "\(command): \(option.synopsis)") }
        }
        #expect(lines.contains { $0.hasPrefix("  -h, --help ") })
        #expect(Set(spec.options.map(\.name)).count == spec.options.count, "\(command) declares an option twice")
    }

    @Test("serve's flags and the config keys map 1:1, and its help names each flag's key")
    func configKeysMapOneToOne() {
        let keys = ServiceConfig.settings.map(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(keys == ServiceConfig.jsonKeys)
        let flags = ServiceConfig.settings.compactMap(\.flag?.name)
        #expect(Set(flags).count == flags.count)
        let serve = ServeCommand.spec
        for setting in ServiceConfig.settings {
            #expect(serve.help.contains(setting.key), "\(setting.key) missing from serve --help")
            guard let flag = setting.flag else { continue }
            let option = serve.options.first { $0.name == flag.name }
            #expect(option?.configKey == setting.key, "--\(flag.name)")
        }
        // The flags without a key.
        #expect(serve.options.filter { $0.configKey == nil }.map(\.name) == ["config", "log-level"])
    }

    @Test("docs/service.md's key table has one row per setting, with its flag, default and range")
    func docsTableMatchesTheSettings() throws {
        let page = try String(contentsOf: SextantProcess.packageRoot.appendingPathComponent("docs/service.md"), encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| key | flag | default | range |") })
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("| `") }.map {
            $0.replacingOccurrences(of: "\\|", with: "/").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        #expect(rows.map { $0[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")) } == ServiceConfig.jsonKeys)
        for (row, setting) in zip(rows, ServiceConfig.settings) {
            let flag = row[1].split(separator: "`").first { $0.hasPrefix("--") }.map { $0.split(separator: " ")[0].dropFirst(2) }
            #expect(flag.map(String.init) == setting.flag?.name, "\(setting.key): \(row[1])")
            #expect(row[2].replacingOccurrences(of: "`", with: "") == setting.defaultText, "\(setting.key): \(row[2])")
            if let range = setting.range {
                let column = row[3].replacingOccurrences(of: ",", with: "")
                for bound in [range.lower, range.upper] {
                    #expect(column.contains(SettingRange.number(bound)), "\(setting.key): \(row[3]) lacks \(bound)")
                }
            }
        }
    }

    @Test("a bad value names the option and the accepted range; an unknown option the closest one")
    func errorTexts() throws {
        func usage(_ body: () throws -> Void) -> String {
            do { try body(); return "accepted" } catch let e as CommandError { return e.code == .usage ? e.message : "\(e)" } catch {
                return "\(error)"
            }
        }
        #expect(usage { _ = try ServeCommand.makeConfig(ServeCommand.arguments(["--tag-timeout", "0"])) }
                == "serve: --tag-timeout must be between 0.1 and 86400 seconds, got 0")
        #expect(usage { _ = try ServeCommand.makeConfig(ServeCommand.arguments(["--feed-queue=8"])) }
                == "serve: --feed-queue must be between 16 and 10000000, got 8")
        #expect(usage { _ = try ServeCommand.arguments(["--overflow", "block"]) }
                == "serve: --overflow must be drop-oldest or disconnect, got 'block'")
        #expect(usage { _ = try HistoryCommand.spec.parse(["--batch", "0"]) } == "history: --batch must be between 1 and 10000000, got 0")
        #expect(usage { _ = try ZonesCommand.spec.parse(["--data-directory", "x"]) }
                == "zones: unknown option --data-directory (did you mean --data-dir?) (see 'sextant zones --help')")
        #expect(usage { _ = try StatusCommand.spec.parse(["--prot", "7401"]) }
                == "status: unknown option --prot (did you mean --port?) (see 'sextant status --help')")
        #expect(usage { _ = try StatusCommand.spec.parse(["--verbose"]) } == "status: unknown option --verbose (see 'sextant status --help')")
        #expect(usage { _ = try SimulateCommand.spec.parse(["--site"]) } == "simulate: --site FILE needs a value")
    }
}

/// `--config FILE` for the commands that read the store or the service, and its precedence.
@Suite(.serialized) struct ConfigFileOptionTests {
    private func write(_ json: String, in s: Scratch, _ name: String = "sextant.json") throws -> String {
        let path = s.dir.appendingPathComponent(name).path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("site, history and zones take the data directory from --config")
    func storeCommandsReadTheConfig() throws {
        let s = try Scratch()
        let config = try write(#"{"dataDirectory": "\#(s.data)", "feedPort": 7555}"#, in: s)
        let listed = s.dir.appendingPathComponent("list.txt").path
        _ = FileManager.default.createFile(atPath: listed, contents: nil)
        let list = try run(["site", "list", "--config", config], stdout: listed)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try String(contentsOfFile: listed, encoding: .utf8).contains("demo-warehouse"))
        for argv in [["history", "--site", "demo-warehouse", "--config", config],
                     ["history", "--site", "demo-warehouse", "--last", "--config", config],
                     ["zones", "--site", "demo-warehouse", "--events", "--config", config],
                     ["site", "show", "demo-warehouse", "--config", config]] {
            let r = try run(argv)
            #expect(r.status == 0, "\(argv): \(r.stderr)")
        }
        // Without it the default ./sextant-data (absent here) is read, and refused.
        let cwdDefault = try run(["site", "list", "--data-dir", s.dir.appendingPathComponent("none").path])
        #expect(cwdDefault.status == 66)
    }

    @Test("--data-dir wins over the config file's dataDirectory")
    func flagWinsOverFile() throws {
        let s = try Scratch()
        let empty = s.dir.appendingPathComponent("empty").path
        let pointsElsewhere = try write(#"{"dataDirectory": "\#(empty)"}"#, in: s)
        let refused = try run(["zones", "--site", "demo-warehouse", "--config", pointsElsewhere])
        #expect(refused.status == 66)
        #expect(refused.stderr.contains("no database at '\(empty)/sextant.sqlite'"), "\(refused.stderr)")
        let flagged = try run(["zones", "--site", "demo-warehouse", "--events", "--config", pointsElsewhere, "--data-dir", s.data])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        // serve: the same order, a flag over the file over the default.
        let served = try write(#"{"tagTimeout": 20, "feedPort": 9000, "sites": ["a.json"]}"#, in: s, "serve.json")
        let c = try ServeCommand.makeConfig(ServeCommand.arguments(["--config", served, "--tag-timeout", "5"]))
        #expect(c.tagTimeout == 5 && c.feedPort == 9000 && c.sitePaths == ["a.json"] && c.ingestPort == 7400)
        let d = try ServeCommand.makeConfig(ServeCommand.arguments(["--config", served, "--site", "b.json", "--site", "c"]))
        #expect(d.tagTimeout == 20 && d.sitePaths == ["b.json", "c"])
    }

    @Test("a bad config file is refused by every command that reads it, naming the key and its range")
    func badFile() throws {
        let s = try Scratch()
        let bad = try write(#"{"dataDirectory": "\#(s.data)", "tagTimeout": 0}"#, in: s)
        for command in [["site", "list"], ["history", "--site", "demo-warehouse"], ["zones", "--site", "demo-warehouse"], ["status"]] {
            let r = try run(command + ["--config", bad])
            #expect(r.status == 65, "\(command): \(r.stderr)")
            #expect(r.stderr == "\(command[0]): \(bad): 'tagTimeout' must be between 0.1 and 86400 seconds\n", "\(r.stderr)")
        }
        let missing = try run(["history", "--site", "x", "--config", s.dir.appendingPathComponent("nope.json").path])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    @Test("status takes the feed port and the bind address from --config; --host and --port win")
    func statusAddress() throws {
        let s = try Scratch()
        let config = try write(#"{"bind": "0.0.0.0", "feedPort": 7555}"#, in: s)
        #expect(try StatusCommand.address(StatusCommand.spec.parse([])) == ("127.0.0.1", 7401))
        #expect(try StatusCommand.address(StatusCommand.spec.parse(["--config", config])) == ("127.0.0.1", 7555))
        #expect(try StatusCommand.address(StatusCommand.spec.parse(["--config", config, "--port", "7600", "--host", "::1"]))
                == ("::1", 7600))
        let v6 = try write(#"{"bind": "::", "feedPort": 0}"#, in: s, "v6.json")
        #expect(try StatusCommand.address(StatusCommand.spec.parse(["--config", v6, "--port", "7000"])) == ("::1", 7000))
        #expect(throws: CommandError.self) { try StatusCommand.address(StatusCommand.spec.parse(["--config", v6])) }
    }

    @Test("status presents --token-file, else SEXTANT_FEED_TOKEN, else the --config file's feed token")
    func statusToken() throws {
        let s = try Scratch()
        let config = try write(#"{"feedTokens": [{"name": "dock", "token": "dock-only-secret-0001", "sites": ["dock"]}, "#
                               + #"{"name": "ops", "token": "every-site-secret-0002"}]}"#, in: s, "tokens.json")
        let file = try write("from-the-file-secret-03\n", in: s, "token")
        let env = ["SEXTANT_FEED_TOKEN": "env-secret-000000004"]
        #expect(try StatusCommand.token(StatusCommand.spec.parse([]), environment: [:]) == nil)
        #expect(try StatusCommand.token(StatusCommand.spec.parse(["--config", config]), environment: [:])
                == "every-site-secret-0002")
        #expect(try StatusCommand.token(StatusCommand.spec.parse(["--config", config]), environment: env)
                == "env-secret-000000004")
        #expect(try StatusCommand.token(StatusCommand.spec.parse(["--config", config, "--token-file", file]), environment: env)
                == "from-the-file-secret-03")
        let restricted = try write(#"{"feedTokens": [{"name": "dock", "token": "dock-only-secret-0001", "sites": ["dock"]}]}"#,
                                   in: s, "restricted.json")
        #expect(try StatusCommand.token(StatusCommand.spec.parse(["--config", restricted]), environment: [:])
                == "dock-only-secret-0001")
    }
}
