import BuildInfo
import Foundation
import Positioning
import Server
import Wire

/// `sextant serve`: the live service.
enum ServeCommand {
    /// The defaults the prose below names.
    private static let d = ServiceConfig()
    private static func n(_ v: Double) -> String { SettingRange.number(v) }

    static let about = """
        USAGE: sextant serve [options]

        Runs the live service until SIGTERM or SIGINT (Ctrl-C):
          ingest  TCP, default \(d.bindAddress):\(d.ingestPort). Gateways send ingest lines (ranging, motion, removed,
                  session). A line without timestamp gets the receive time. A rejected line is counted
                  and answered on the same connection with '# rejected line N: reason [key]'.
          feed    TCP, default \(d.bindAddress):\(d.feedPort). A dashboard connects and may send one line within
                  --subscription-wait:
                      subscribe [sites=S1,S2] [tags=T1,T2] [kinds=position,proximity,removed,zone]
                  (nothing, or a blank line: everything). It gets the last known position of every
                  selected tag, then the live position, proximity, removed and zone lines (InfluxDB
                  line protocol). '#stats' as the first line returns the counters as '# key=value' lines
                  and closes ('#stats lp': one 'sextant_stats' line-protocol line); '#anchors' returns
                  one 'anchor_health' line per anchor (see 'sextant status --anchors').
          history SQLite (WAL) in --data-dir/sextant.sqlite: the sites, every position, each tag's
                  last position, the zone events, and the raw lines with --record-measurements. A
                  restart with the same directory reloads sites and last positions. Read it with
                  'sextant site', 'sextant history' and 'sextant zones'.
        SIGHUP reads the --site files again: a changed map restarts that site's tracker, a new site is
        added, the others keep their state; a file that does not load changes nothing (logged).
        By default the service listens on loopback only; use --bind 0.0.0.0 to accept gateways from
        other machines. Log lines (key=value) go to standard error.

        AUTHENTICATION (config file only, so that secrets stay off the command line):
          "ingestTokens": [{"name": "gw-dock", "token": "SECRET", "sites": ["demo-warehouse"]}],
          "feedTokens":   [{"name": "dashboard", "token": "SECRET2"}]
        When a port has tokens, a connection's first line must be 'auth SECRET' (within
        "authTimeout", default \(n(d.authTimeout)) s); otherwise it reads '# error: …' and is closed, and the failure
        is logged and counted (auth_failures). A gateway token with "sites" may only write those
        sites: other lines are rejected as site_not_allowed. A feed token with "sites" only reads
        those sites. Tokens need at least 16 characters. Keep the config file readable by the
        service's user only (the service warns otherwise).

        LIMITS (flags or config keys; over a limit, a clear '# error' or rejection, never a crash):
          line length (maxLineLength, \(d.maxLineLength) B: line_too_long), lines per second per ingest connection
          (--max-lines-per-second, off by default: rate_limited), connections (maxIngestConnections
          \(d.maxIngestConnections), maxFeedClients \(d.maxFeedClients), maxConnectionsPerAddress \(d.maxConnectionsPerAddress): '# error' and close, counted as
          connections_refused), tags per site (--max-tags-per-site, \(d.maxTagsPerSite): too_many_tags), timestamps
          (--max-clock-ahead \(n(d.maxClockAhead)) s, --max-clock-behind off: clock_skew), and the subscription
          (maxSubscriptionLength \(d.maxSubscriptionLength) B, maxSubscriptionItems \(d.maxSubscriptionItems) sites and tags).

        CONFIG FILE: --config FILE holds JSON settings, e.g. {"bind": "0.0.0.0", "ingestPort": 7400,
        "dataDirectory": "/var/lib/sextant", "sites": ["Sites"], "overflow": "disconnect"}; its keys:
        \(CommandSpec.wrap(ServiceConfig.jsonKeys.joined(separator: ", "), first: "", indent: 0))
        """

