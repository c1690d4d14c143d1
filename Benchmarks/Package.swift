// swift-tools-version: 6.0
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "JewzruxinBenchmarks",
    dependencies: [
        .package(path: ".."),
        // The throughput section's reference client; the library itself depends on nothing.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Its TLS settings, to trust the https server's certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                .product(name: "Jewzruxin", package: rootFolder.lastPathComponent),
                // The loopback server the content-handler benchmark downloads from.
                .product(name: "JewzruxinSandbox", package: rootFolder.lastPathComponent),
                // The fluent `WebService` chains the throughput section measures.
                .product(name: "JewzruxinFluent", package: rootFolder.lastPathComponent),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "CLibcurlDirect",
            ]
        ),
        // libcurl called directly from C: the floor under the curl transport's rows.
        .target(name: "CLibcurlDirect", linkerSettings: [.linkedLibrary("dl")]),
    ],
    swiftLanguageModes: [.v6]
)
