// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A project that enables none of the package's traits (`.ci/run` builds it with Scripts/consumer-check.sh):
// it must resolve, fetch and build no package but this one. A path dependency is named after its
// folder, which is whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
let jewzruxin = root.lastPathComponent

let package = Package(
    name: "no-traits",
    dependencies: [.package(path: root.path)],
    targets: [
        .executableTarget(name: "app", dependencies: [
            .product(name: "Jewzruxin", package: jewzruxin),
            .product(name: "JewzruxinSandbox", package: jewzruxin),
        ]),
        // Names a bridge's product without its trait: built on its own, it must fail with the
        // message that says which trait to enable.
        .executableTarget(name: "forgot-trait", dependencies: [.product(name: "JewzruxinLogging", package: jewzruxin)]),
    ]
)
