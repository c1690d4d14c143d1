import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Issue #9, security: a file written by `downloadToFile(_:)` is owner-only, and a symbolic link
// planted at its path is replaced, never written through.

@Suite("downloadToFile: file modes and planted links", .onEveryTransport)
struct DownloadSecurityTests {
    static func permissions(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? NSNumber).intValue
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// Runs `body` with a fresh directory, removed afterwards.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fluent-security-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    @Test("the file is created owner-only (0600)")
    func ownerOnly() async throws {
        try await withSandbox { sandbox in
            try await Self.withDirectory { directory in
                let path = directory.appendingPathComponent("body.bin").path
                let service = makeService(sandbox)
                _ = try await chain(on: service) { service.GET("/bytes/1000").downloadToFile(path) }.response()
                #expect(try Self.permissions(path) == 0o600)
            }
        }
    }

    @Test("a symbolic link at the path is replaced; its target is untouched")
    func plantedLink() async throws {
        try await withSandbox { sandbox in
            try await Self.withDirectory { directory in
                let victim = directory.appendingPathComponent("victim.txt").path
                try Data("secret".utf8).write(to: URL(fileURLWithPath: victim))
                let link = directory.appendingPathComponent("link").path
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)

                let service = makeService(sandbox)
                _ = try await chain(on: service) { service.GET("/bytes/1000").downloadToFile(link) }.response()
                #expect(!Self.isSymbolicLink(link))
                #expect(try Data(contentsOf: URL(fileURLWithPath: link)) == SandboxBody.expectedPattern(count: 1000))
                #expect(try Self.permissions(link) == 0o600)
                #expect(try String(contentsOf: URL(fileURLWithPath: victim), encoding: .utf8) == "secret")
            }
        }
    }
}
