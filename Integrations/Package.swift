// swift-tools-version: 6.0
import PackageDescription

// Bridges from Jewzruxin to the server ecosystem's packages. A package of its own, so that the
// library's Package.swift keeps no dependency: an app adds the one product it wants from here.
let package = Package(
    name: "JewzruxinIntegrations",
    // Mutex (Synchronization) guards the monitors' state; on Linux it is always there.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // A ClientTransport for swift-openapi-runtime: a generated client over an HTTPSession.
        .library(name: "JewzruxinOpenAPI", targets: ["JewzruxinOpenAPI"]),
        // Conversions to and from swift-http-types, and a session call that takes and returns them.
        .library(name: "JewzruxinHTTPTypes", targets: ["JewzruxinHTTPTypes"]),
        // An event monitor that logs through a swift-log Logger.
        .library(name: "JewzruxinLogging", targets: ["JewzruxinLogging"]),
        // An event monitor that records OpenTelemetry's HTTP client metrics through swift-metrics.
        .library(name: "JewzruxinMetrics", targets: ["JewzruxinMetrics"]),
        // Spans per request and per attempt through swift-distributed-tracing, the context injected.
        .library(name: "JewzruxinTracing", targets: ["JewzruxinTracing"]),
    ],
    dependencies: [
        .package(name: "Jewzruxin", path: ".."),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        // What the metrics and tracing bridges share (OpenTelemetry's `error.type`); not a product.
        .target(
            name: "JewzruxinOpenTelemetryNames",
            dependencies: [.product(name: "Jewzruxin", package: "Jewzruxin")]
        ),
        .target(
            name: "JewzruxinHTTPTypes",
            dependencies: [
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "JewzruxinOpenAPI",
            dependencies: [
                "JewzruxinHTTPTypes",
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "JewzruxinLogging",
            dependencies: [
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "JewzruxinMetrics",
            dependencies: [
                "JewzruxinOpenTelemetryNames",
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "JewzruxinTracing",
            dependencies: [
                "JewzruxinOpenTelemetryNames",
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // One test target for the five products (one link instead of five), a folder per product.
        // The OpenAPI client in it was generated once and committed (see Generated/README.md), so
        // no generator or plugin is built here.
        .testTarget(
            name: "JewzruxinIntegrationsTests",
            dependencies: [
                "JewzruxinOpenAPI", "JewzruxinHTTPTypes", "JewzruxinLogging", "JewzruxinMetrics", "JewzruxinTracing",
                .product(name: "Jewzruxin", package: "Jewzruxin"),
                .product(name: "JewzruxinSandbox", package: "Jewzruxin"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            exclude: ["OpenAPI/Generated/openapi.yaml", "OpenAPI/Generated/openapi-generator-config.yaml", "OpenAPI/Generated/README.md"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
