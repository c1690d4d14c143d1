// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Jewzruxin",
    products: [
        .library(name: "Jewzruxin", targets: ["Jewzruxin"]),
        .library(name: "JewzruxinSandbox", targets: ["JewzruxinSandbox"]),
    ],
    targets: [
        .target(name: "Jewzruxin"),
        .target(name: "JewzruxinSandbox"),
        .testTarget(
            name: "JewzruxinTests",
            dependencies: ["Jewzruxin", "JewzruxinSandbox"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "JewzruxinSandboxTests",
            dependencies: ["JewzruxinSandbox"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
