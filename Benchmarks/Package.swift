// swift-tools-version: 6.0
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which is whatever the clone is called.
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "JewzruxinBenchmarks",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                .product(name: "Jewzruxin", package: rootFolder.lastPathComponent),
                // The loopback server the content-handler benchmark downloads from.
                .product(name: "JewzruxinSandbox", package: rootFolder.lastPathComponent),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
