// swift-tools-version: 6.1
import PackageDescription

// The library depends on no package. The bridges to the server ecosystem's packages are products
// of this package too, each behind a package trait of its own (SE-0450), none enabled by default:
// a project that enables no trait resolves, fetches and builds no other package (`.ci/run` checks
// it with a consumer package), and one that names a trait gets that bridge's one dependency:
//
//     .package(url: "<this repository>", from: "…", traits: ["OpenAPI"])
//     .product(name: "JewzruxinOpenAPI", package: "Jewzruxin")
//
// Without its trait a bridge's module is empty but for a diagnostic (`TraitRequired.swift`).
let package = Package(
    name: "Jewzruxin",
    // The engine's clocks (`ContinuousClock`, `Duration`) and Swift concurrency.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Jewzruxin", targets: ["Jewzruxin"]),
        .library(name: "JewzruxinSandbox", targets: ["JewzruxinSandbox"]),
        .library(name: "JewzruxinFluent", targets: ["JewzruxinFluent"]),
        .library(name: "JewzruxinTesting", targets: ["JewzruxinTesting"]),
        .executable(name: "playground", targets: ["playground"]),
        // The bridges, each with the trait of the same name (`HTTPTypes` for JewzruxinHTTPTypes…).
        // A swift-openapi-runtime `ClientTransport` over a session (trait `OpenAPI`, which enables `HTTPTypes`).
        .library(name: "JewzruxinOpenAPI", targets: ["JewzruxinOpenAPI"]),
        // Conversions to and from swift-http-types, and session calls that take and return them.
        .library(name: "JewzruxinHTTPTypes", targets: ["JewzruxinHTTPTypes"]),
        // An event monitor that logs through a swift-log `Logger`.
        .library(name: "JewzruxinLogging", targets: ["JewzruxinLogging"]),
        // An event monitor that records OpenTelemetry's HTTP client metrics through swift-metrics.
        .library(name: "JewzruxinMetrics", targets: ["JewzruxinMetrics"]),
        // Spans per request and per attempt through swift-distributed-tracing, the context injected.
        .library(name: "JewzruxinTracing", targets: ["JewzruxinTracing"]),
    ],
    traits: [
        .trait(name: "OpenAPI", description: "JewzruxinOpenAPI: a swift-openapi-runtime ClientTransport.", enabledTraits: ["HTTPTypes"]),
        .trait(name: "HTTPTypes", description: "JewzruxinHTTPTypes: conversions to and from swift-http-types."),
        .trait(name: "Logging", description: "JewzruxinLogging: an event monitor that logs through swift-log."),
        .trait(name: "Metrics", description: "JewzruxinMetrics: OpenTelemetry's HTTP client metrics through swift-metrics."),
        .trait(name: "Tracing", description: "JewzruxinTracing: spans through swift-distributed-tracing."),
        .default(enabledTraits: []),
    ],
    // Each used only by the bridge of its trait: with the trait off, SwiftPM neither resolves nor
    // fetches it.
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .target(name: "Jewzruxin", dependencies: ["JewzruxinAuth", "JewzruxinPrimitives", "CJewzruxinCurl", "CJewzruxinPublicSuffix"]),
        .target(name: "JewzruxinSandbox", dependencies: ["JewzruxinAuth", "JewzruxinPrimitives"]),
        // Swallow-style `WebService` / `ServiceTask` chains over the core `HTTPCycle` engine.
        .target(name: "JewzruxinFluent", dependencies: ["Jewzruxin"]),
        // Test doubles for code built on the library: `MockSession`, a transport that answers from stubs.
        .target(name: "JewzruxinTesting", dependencies: ["Jewzruxin"]),
        // Hashes, auth-param parsing and Digest computation shared by the client and the sandbox;
        // not a product: its API is `package`-level.
        .target(name: "JewzruxinAuth", dependencies: ["JewzruxinPrimitives"]),
        // The lock and the other low-level pieces the client and the sandbox share; not a product:
        // its API is `package`-level.
        .target(name: "JewzruxinPrimitives"),
        // The system's libcurl for the curl transport, and the zlib, brotli and zstd it links for
        // the transport's own decoding, opened with dlopen at run time: no header to build, no
        // library to link. Only `Transports/Curl` imports it.
        .target(name: "CJewzruxinCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The system's libpsl (the Public Suffix List libcurl links), opened with dlopen at run time
        // the same way, for the cookie jar's check of a cookie's Domain. Only the engine's cookie
        // jar imports it.
        .target(name: "CJewzruxinPublicSuffix", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The REPL of `swift run playground`: the command logic (tested directly) and a thin executable.
        .target(
            name: "PlaygroundKit",
            dependencies: ["Jewzruxin", "JewzruxinSandbox", "JewzruxinPrimitives"],
            path: "Playground-CLI/Sources/PlaygroundKit"
        ),
        // The README's first example as a program: `swift run quickstart`.
        .executableTarget(name: "quickstart", dependencies: ["Jewzruxin", "JewzruxinSandbox"], path: "Examples/QuickStart"),
        .executableTarget(
            name: "playground",
            dependencies: ["PlaygroundKit"],
            path: "Playground-CLI/Sources/playground"
        ),
        // What the network suites share: running each test on every transport.
        .target(
            name: "JewzruxinTestSupport",
            dependencies: ["Jewzruxin", "JewzruxinPrimitives"],
            path: "Tests/JewzruxinTestSupport"
        ),
        // The bridges. Every source file is compiled only with its trait (`#if Logging` …).
        // What the metrics and tracing bridges share (OpenTelemetry's `error.type`); not a product.
        .target(name: "JewzruxinOpenTelemetryNames", dependencies: ["Jewzruxin"]),
        .target(
            name: "JewzruxinHTTPTypes",
            dependencies: ["Jewzruxin", .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"]))]
        ),
        .target(
            name: "JewzruxinOpenAPI",
            dependencies: [
                "Jewzruxin", "JewzruxinHTTPTypes",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ]
        ),
        .target(
            name: "JewzruxinLogging",
            dependencies: ["Jewzruxin", "JewzruxinPrimitives", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"]))]
        ),
        .target(
            name: "JewzruxinMetrics",
            dependencies: [
                "Jewzruxin", "JewzruxinPrimitives", "JewzruxinOpenTelemetryNames",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ]
        ),
        .target(
            name: "JewzruxinTracing",
            dependencies: [
                "Jewzruxin", "JewzruxinPrimitives", "JewzruxinOpenTelemetryNames",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ]
        ),
        .testTarget(
            name: "JewzruxinTests",
            dependencies: [
                "Jewzruxin", "JewzruxinSandbox", "JewzruxinAuth", "JewzruxinPrimitives", "JewzruxinTestSupport", "JewzruxinTesting",
            ],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "JewzruxinFluentTests",
            dependencies: ["JewzruxinFluent", "Jewzruxin", "JewzruxinSandbox", "JewzruxinTestSupport", "JewzruxinTesting", "quickstart"]
        ),
        .testTarget(
            name: "JewzruxinSandboxTests",
            dependencies: ["JewzruxinSandbox", "JewzruxinPrimitives", "JewzruxinAuth", "JewzruxinTestSupport"]
        ),
        .testTarget(
            name: "JewzruxinAuthTests",
            dependencies: ["JewzruxinAuth"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "PlaygroundTests",
            dependencies: ["PlaygroundKit", "playground", "Jewzruxin", "JewzruxinSandbox", "JewzruxinTestSupport", "JewzruxinAuth"]
        ),
        // The bridges' tests, one target for the five (one link instead of five), a folder per bridge;
        // each file compiled only with its trait: `swift test --enable-all-traits --filter
        // JewzruxinIntegrationsTests`. The OpenAPI client in it was generated once and committed (see
        // Generated/README.md), so no generator or plugin is built here.
        .testTarget(
            name: "JewzruxinIntegrationsTests",
            dependencies: [
                "JewzruxinOpenAPI", "JewzruxinHTTPTypes", "JewzruxinLogging", "JewzruxinMetrics", "JewzruxinTracing",
                "Jewzruxin", "JewzruxinSandbox",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ],
            exclude: ["OpenAPI/Generated/openapi.yaml", "OpenAPI/Generated/openapi-generator-config.yaml", "OpenAPI/Generated/README.md"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
