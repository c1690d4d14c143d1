import Foundation
import Synchronization
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinAuth
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The security items of issue #9 that had no test yet: credentials never go as Basic to a server
// that asked for Digest only; a download never follows a symbolic link planted at its destination;
// a redirect to another origin doesn't carry the caller's Authorization and Cookie headers.
// (Owner-only files by default and other permissions on request are covered by WriterTests and
// TransferTests.)

/// The `Authorization` headers a route received, in order (`nil` for a request without one).
final class AuthorizationLog: Sendable {
    private let values = Mutex<[String?]>([])

    func record(_ request: SandboxRequest) { values.withLock { $0.append(request.headers["Authorization"]) } }
    var all: [String?] { values.withLock { $0 } }
    /// Whether any request carried Basic credentials.
    var sawBasic: Bool { all.contains { $0?.lowercased().hasPrefix("basic") == true } }
}

/// A 401 with these `WWW-Authenticate` headers.
func challengeResponse(_ challenges: [String]) -> SandboxResponse {
    var response = SandboxResponse.text("Unauthorized", status: 401)
    for challenge in challenges { response.headers.add("WWW-Authenticate", challenge) }
    return response
}

/// Whether `request` carries a right Digest answer for user test / 12345 and nonce `nonce-1`.
func isValidDigest(_ request: SandboxRequest) -> Bool {
    guard let header = request.headers["Authorization"], let answer = DigestAuthorization(headerValue: header) else { return false }
    return answer.verify(username: "test", password: "12345", method: request.method, issuedNonce: "nonce-1") == .valid
}

@Suite("Security (issue #9)", .onEveryTransport)
struct SecurityTests {
    static let good = BasicAuthentication(username: "test", password: "12345")
    static let wrong = BasicAuthentication(username: "test", password: "54321")

    // MARK: Digest credentials never go as Basic

    /// Serves `path` behind Digest (MD5, qop=auth, user test / 12345), also offering `extra`
    /// challenges; the log gets every request's `Authorization`.
    static func digestRoute(_ sandbox: Sandbox, _ path: String, extra: [String] = [], algorithm: String = "MD5") -> AuthorizationLog {
        let log = AuthorizationLog()
        sandbox.route(path) { request in
            log.record(request)
            let challenge = DigestChallenge(realm: "r", nonce: "nonce-1", opaque: "o", algorithmName: algorithm).headerValue
            guard isValidDigest(request) else { return challengeResponse([challenge] + extra) }
            return .text("Hello World")
        }
        return log
    }

    @Test("a Digest-only server gets a Digest answer, never Basic, for right and wrong credentials")
    func digestOnlyNeverBasic() async throws {
        try await withSandbox { sandbox in
            let log = Self.digestRoute(sandbox, "/digest-only/")
            let session = makeSession()
            let cycle = try await HTTPCycle.get(sandbox.string("/digest-only/"), authentications: [Self.good], session: session)
            #expect(cycle.response.text == "Hello World")

            let refused = try await outcome {
                try HTTPCycle.get(sandbox.string("/digest-only/"), authentications: [Self.wrong], session: session, completionHandler: $0)
            }
            #expect((refused.error as? HTTPError)?.statusCode == 401)

            // Session-level credentials, and a POST with a body, the same.
            session.authentications = [Self.good]
            let post = try await HTTPCycle.post(sandbox.string("/digest-only/"), requestObject: Data("payload".utf8),
                                                requestProcessors: [HTTPDataProcessor()], session: session)
            #expect(post.response.text == "Hello World")

            let sent = log.all
            #expect(sent.count == 6, "\(sent)")
            #expect(!log.sawBasic, "Basic credentials were sent: \(sent)")
            #expect(sent.compactMap { $0 }.allSatisfy { $0.hasPrefix("Digest ") }, "\(sent)")
            #expect(sent.enumerated().allSatisfy { ($0.offset % 2 == 0) == ($0.element == nil) }, "each run: unauthenticated, then one answer")
        }
    }

    @Test("a Digest challenge the library can't answer ends in the 401; no Basic instead")
    func unusableDigestNoBasicFallback() async throws {
        try await withSandbox { sandbox in
            let log = Self.digestRoute(sandbox, "/digest-sha512/", algorithm: "SHA-512-256")
            let result = try await outcome {
                try HTTPCycle.get(sandbox.string("/digest-sha512/"), authentications: [Self.good], session: makeSession(), completionHandler: $0)
            }
            #expect((result.error as? HTTPError)?.statusCode == 401)
            #expect(log.all == [nil], "one request, no answer")
        }
    }