    /// `--log-level`.
    static let logLevel = Option<Logger.Level>.choice(
        "log-level", "LEVEL", [("debug", .debug), ("info", .info), ("warn", .warning), ("warning", .warning), ("error", .error)],
        default: "info", help: "debug, info, warn or error")

    /// The flags of the settings (`ServiceConfig.settings`), between `--config` and `--log-level`.
    static let settingFlags = ServiceConfig.settings.filter { $0.flag != nil }

    /// `--mqtt`: the broker of the config file's `mqtt` object (which holds the login, CA file, more prefixes).
    static let mqttBroker = Option<String?>.text("mqtt", "URL", help: """
        MQTT in and out through a broker: mqtt://HOST[:PORT], mqtts://HOST[:PORT] (TLS) or HOST[:PORT]. \
        Ingest lines on <prefix>/<site>/ingest (QoS 1, persistent session), outputs on \
        <prefix>/<site>/tags/<tag>/<kind> (positions retained), status on <prefix>/status/<instance>. \
        Login, CA file, more output prefixes: the config file's "mqtt" object (see docs/mqtt.md)
        """, defaultText: "off")
    /// `--mqtt-prefix`.
    static let mqttPrefix = Option<String?>.text("mqtt-prefix", "P", help: "the MQTT topic prefix", defaultText: "sextant")
    /// `--mqtt-format`.
    static let mqttFormat = Option<MQTTConfig.Format?>(
        "mqtt-format", "F", help: "json or lp: the format of the outputs on the prefix", default: nil, defaultText: "json"
    ) { s throws(SettingError) in
        guard let f = MQTTConfig.Format(rawValue: s) else { throw SettingError("must be json or lp, got '\(s)'") }
        return f
    }
    /// `--mqtt-instance`.
    static let mqttInstance = Option<String?>.text("mqtt-instance", "NAME", help: "names the MQTT status topic and the client ids",
                                                   defaultText: "sextant")
    /// `--cluster`.
    static let cluster = Option<String?>.text("cluster", "NAME", help: """
        cluster mode, as the instance NAME: instances sharing the --mqtt broker and the PostgreSQL --database divide         the sites, each subscribing only to the ingest topics of the sites it owns; a dead instance's sites move         to the others (see docs/scaling.md)
        """, defaultText: "off")
    /// The MQTT flags, each with the key of the config file's `mqtt` object it sets.
    static let mqttOptions = [(mqttBroker.spec, "mqtt.broker"), (mqttPrefix.spec, "mqtt.prefix"),
                              (mqttFormat.spec, "mqtt.outputs"), (mqttInstance.spec, "mqtt.instance"),
                              (cluster.spec, "cluster.instance")].map { spec, key in
        var spec = spec
        spec.configKey = key
        return spec
    }

    static let spec = CommandSpec("serve", about: about,
                                  optionsTitle: "OPTIONS (a flag overrides the --config file, which overrides the default):",
                                  options: [ConfigFile.option.spec] + settingFlags.map { OptionSpec(setting: $0) } + mqttOptions
                                      + [logLevel.spec])

    static var help: String { spec.help }

    /// The command line, parsed and each value checked (`makeConfig` checks the whole).
    static func arguments(_ argv: [String]) throws(CommandError) -> Arguments { try spec.parse(argv) }

