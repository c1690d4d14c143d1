// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Jewzruxin",
    products: [
        .library(name: "Jewzruxin", targets: ["Jewzruxin"]),
        .library(name: "JewzruxinSandbox", targets: ["JewzruxinSandbox"]),
        .library(name: "JewzruxinFluent", targets: ["JewzruxinFluent"]),
        .library(name: "JewzruxinTesting", targets: ["JewzruxinTesting"]),
        .executable(name: "playground", targets: ["playground"]),
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
    ],
    swiftLanguageModes: [.v6]
)
