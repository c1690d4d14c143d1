// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A project that enables one trait, `Logging` (`.ci/run` builds and runs it with
// Scripts/consumer-check.sh): it gets the swift-log bridge and swift-log, and no other package.
// A path dependency is named after its folder, which is whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
let jewzruxin = root.lastPathComponent

let package = Package(
    name: "one-trait",
    dependencies: [
        .package(path: root.path, traits: ["Logging"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(name: "app", dependencies: [
            .product(name: "Jewzruxin", package: jewzruxin),
            .product(name: "JewzruxinLogging", package: jewzruxin),
            .product(name: "JewzruxinSandbox", package: jewzruxin),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
