// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Jewzruxin",
    products: [
        .library(name: "Jewzruxin", targets: ["Jewzruxin"]),
        .library(name: "JewzruxinSandbox", targets: ["JewzruxinSandbox"]),
        .library(name: "JewzruxinFluent", targets: ["JewzruxinFluent"]),
    ],
    targets: [
        .target(name: "Jewzruxin", dependencies: ["JewzruxinAuth"]),
        .target(name: "JewzruxinSandbox", dependencies: ["JewzruxinAuth"]),
        // Swallow-style `WebService` / `ServiceTask` chains over the core `HTTPCycle` engine.
        .target(name: "JewzruxinFluent", dependencies: ["Jewzruxin"]),
        // Hashes, auth-param parsing and Digest computation shared by the client and the sandbox;
        // not a product: its API is `package`-level.
        .target(name: "JewzruxinAuth"),
        .testTarget(
            name: "JewzruxinTests",
            dependencies: ["Jewzruxin", "JewzruxinSandbox", "JewzruxinAuth"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "JewzruxinFluentTests",
            dependencies: ["JewzruxinFluent", "Jewzruxin", "JewzruxinSandbox"]
        ),
        .testTarget(
            name: "JewzruxinSandboxTests",
            dependencies: ["JewzruxinSandbox"]
        ),
        .testTarget(
            name: "JewzruxinAuthTests",
            dependencies: ["JewzruxinAuth"],
            resources: [.copy("Resources")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
