import BuildInfo
import Foundation
import Positioning
import Server
import Wire

/// `sextant serve`: the live service.
enum ServeCommand {
    static let help = """
        USAGE: sextant serve [options]

        Runs the live service until SIGTERM or SIGINT (Ctrl-C):
          ingest  TCP, default 127.0.0.1:7400. Gateways send ingest lines (ranging, motion, removed,
                  session). A line without timestamp gets the receive time. A rejected line is counted
                  and answered on the same connection with '# rejected line N: reason [key]'.
          feed    TCP, default 127.0.0.1:7401. A dashboard connects and may send one line within
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
        "authTimeout", default 5 s); otherwise it reads '# error: …' and is closed, and the failure
        is logged and counted (auth_failures). A gateway token with "sites" may only write those
        sites: other lines are rejected as site_not_allowed. A feed token with "sites" only reads
        those sites. Tokens need at least 16 characters. Keep the config file readable by the
        service's user only (the service warns otherwise).

        LIMITS (flags or config keys; over a limit, a clear '# error' or rejection, never a crash):
          line length (maxLineLength, 65536 B: line_too_long), lines per second per ingest connection
          (--max-lines-per-second, off by default: rate_limited), connections (maxIngestConnections
          4096, maxFeedClients 1024, maxConnectionsPerAddress 2048: '# error' and close, counted as
          connections_refused), tags per site (--max-tags-per-site, 100000: too_many_tags), timestamps
          (--max-clock-ahead 2 s, --max-clock-behind off: clock_skew), and the subscription
          (maxSubscriptionLength 65536 B, maxSubscriptionItems 10000 sites and tags).

        OPTIONS (a flag overrides the --config file, which overrides the default):
          --config FILE            JSON settings, e.g. {"bind": "0.0.0.0", "ingestPort": 7400,
                                   "dataDirectory": "/var/lib/sextant", "sites": ["Sites"],
                                   "overflow": "disconnect"} (keys: \(ServiceConfig.jsonKeys.joined(separator: ", ")))
          --bind ADDR              IPv4 or IPv6 address to listen on (default 127.0.0.1; ::1 or [::1]
                                   for IPv6 loopback, :: for every interface; the ports are set
                                   apart, with --ingest-port and --feed-port)
          --ingest-port P          gateway port (default 7400; 0: any free port, logged)
          --feed-port P            feed port (default 7401; 0: any free port, logged)
          --http ADDR:PORT         the HTTP port: live map at /, REST under /api/v1/, WebSocket and
                                   SSE streams, /metrics, /healthz, /readyz (default 127.0.0.1:7402,
                                   loopback only whatever --bind says; 0: off; see docs/web.md)
          --data-dir DIR           data directory (default ./sextant-data)
          --site FILE|DIR          site file, or directory of *.json site files, to import (repeatable;
                                   default: Sites/ when it exists). Imported sites replace stored ones
                                   with the same id; stored sites stay. With no site at all, the
                                   embedded demo warehouse is served.
          --tag-timeout S          remove a tag after S seconds without measurements (default 10)
          --output-interval S      at most one line per tag every S seconds (default 0.1)
          --max-lateness S         refuse as 'late' a ranging line more than S seconds older than the
                                   latest line of its tag (default 1)
          --anchor-silence S       warn when an anchor that was heard is silent for S seconds, and count
                                   it in anchors_silent (default 30; 0: off); see 'sextant status --anchors'
          --no-bias-learning       do not learn anchor range biases online
          --feed-queue N           lines queued per feed client before overflow (default 65536)
          --overflow POLICY        drop-oldest (default: the client reads '# dropped N lines') or
                                   disconnect
          --subscription-wait S    how long a feed client may take to subscribe (default 0.2)
          --record-measurements    also store every accepted raw ingest line (for a later replay)
          --max-lines-per-second N lines per second one ingest connection may send (default 0: no limit)
          --max-tags-per-site N    tags one site may track at once (default 100000)
          --max-clock-ahead S      reject a line stamped more than S seconds ahead of the server's
                                   clock as clock_skew (default 2; 0: no limit). A gateway whose
                                   clock runs ahead would otherwise stall its tags. The first such
                                   line of a connection is logged as a warning
          --max-clock-behind S     reject a line stamped more than S seconds behind the server's
                                   clock as clock_skew (default 0: no limit, since replayed
                                   recordings and store-and-forward gateways send old timestamps)
          --precision UNIT         the unit of ingest timestamps: ns (default), us, ms or s (JSON
                                   'timestampPrecision'); a connection may change its own with a
                                   first line '#precision ms'. A timestamp outside 2000-2100 once
                                   read in its unit is refused, with a key naming the unit it looks
                                   like (timestamp_looks_like_ms, ...)
          --retention-full-days D  retention while serving (off by default): positions keep their
                                   full rate for D days (default 7 once retention is on), and raw
                                   lines are kept as long
          --retention-keep-days D  retention while serving: positions are thinned to one per tag per
                                   second after the full-rate days and deleted after D days, zone
                                   events too (default 90 once retention is on). Either option
                                   turns retention on: the rules of 'sextant history --prune',
                                   applied every minute (JSON 'retentionInterval', seconds) on a
                                   thread of their own, in transactions of at most 10,000 rows.
                                   Without it the history grows until pruned from outside.
          --log-level LEVEL        debug, info (default), warn or error
          -h, --help               show this help
        """