    @Test("offered Digest and Basic, the answer is Digest", arguments: [false, true])
    func digestPreferredOverBasic(basicFirst: Bool) async throws {
        try await withSandbox { sandbox in
            // Basic as a separate header, listed before or after Digest.
            let log = Self.digestRoute(sandbox, "/both/", extra: ["Basic realm=\"r\""])
            sandbox.route("/basic-first/") { request in
                log.record(request)
                let digest = DigestChallenge(realm: "r", nonce: "nonce-1", opaque: "o").headerValue
                guard isValidDigest(request) else { return challengeResponse(["Basic realm=\"r\"", digest]) }
                return .text("Hello World")
            }
            let path = basicFirst ? "/basic-first/" : "/both/"
            let cycle = try await HTTPCycle.get(sandbox.string(path), authentications: [Self.good], session: makeSession())
            #expect(cycle.response.text == "Hello World")
            #expect(!log.sawBasic, "\(log.all)")
            #expect(log.all.count == 2)
        }
    }

    // MARK: Downloads and symbolic links

    /// A directory with `victim.txt` ("secret", 0644) and `link`, a symbolic link to it (or, when
    /// `dangling`, to `absent.txt`, which doesn't exist).
    static func plantLink(in directory: URL, dangling: Bool = false) throws -> (link: URL, victim: URL) {
        let victim = directory.appendingPathComponent(dangling ? "absent.txt" : "victim.txt")
        if !dangling {
            try Data("secret".utf8).write(to: victim)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: victim.path)
        }
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim.path)
        return (link, victim)
    }

    // FileWriters get explicit acceptance rules: ClassDefaultsTests changes the class defaults
    // while other suites run.

    static func isSymbolicLink(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    static func permissions(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? NSNumber).intValue
    }

    @Test("a FileWriter replaces a symbolic link at its destination, never writing through it", arguments: [false, true])
    func fileWriterDoesNotFollowLink(dangling: Bool) async throws {
        try await withSandbox { sandbox in
            try await withTemporaryDirectory { directory in
                let (link, victim) = try Self.plantLink(in: directory, dangling: dangling)
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/bytes/3000"), handler: FileWriter(url: link, acceptableResponses: [200], acceptableContentTypes: []), session: session)
                #expect(result.error == nil)
                #expect(!Self.isSymbolicLink(link), "the link was replaced by the download")
                #expect(try Data(contentsOf: link) == SandboxBody.expectedPattern(count: 3000))
                #expect(try Self.permissions(link) == 0o600)
                if dangling {
                    #expect(!FileManager.default.fileExists(atPath: victim.path), "nothing was created at the link's target")
                } else {
                    #expect(try String(contentsOf: victim, encoding: .utf8) == "secret", "the link's target is untouched")
                    #expect(try Self.permissions(victim) == 0o644)
                }
                await session.drain()
            }
        }
    }

    @Test("a failed FileWriter download leaves the planted link and its target as they were")
    func failedDownloadLeavesLink() async throws {
        try await withSandbox { sandbox in
            try await withTemporaryDirectory { directory in
                let (link, victim) = try Self.plantLink(in: directory)
                let session = makeSession()
                session.retryPolicy.maximumRetryCount = 0
                for path in ["/status/404", "/drop/?after=1000"] {
                    let result = try await fetchContent(sandbox.string(path), handler: FileWriter(url: link, acceptableResponses: [200], acceptableContentTypes: []), session: session)
                    #expect(result.error != nil)
                    #expect(Self.isSymbolicLink(link))
                    #expect(try String(contentsOf: victim, encoding: .utf8) == "secret")
                    #expect(try directoryListing(directory) == ["link", "victim.txt"])
                }
                await session.drain()
            }
        }
    }

    @Test("HTTPCycle.download writes an owner-only file of its own in the download directory, beside a planted link")
    func downloadIgnoresPlantedLinks() async throws {
        try await withSandbox { sandbox in
            try await withTemporaryDirectory { directory in
                let (_, victim) = try Self.plantLink(in: directory)
                let session = makeSession()
                session.downloadDirectory = directory
                let seen = Mutex<(path: String, permissions: Int, link: Bool)?>(nil)
                try await HTTPCycle.download(sandbox.string("/bytes/2000"), session: session) { _, location in
                    let permissions = (try? Self.permissions(location)) ?? -1
                    seen.withLock { $0 = (location.path, permissions, Self.isSymbolicLink(location)) }
                }
                let file = try #require(seen.withLock { $0 })
                #expect(file.permissions == 0o600)
                #expect(!file.link)
                #expect(URL(fileURLWithPath: file.path).deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(try String(contentsOf: victim, encoding: .utf8) == "secret")
                await session.drain()
                #expect(try directoryListing(directory) == ["link", "victim.txt"], "the download is gone after its handler")
            }
        }
    }

    // MARK: Redirects to another origin

    /// Sends a GET with the caller's `Authorization`, `Cookie` and a custom header to `url`, which
    /// redirects to an `/inspect/` page; the headers that page got.
    static func headersAfterRedirect(_ url: String, session: HTTPSession) async throws -> Inspection {
        let cycle = HTTPCycle(requestURL: try #require(URL(string: url)), session: session)
        cycle.request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        cycle.request.setValue("session=secret-cookie", forHTTPHeaderField: "Cookie")
        cycle.request.setValue("kept", forHTTPHeaderField: "X-Custom")
        try await cycle.start()
        #expect(cycle.response.statusCode == 200)
        return try Inspection(cycle.response)
    }

    /// A session that sends no cookies of its own, so `Cookie` is only ever the caller's.
    static func redirectSession() -> HTTPSession {
        makeSession { $0.httpShouldSetCookies = false }
    }

    @Test("a redirect to another port drops the caller's Authorization and Cookie, keeps other headers", arguments: [301, 302, 303, 307, 308])
    func crossOriginRedirect(status: Int) async throws {
        try await withSandbox { origin in
            try await withSandbox { other in
                let target = other.string("/inspect/")
                let url = origin.string("/redirect/?code=\(status)&to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)")
                let inspection = try await Self.headersAfterRedirect(url, session: Self.redirectSession())
                #expect(inspection.path == "/inspect/")
                #expect(inspection.values("Authorization").isEmpty, "\(inspection.headers)")
                #expect(inspection.values("Cookie").isEmpty, "\(inspection.headers)")
                #expect(inspection.values("X-Custom") == ["kept"])
            }
        }
    }

    @Test("a redirect on the same origin keeps the caller's Authorization and Cookie", arguments: [301, 302, 303, 307, 308])
    func sameOriginRedirect(status: Int) async throws {
        try await withSandbox { sandbox in
            let inspection = try await Self.headersAfterRedirect(
                sandbox.string("/redirect/?code=\(status)&to=%2Finspect%2F"), session: Self.redirectSession())
            #expect(inspection.path == "/inspect/")
            #expect(inspection.values("Authorization") == ["Bearer secret-token"])
            #expect(inspection.values("Cookie") == ["session=secret-cookie"])
            #expect(inspection.values("X-Custom") == ["kept"])

            // An absolute Location naming the same origin is the same origin.
            let absolute = sandbox.string("/inspect/").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let again = try await Self.headersAfterRedirect(
                sandbox.string("/redirect/?code=\(status)&to=\(absolute)"), session: Self.redirectSession())
            #expect(again.values("Authorization") == ["Bearer secret-token"])
            #expect(again.values("Cookie") == ["session=secret-cookie"])
        }
    }

    @Test("after a cross-origin hop, credentials stay dropped even when the chain comes back", arguments: [302, 307])
    func crossOriginThenBack(status: Int) async throws {
        try await withSandbox { origin in
            try await withSandbox { other in
                // origin → other/redirect → origin/inspect: the second hop is back on the first origin,
                // but the request that reaches it has lost the credentials on the way.
                let back = origin.string("/inspect/").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let hop = other.string("/redirect/?code=\(status)&to=\(back)")
                let url = origin.string("/redirect/?code=\(status)&to=\(hop.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? hop)")
                let inspection = try await Self.headersAfterRedirect(url, session: Self.redirectSession())
                #expect(inspection.path == "/inspect/")
                #expect(inspection.values("Authorization").isEmpty, "\(inspection.headers)")
                #expect(inspection.values("Cookie").isEmpty, "\(inspection.headers)")
            }
        }
    }

    @Test("origins differ by scheme, host or port (default ports included)", arguments: [
        ("http://a.example/x", "http://a.example:80/y", true),
        ("https://a.example/x", "https://A.EXAMPLE:443/y", true),
        ("http://a.example/x", "https://a.example/x", false),
        ("http://a.example/x", "http://b.example/x", false),
        ("http://a.example:8080/x", "http://a.example:8081/x", false),
        ("http://127.0.0.1:8080/x", "http://localhost:8080/x", false),
    ])
    func origins(a: String, b: String, same: Bool) throws {
        #expect(try #require(URL(string: a)).hasSameOrigin(as: try #require(URL(string: b))) == same)
    }
}
