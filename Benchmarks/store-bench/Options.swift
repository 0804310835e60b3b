import Foundation

/// The command line of `store-bench`.
struct Options {
    static let help = """
        USAGE: store-bench [--rows N] [--quick] [--dir DIR] [--keep] [--seed N] [--postgres URL] [--inserts-only] [--no-postgis] [--scattered]

        Measures the history store (SQLite) of 'sextant serve' and prints each figure next to its target:
          insert rate   positions/s through the real HistoryWriter (batches on its thread), with 1,000
                        tags and with 10,000 tags interleaved (one row per tag every 0.1-0.2 s,
                        each tag walking at up to 1.5 m/s), into an empty database and into the
                        big one (target >= 200,000/s)
          hour of one tag   HistoryStore.forEachPositionPage, the query 'sextant history --tag'
                        runs, on the big history: median and max over random tags and hours, cold-ish
                        (fresh connection, the file dropped from the OS cache) and warm (target <= 50 ms)
          last positions    lastPositions(site:), the '--last' path, 10,000 tags
                        (target <= 50 ms)
          size          database bytes per million positions, for the bulk fixture and for the
                        interleaved writer run
        The big history is a fixture of N rows (default 50,000,000): 1,000 tags with a row every
        0.1-0.2 s (each tag about N/1,000 rows) and 9,000 more tags with 10 rows each. It is written
        through the same HistoryWriter, one tag after another, in large transactions; progress goes
        to standard error.

        OPTIONS:
          --rows N     rows in the big history (default 50000000)
          --quick      2,000,000 rows, shorter insert runs (a smoke test: a few tens of seconds)
          --dir DIR    where to put the databases (default: a new temporary directory)
          --keep       keep the databases afterwards, PostgreSQL's too (default: removed)
          --seed N     random seed for values, tags and hours (default 1)
          --postgres URL   also run each insert run against PostgreSQL (COPY), next to SQLite: URL names
                       a server (postgres://user@host:port/postgres); each run gets a new database,
                       created and dropped with psql
          --inserts-only   only the insert runs (no big history)
          --no-postgis     with --postgres: open the databases without the PostGIS column and index
          --scattered  each row of the insert runs anywhere in the site, independent of the tag's
                       last one (not a walk: every row a new grid cell, the most visits PostGIS stores)
          -h, --help   show this help
        """

    var rows = 50_000_000
    var quick = false
    var directory: String?
    var keep = false
    var seed: UInt64 = 1
    var postgres: String?
    var insertsOnly = false
    var noPostGIS = false
    var scattered = false

    /// Parses `arguments` (without the program name); prints the help and exits 0 for `--help`,
    /// prints the problem and exits 64 for a usage error.
    init(_ arguments: [String]) {
        var rowsGiven: Int?
        var i = 0
        func value(_ name: String) -> String {
            i += 1
            guard i < arguments.count else { Self.fail("\(name) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "-h", "--help":
                print(Self.help)
                exit(0)
            case "--quick": quick = true
            case "--keep": keep = true
            case "--rows":
                let v = value("--rows")
                guard let n = Int(v.replacingOccurrences(of: "_", with: "").replacingOccurrences(of: ",", with: "")),
                      n >= 100_000 else { Self.fail("--rows must be an integer of at least 100000, got '\(v)'") }
                rowsGiven = n
            case "--dir": directory = value("--dir")
            case "--postgres": postgres = value("--postgres")
            case "--inserts-only": insertsOnly = true
            case "--no-postgis": noPostGIS = true
            case "--scattered": scattered = true
            case "--seed":
                let v = value("--seed")
                guard let n = UInt64(v) else { Self.fail("--seed must be a non-negative integer, got '\(v)'") }
                seed = n
            default:
                Self.fail("unknown argument '\(arguments[i])'")
            }
            i += 1
        }
        rows = rowsGiven ?? (quick ? 2_000_000 : 50_000_000)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("store-bench: \(message)\nUSAGE: store-bench [--rows N] [--quick] [--dir DIR] [--keep] [--seed N] (--help)\n".utf8))
        exit(64)
    }
}