    /// The command line, parsed (not yet validated: `makeConfig` does that).
    static func arguments(_ argv: [String]) throws(CommandError) -> Arguments {
        try Arguments(argv, command: "serve",
                      options: ["config", "bind", "ingest-port", "feed-port", "http", "data-dir", "site", "tag-timeout",
                                "output-interval", "max-lateness", "anchor-silence", "feed-queue", "overflow", "subscription-wait", "log-level",
                                "max-lines-per-second", "max-tags-per-site", "max-clock-ahead", "max-clock-behind",
                                "retention-full-days", "retention-keep-days", "precision"],
                      switches: ["record-measurements", "no-bias-learning"])
    }

    static func run(_ argv: [String]) throws {
        let a = try arguments(argv)
        if a.wantsHelp { print(help); return }
        let config = try makeConfig(a)
        let logger = Logger(level: try logLevel(a.string("log-level") ?? "info"))
        logger.info("sextant starting", ["version": BuildInfo.version, "pid": getpid()])
        if let path = a.string("config"), config.ingestTokens.isRequired || config.feedTokens.isRequired,
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
            throw CommandError(message: "serve: cannot open the data directory '\(config.dataDirectory)': \(error)",
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
        var c = ServiceConfig()
        c.http = .standard
        if let path = a.string("config") {
            let bytes: [UInt8]
            do { bytes = try BoundedFile.read(path, limit: BoundedFile.configLimit, kind: "a configuration file") } catch {
                throw CommandError(message: "serve: \(error)", code: error.unreadable ? .noInput : .dataError)
            }
            do { try c.apply(json: bytes) } catch let e as ConfigError {
                throw CommandError.data("serve: \(path): \(e)")
            }
        }
        if let v = a.string("bind") { c.bindAddress = v }
        c.ingestPort = UInt16(try a.int("ingest-port", default: Int(c.ingestPort), in: 0...65535))
        c.feedPort = UInt16(try a.int("feed-port", default: Int(c.feedPort), in: 0...65535))
        if let v = a.string("http") {
            do { c.http = try HTTPEndpoint.parse(v) } catch { throw CommandError.usage("serve: --http \(error.message)") }
        }
        if let v = a.string("data-dir") { c.dataDirectory = v }
        if !a.strings("site").isEmpty { c.sitePaths = a.strings("site") }
        c.tagTimeout = try a.double("tag-timeout", default: c.tagTimeout, in: 0.1...86_400)
        c.outputInterval = try a.double("output-interval", default: c.outputInterval, in: 0...3600)
        c.maxLateness = try a.double("max-lateness", default: c.maxLateness, in: 0...3600)
        c.anchorSilence = try a.double("anchor-silence", default: c.anchorSilence, in: 0...86_400)
        if a.flag("no-bias-learning") { c.learnBias = false }
        c.feedQueueLines = try a.int("feed-queue", default: c.feedQueueLines, in: 16...10_000_000)
        if let v = a.string("overflow") {
            guard let p = OverflowPolicy(rawValue: v) else {
                throw CommandError.usage("serve: --overflow must be drop-oldest or disconnect, got '\(v)'")
            }
            c.overflow = p
        }
        c.subscriptionWait = try a.double("subscription-wait", default: c.subscriptionWait, in: 0...60)
        if a.flag("record-measurements") { c.recordMeasurements = true }
        c.maxLinesPerSecond = try a.double("max-lines-per-second", default: c.maxLinesPerSecond, in: 0...1e9)
        c.maxTagsPerSite = try a.int("max-tags-per-site", default: c.maxTagsPerSite, in: 1...100_000_000)
        c.maxClockAhead = try a.double("max-clock-ahead", default: c.maxClockAhead, in: 0...1e9)
        c.maxClockBehind = try a.double("max-clock-behind", default: c.maxClockBehind, in: 0...1e9)
        if let v = a.string("precision") {
            guard let p = TimestampPrecision(rawValue: v) else {
                throw CommandError.usage("serve: --precision must be \(TimestampPrecision.names), got '\(v)'")
            }
            c.timestampPrecision = p
        }
        if a.string("retention-full-days") != nil {
            c.retentionFullDays = try a.double("retention-full-days", default: 7, in: 0...36_500)
        }
        if a.string("retention-keep-days") != nil {
            c.retentionKeepDays = try a.double("retention-keep-days", default: 90, in: 0...36_500)
        }
        do { try c.validate() } catch { throw CommandError.usage("serve: \(error)") }
        return c
    }

    static func logLevel(_ s: String) throws -> Logger.Level {
        switch s {
        case "debug": .debug
        case "info": .info
        case "warn", "warning": .warning
        case "error": .error
        default: throw CommandError.usage("serve: --log-level must be debug, info, warn or error, got '\(s)'")
        }
    }
}
