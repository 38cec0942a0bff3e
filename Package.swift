// swift-tools-version:6.0
import PackageDescription

/// One set of compiler settings for every target: Swift 6 mode, strict concurrency.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Rendezvous",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "interop-server", targets: ["InteropServer"]),
        .executable(name: "db-bench-server", targets: ["DBBenchServer"]),
        .executable(name: "identity", targets: ["Identity"]),
        .executable(name: "discovery", targets: ["Discovery"]),
        .executable(name: "production", targets: ["Production"]),
        .executable(name: "messaging", targets: ["Messaging"]),
        .executable(name: "media", targets: ["Media"]),
        .library(name: "Contracts", targets: ["Contracts"]),
        // What an iOS app adds: pure Swift over Foundation's URLSession (gRPC-Web), no C library.
        .library(name: "GatewayClient", targets: ["GatewayClient"]),
        // The gateway client's HTTP/2 transport over nghttp2 and OpenSSL (Linux: services, tests, the CLI).
        .library(name: "GatewayClientHTTP2", targets: ["GatewayClientHTTP2"]),
        .executable(name: "identity-bench", targets: ["IdentityBench"]),
        .executable(name: "journeys-bench", targets: ["JourneysBench"]),
        .executable(name: "capacity-bench", targets: ["CapacityBench"]),
        .executable(name: "chaos", targets: ["Chaos"]),
        .executable(name: "protoc-gen-rendezvous", targets: ["ProtocGen"]),
        .executable(name: "rendezvous", targets: ["RendezvousCLI"]),
        .executable(name: "rendezvous-edge", targets: ["EdgeRunner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The tracing API (spans, W3C context in `InstrumentationContext`); our own tracer implements it.
        .package(url: "https://github.com/apple/swift-distributed-tracing", exact: "1.7.3"),
        // Only the `rendezvous` CLI uses it.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Only capacity-bench uses it: latency distributions with bounded memory and error.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // C libraries: a module map and a shim each, imported by exactly one Swift module.
        .systemLibrary(name: "CNGHTTP2", path: "Shared/CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Shared/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Shared/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLinux", path: "Shared/CLinux"),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCurl", path: "Shared/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CVips", path: "Shared/CVips", pkgConfig: "vips",
                       providers: [.apt(["libvips-dev"])]),

        // Shared modules.
        .target(name: "Wire", path: "Shared/Wire", swiftSettings: swiftSettings),
        .target(name: "CryptoCore", dependencies: ["COpenSSL"], path: "Shared/CryptoCore",
                swiftSettings: swiftSettings),
        .target(name: "IOLoop", dependencies: ["CLinux"], path: "Shared/IOLoop", swiftSettings: swiftSettings),
        .target(name: "HTTP2", dependencies: ["IOLoop", "CNGHTTP2", "CLinux", "CryptoCore"], path: "Shared/HTTP2",
                swiftSettings: swiftSettings),
        // What a gRPC client needs without a transport (status, metadata, framing, the call API): no C.
        .target(name: "RPCCore", dependencies: ["Wire"], path: "Shared/RPCCore", swiftSettings: swiftSettings),
        .target(name: "RPC", dependencies: ["RPCCore", "HTTP2", "IOLoop", "Wire", "CZlib",
                                            .product(name: "Tracing", package: "swift-distributed-tracing")],
                path: "Shared/RPC",
                swiftSettings: swiftSettings),
        // Every contract's messages and typed clients (no C); Contracts adds the server side and re-exports them.
        .target(name: "ContractTypes", dependencies: ["Wire", "RPCCore"], path: "Shared/ContractTypes",
                swiftSettings: swiftSettings),
        .target(name: "Contracts", dependencies: ["ContractTypes", "Wire", "RPC"], path: "Shared/Contracts",
                exclude: ["Consumers"], swiftSettings: swiftSettings),
        .target(name: "Postgres", dependencies: [
                    "CLibPQ", "IOLoop",
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "Tracing", package: "swift-distributed-tracing"),
                ], path: "Shared/Postgres", swiftSettings: swiftSettings),
        .target(name: "Runtime", dependencies: [
                    "RPC", "HTTP2", "IOLoop", "CryptoCore", "CLinux", "Postgres", "Contracts", "Auth",
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "Metrics", package: "swift-metrics"),
                    .product(name: "Prometheus", package: "swift-prometheus"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "Tracing", package: "swift-distributed-tracing"),
                ], path: "Shared/Runtime", swiftSettings: swiftSettings),
        .target(name: "Auth", dependencies: ["CryptoCore", "RPC", "Contracts"], path: "Shared/Auth",
                swiftSettings: swiftSettings),
        // Pure Swift and Foundation only (checked by PackageGraphTests): an iOS app builds it with SwiftPM.
        .target(name: "GatewayClient", dependencies: ["RPCCore", "ContractTypes", "Wire"],
                path: "Shared/GatewayClient", swiftSettings: swiftSettings),
        // HTTP2 and CryptoCore are RPC's own dependencies, named here only for the TLS settings.
        .target(name: "GatewayClientHTTP2", dependencies: ["GatewayClient", "RPC", "ContractTypes", "HTTP2", "CryptoCore"],
                path: "Shared/GatewayClientHTTP2", swiftSettings: swiftSettings),
        .target(name: "TestSupport", dependencies: ["RPC", "Contracts", "CryptoCore", "HTTP2", "IOLoop", "Postgres", "Wire"],
                path: "Shared/TestSupport",
                swiftSettings: swiftSettings),

        // Outbound HTTP(S) through libcurl: the LLM icebreaker endpoint (and S3, webhooks).
        .target(name: "OutboundHTTP", dependencies: ["CCurl"], path: "Shared/OutboundHTTP", swiftSettings: swiftSettings),

        // The protoc plugin that generates Shared/Contracts/Generated from proto-docs/ (`make generate`).
        .executableTarget(name: "ProtocGen", dependencies: ["Wire"], path: "Shared/ProtocGen", exclude: ["generate.sh"],
                          swiftSettings: swiftSettings),

        // The `rendezvous` command line for people and scripts, on the gateway client (and RPC's
        // health client for `rendezvous health`). A tool beside ProtocGen, not a service.
        .executableTarget(name: "RendezvousCLI", dependencies: [
                              "GatewayClient", "GatewayClientHTTP2", "Contracts", "RPC", "HTTP2", "CryptoCore",
                              .product(name: "ArgumentParser", package: "swift-argument-parser"),
                          ], path: "Shared/RendezvousCLI", swiftSettings: swiftSettings),

        // Executables.
        .executableTarget(name: "InteropServer", dependencies: ["RPC", "Contracts", "Runtime"],
                          path: "Services/Interop", swiftSettings: swiftSettings),

        .executableTarget(name: "Identity", dependencies: ["Auth", "Contracts", "CryptoCore", "Postgres", "RPC", "Runtime",
                                                           .product(name: "Logging", package: "swift-log")],
                          path: "Services/Identity", swiftSettings: swiftSettings),

        .executableTarget(name: "Discovery", dependencies: ["Auth", "Contracts", "CryptoCore", "OutboundHTTP", "Postgres", "RPC", "Runtime"],
                          path: "Services/Discovery", swiftSettings: swiftSettings),

        .executableTarget(name: "Production", dependencies: ["Auth", "Contracts", "CryptoCore", "Postgres", "RPC", "Runtime"],
                          path: "Services/Production", swiftSettings: swiftSettings),
        .executableTarget(name: "Messaging", dependencies: ["Auth", "Contracts", "CryptoCore", "HTTP2", "IOLoop", "OutboundHTTP",
                                                            "Postgres", "RPC", "Runtime", "Wire",
                                                            .product(name: "Logging", package: "swift-log"),
                                                            .product(name: "Metrics", package: "swift-metrics"),
                                                            .product(name: "Tracing", package: "swift-distributed-tracing")],
                          path: "Services/Messaging", swiftSettings: swiftSettings),
        .executableTarget(name: "Media", dependencies: ["Auth", "Contracts", "CryptoCore", "CVips", "OutboundHTTP", "Postgres", "RPC",
                                                        "Runtime"],
                          path: "Services/Media", swiftSettings: swiftSettings),

        .executableTarget(name: "DBBenchServer", dependencies: ["Runtime", "RPC", "Postgres", "Contracts", "Auth"],
                          path: "Tests/Benchmarks/DBBenchServer", swiftSettings: swiftSettings),

        .executableTarget(name: "IdentityBench", dependencies: ["RPC", "Contracts", "Auth", "Postgres", "Runtime", "TestSupport"],
                          path: "Tests/Benchmarks/IdentityBench", swiftSettings: swiftSettings),
        // The five products' journeys through the edge, shared by GatewayClientTests and journeys-bench.
        .target(name: "Journeys", dependencies: ["GatewayClient", "GatewayClientHTTP2", "Contracts", "RPC", "TestSupport"], path: "Tests/Journeys",
                swiftSettings: swiftSettings),
        .executableTarget(name: "JourneysBench", dependencies: ["Journeys", "GatewayClient", "GatewayClientHTTP2", "TestSupport"],
                          path: "Tests/Benchmarks/JourneysBench", swiftSettings: swiftSettings),
        // How many concurrent users one box holds at the service levels: an open-loop user model.
        .executableTarget(name: "CapacityBench", dependencies: ["GatewayClient", "GatewayClientHTTP2", "Contracts", "TestSupport", "Journeys", "Postgres",
                                                                .product(name: "Histogram", package: "hdrhistogram-swift")],
                          path: "Tests/Benchmarks/CapacityBench", swiftSettings: swiftSettings),

        // Faults under load across every service, then the audit of every acknowledged write.
        .executableTarget(name: "Chaos", dependencies: ["GatewayClient", "GatewayClientHTTP2", "Contracts", "TestSupport", "Journeys", "Postgres"],
                          path: "Tests/Benchmarks/Chaos", swiftSettings: swiftSettings),
        // The edge container's entry point: nginx with its upstream names kept resolved, and its
        // responses counted for Prometheus on the services' admin listener.
        .executableTarget(name: "EdgeRunner", dependencies: ["Runtime", "RPCCore", .product(name: "Metrics", package: "swift-metrics")],
                          path: "Shared/EdgeRunner", swiftSettings: swiftSettings),

        // Tests.
        .testTarget(name: "WireTests", dependencies: ["Wire"], swiftSettings: swiftSettings),
        .testTarget(name: "IOLoopTests", dependencies: ["IOLoop"], swiftSettings: swiftSettings),
        .testTarget(name: "EdgeRunnerTests", dependencies: ["EdgeRunner"], swiftSettings: swiftSettings),
        .testTarget(name: "CryptoCoreTests", dependencies: ["CryptoCore"], exclude: ["Fixtures"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2", "IOLoop", "RPC", "Contracts", "InteropServer", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "RPCTests", dependencies: ["RPC", "HTTP2", "IOLoop", "Wire", "Contracts", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "ContractsTests", dependencies: ["Contracts", "Wire", "RPC", "Runtime", "TestSupport"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "InteropTests", dependencies: ["InteropServer", "RPC", "Contracts", "TestSupport", "CryptoCore"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "IOLoop", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "Auth", "Contracts", "CryptoCore", "Postgres", "RPC", "Runtime", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "Auth", "Contracts", "CryptoCore", "Postgres", "RPC", "Runtime",
                                                           "TestSupport"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "ProductionTests", dependencies: ["Production", "Auth", "Contracts", "Postgres", "RPC", "Runtime", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "MessagingTests", dependencies: ["Messaging", "Auth", "Contracts", "CryptoCore", "HTTP2", "Postgres", "RPC",
                                                           "Runtime", "IOLoop",
                                                           "TestSupport"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "MediaTests", dependencies: ["Media", "Auth", "Contracts", "CryptoCore", "CVips", "Postgres", "RPC", "Runtime", "TestSupport"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "GatewayClientTests", dependencies: ["GatewayClient", "GatewayClientHTTP2", "Contracts", "RPC", "TestSupport", "Journeys",
                                                            "CryptoCore", "HTTP2", "Wire", "Auth", "Runtime",
                                                            .product(name: "Logging", package: "swift-log")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime", "IOLoop", "RPC", "Contracts", "Postgres", "TestSupport", "Auth"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "ProtocGenTests", dependencies: ["ProtocGen", "Contracts", "RPC", "Wire", "TestSupport"],
                    exclude: ["Fixtures"], swiftSettings: swiftSettings),
        .testTarget(name: "CLITests", dependencies: ["RendezvousCLI", "TestSupport", "CVips", "CryptoCore"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "RPC", "Contracts", "CryptoCore"],
                    swiftSettings: swiftSettings),
    ]
)