    static func run(_ argv: [String]) throws {
        let a = try arguments(argv)
        if a.wantsHelp { print(help); return }
        let config = try makeConfig(a)
        let logger = Logger(level: a[logLevel])
        logger.info("sextant starting", ["version": BuildInfo.version, "pid": getpid()])
        if let path = a[ConfigFile.option], config.ingestTokens.isRequired || config.feedTokens.isRequired,
           let mode = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int,
           mode & 0o077 != 0 {
            logger.warning("the config file holds tokens and other users may read it; chmod 600 it",
                           ["file": path, "mode": String(mode, radix: 8)])
        }
        var paths = config.sitePaths
        if paths.isEmpty, FileManager.default.fileExists(atPath: "Sites") { paths = ["Sites"] }
        let imports: [SiteFile]
        do { imports = try SiteImport.read(paths) } catch {
            throw CommandError(message: "serve: \(error)", code: error.unreadable ? .noInput : .dataError)
        }
        let host: ServiceHost
        do {
            host = try ServiceHost(config: config, imports: imports, fallback: .demoWarehouse, logger: logger)
        } catch {
            let what = config.database == nil ? "the data directory '\(config.dataDirectory)'" : "the history database"
            throw CommandError(message: "serve: cannot open \(what): \(error)",
                               code: .cantCreate)
        }
        let service = host.service
        do { try service.start() } catch {
            host.writer.close()
            throw CommandError(message: "serve: cannot listen on \(config.bindAddress) (ports \(config.ingestPort), "
                               + "\(config.feedPort)): \(error)", code: .failure)
        }
        let signals = ShutdownSignals(ShutdownSignals.termination) { signal in
            logger.info("signal received", ["signal": signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "\(signal)"])
            service.shutdown()
        }
        // SIGHUP: the site files are read again and changed maps put in place (a bad file changes nothing).
        let sitePaths = paths
        let reload = ShutdownSignals([SIGHUP]) { _ in
            do {
                let files = try SiteImport.read(sitePaths)
                logger.info("SIGHUP: reloading the site files", ["files": files.count])
                service.reload(sites: files)
            } catch {
                logger.error("SIGHUP: site files refused; the sites are unchanged", ["error": "\(error)"])
            }
        }
        service.waitUntilShutdown()
        let s = service.stats()
        logger.info("stopped", ["lines_in": s.linesIn, "rejected": s.rejectedTotal, "positions_out": s.positionsOut,
                                "history_rows_written": s.historyRowsWritten, "history_dropped": s.historyDropped])
        withExtendedLifetime((signals, reload)) {}
    }

    /// Defaults, then the config file, then the flags; validated.
    static func makeConfig(_ a: Arguments) throws -> ServiceConfig {
        var c = try ConfigFile.load(a)
        for setting in settingFlags {
            let flag = OptionSpec(setting: setting)
            guard a.given(flag) else { continue }
            do { try setting.apply(flagValues: a.texts(flag), to: &c) } catch {
                throw CommandError.usage("serve: --\(flag.name) \(error.message)")
            }
        }
        try applyMQTT(a, to: &c)
        if let name = a[cluster] {
            var k = c.cluster ?? ClusterConfig(instance: name)
            k.instance = name
            c.cluster = k
        }
        do { try c.validate() } catch { throw CommandError.usage("serve: \(error)") }
        return c
    }

    /// `--mqtt`, `--mqtt-prefix`, `--mqtt-format`, `--mqtt-instance` over the config file's `mqtt`.
    static func applyMQTT(_ a: Arguments, to c: inout ServiceConfig) throws {
        if let v = a[mqttBroker] {
            var m = c.mqtt ?? MQTTConfig()
            do { try m.apply(broker: v, key: "--mqtt") } catch { throw CommandError.usage("serve: \(error)") }
            c.mqtt = m
        }
        let prefix = a[mqttPrefix], format = a[mqttFormat], instance = a[mqttInstance]
        guard prefix != nil || format != nil || instance != nil else { return }
        guard var m = c.mqtt else {
            throw CommandError.usage("serve: --mqtt-prefix, --mqtt-format and --mqtt-instance need --mqtt (or \"mqtt\" in the config file)")
        }
        if let instance { m.instance = instance }
        if let prefix {
            if let i = m.outputs?.firstIndex(where: { $0.prefix == m.prefix }) { m.outputs![i].prefix = prefix }
            m.prefix = prefix
        }
        if let format {
            if let i = m.outputs?.firstIndex(where: { $0.prefix == m.prefix }) { m.outputs![i].format = format } else {
                m.outputs = (m.outputs ?? []) + [MQTTConfig.Output(prefix: m.prefix, format: format)]
            }
        }
        c.mqtt = m
    }
}
