// swift-tools-version: 6.0
import PackageDescription

/// Strict settings shared by every Swift target.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Sextant",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sextant", targets: ["sextant"]),
        .library(name: "Positioning", targets: ["Positioning"]),
        .library(name: "Wire", targets: ["Wire"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLAPACKE", path: "Sources/CLAPACKE",
                       providers: [.apt(["liblapacke-dev", "libopenblas-dev"])]),
        .systemLibrary(name: "CCairo", path: "Sources/CCairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),
        .systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto",
                       providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CScan", path: "Sources/CScan"),
        .systemLibrary(name: "CWebSockets", path: "Sources/CWebSockets",
                       providers: [.apt(["libwebsockets-dev"])]),
        .plugin(name: "GitVersion", capability: .buildTool(), path: "Plugins/GitVersion"),
        // Compiles the live map's files (Sources/Server/Web/Static) into the Server target at build time.
        .executableTarget(name: "embed-web", path: "Tools/embed-web", swiftSettings: strict),
        .plugin(name: "EmbedWeb", capability: .buildTool(), dependencies: ["embed-web"], path: "Plugins/EmbedWeb"),
        .target(name: "BuildInfo", swiftSettings: strict, plugins: ["GitVersion"]),
        .target(name: "Numerics", dependencies: ["CLAPACKE"], swiftSettings: strict),
        .target(name: "Positioning", dependencies: ["Numerics"], swiftSettings: strict),
        .target(name: "Wire", dependencies: ["Positioning", "CScan"], swiftSettings: strict),
        .target(name: "Pipeline", dependencies: ["Positioning", "Wire"], swiftSettings: strict),
        .target(name: "Store", dependencies: ["CSQLite", "CLibPQ", "Positioning", "Numerics"], swiftSettings: strict),
        // Web/Static holds the live map's files; the EmbedWeb plugin compiles them into the target.
        .target(name: "Server", dependencies: ["BuildInfo", "CEpoll", "CMosquitto", "CWebSockets", "Positioning", "Wire", "Pipeline", "Store"],
                exclude: ["Web/Static"], swiftSettings: strict, plugins: ["EmbedWeb"]),
        .target(name: "Survey", dependencies: ["Positioning", "Numerics", "Wire", "Pipeline", "CCairo"], swiftSettings: strict),
        .executableTarget(name: "sextant",
                          dependencies: ["BuildInfo", "Positioning", "Wire", "Pipeline", "Store", "Server", "Survey", "Numerics"],
                          swiftSettings: strict),
        .executableTarget(name: "sextant-bench", dependencies: ["Positioning", "Wire", "Pipeline", "Numerics"],
                          path: "Benchmarks/sextant-bench", swiftSettings: strict),
        // What the benchmarks share: the machine probe (how much the host slowed during a measurement)
        // and a libmosquitto client for their load.
        .target(name: "BenchSupport", dependencies: ["Server", "CMosquitto"], path: "Benchmarks/BenchSupport", swiftSettings: strict),
        .executableTarget(name: "service-bench", dependencies: ["BenchSupport", "Server", "Store", "Positioning", "Wire", "Pipeline", "Numerics"],
                          path: "Benchmarks/service-bench", swiftSettings: strict),
        .executableTarget(name: "cluster-bench", dependencies: ["BenchSupport", "Server", "Store", "Positioning", "Wire", "CMosquitto"],
                          path: "Benchmarks/cluster-bench", swiftSettings: strict),
        .executableTarget(name: "mqtt-bench", dependencies: ["BenchSupport", "Server", "Positioning", "Wire", "Numerics", "CMosquitto"],
                          path: "Benchmarks/mqtt-bench", swiftSettings: strict),
        .executableTarget(name: "store-bench", dependencies: ["Store", "Positioning", "Numerics"],
                          path: "Benchmarks/store-bench", swiftSettings: strict),
        // Helpers the test targets share: temporary directories, a service on loopback, a feed
        // client, captured log lines to wait on.
        .target(name: "SextantTestSupport", dependencies: ["Server", "Store", "Positioning", "Wire"],
                path: "Tests/SextantTestSupport", swiftSettings: strict),
        .testTarget(name: "NumericsTests", dependencies: ["Numerics"], swiftSettings: strict),
        .testTarget(name: "PositioningTests", dependencies: ["Positioning", "Numerics"], swiftSettings: strict),
        .testTarget(name: "WireTests", dependencies: ["Wire", "Positioning"], swiftSettings: strict),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Positioning", "SextantTestSupport"], swiftSettings: strict),
        .testTarget(name: "ServerTests", dependencies: ["Server", "Store", "Positioning", "Wire", "Pipeline", "SextantTestSupport", "CMosquitto", "Numerics"],
                    swiftSettings: strict),
        .testTarget(name: "SurveyTests", dependencies: ["Survey", "Positioning", "Numerics", "CCairo"], swiftSettings: strict),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Positioning", "Wire"], swiftSettings: strict),
        .testTarget(name: "SextantTests", dependencies: ["sextant", "Server", "Store", "Positioning", "Numerics", "Wire", "BuildInfo"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
