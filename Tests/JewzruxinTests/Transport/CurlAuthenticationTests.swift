import Foundation
import Testing
@testable import Jewzruxin

/// What the curl transport hands libcurl for NTLM and Negotiate, and how it reads the several
/// heads of a handshake: no network.
@Suite("Curl transport: NTLM and Negotiate handshakes")
struct CurlAuthenticationTests {
    static let url = URL(string: "http://intranet.example/report")!

    /// Feeds `lines` (each without its CR LF) to `reader`; returns the heads `read` returned.
    static func feed(_ reader: inout CurlHeadReader, _ lines: [String]) throws -> [CurlHeadReader.Head] {
        var ended: [CurlHeadReader.Head] = []
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            if let head = try bytes.withUnsafeBytes({ try reader.read($0) }) { ended.append(head) }
        }
        return ended
    }

    static let challenge = ["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: NTLM TlRMTVNTUAACAAAA", "Set-Cookie: a=1", "Content-Length: 12", ""]
    static let refusal = ["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: NTLM", "Content-Length: 12", ""]
    static let success = ["HTTP/1.1 200 OK", "Content-Length: 2", ""]

    @Test("holding heads: each is held until the next replaces it; the body or the end makes the last one final")
    func holding() throws {
        var reader = CurlHeadReader()
        reader.holdsHeads = true
        let ended = try Self.feed(&reader, Self.challenge + ["HTTP/1.1 100 Continue", ""] + Self.success)
        // Both ended (so their cookies are stored); neither is final yet. The interim 100 is dropped.
        #expect(ended.map(\.status) == [401, 200])
        #expect(!reader.isDelivered)
        #expect(reader.replaced.map(\.status) == [401])
        #expect(reader.held?.status == 200)
        #expect(reader.takeHeld()?.status == 200)
        #expect(reader.isDelivered)
        #expect(reader.takeHeld() == nil)
        // After the final head, a trailer or another head is ignored.
        #expect(try Self.feed(&reader, ["X-Trailer: 1", ""] + Self.refusal).isEmpty)
    }

    @Test("without holding, the first final head is delivered and what follows is ignored, as before")
    func notHolding() throws {
        var reader = CurlHeadReader()
        let ended = try Self.feed(&reader, Self.challenge + Self.success)
        #expect(ended.map(\.status) == [401])
        #expect(reader.isDelivered)
        #expect(reader.held == nil)
        #expect(reader.replaced.isEmpty)
    }

    static let ntlmAndNegotiate: CurlLibrary.Features = [.ssl, .ntlm, .spnego, .gssapi]

    static func request(_ authentications: [any HTTPAuthenticator], authorization: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.connectionCredentials = HTTPCycle.connectionCredentials(in: authentications)
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        return request
    }

    @Test("the options: the schemes this libcurl has, Negotiate first; NTLM's DOMAIN\\user; an empty user for the system's Kerberos")
    func options() throws {
        let ntlm = NTLMAuthentication(username: "jane", password: "secret", domain: "CORP")
        let both = try #require(CurlConnectionAuthentication(for: Self.request([ntlm, NegotiateAuthentication()]), features: Self.ntlmAndNegotiate))
        #expect(both.schemes == [.negotiate, .ntlm])
        // CURLAUTH_ONLY: nothing sent until a 401 asks.
        #expect(both.bitmask == 1 << 31 | 4 | 8)
        #expect(both.username == #"CORP\jane"#)
        #expect(both.password == "secret")
        let kerberos = try #require(CurlConnectionAuthentication(for: Self.request([NegotiateAuthentication()]), features: Self.ntlmAndNegotiate))
        #expect(kerberos.bitmask == 1 << 31 | 4)
        #expect(kerberos.username == "")
        let plain = try #require(CurlConnectionAuthentication(
            for: Self.request([NTLMAuthentication(username: "jane", password: "secret")]), features: Self.ntlmAndNegotiate))
        #expect(plain.bitmask == 1 << 31 | 8)
        #expect(plain.username == "jane")
        // A libcurl without the scheme gets nothing; nor a request with an Authorization of its own.
        #expect(CurlConnectionAuthentication(for: Self.request([ntlm]), features: [.ssl, .spnego]) == nil)
        #expect(CurlConnectionAuthentication(for: Self.request([NegotiateAuthentication()]), features: [.ssl, .ntlm]) == nil)
        #expect(CurlConnectionAuthentication(for: Self.request([ntlm], authorization: "Basic eDp5"), features: Self.ntlmAndNegotiate) == nil)
        #expect(CurlConnectionAuthentication(for: Self.request([BasicAuthentication(username: "a", password: "b")]), features: Self.ntlmAndNegotiate) == nil)
    }

    static func head(_ lines: [String]) throws -> CurlHeadReader.Head? {
        var reader = CurlHeadReader()
        return try feed(&reader, lines).first
    }

    @Test("an unanswered challenge: a 401 for a handed scheme with no challenge message before it; a refusal is not one")
    func unanswered() throws {
        let ntlm = try #require(CurlConnectionAuthentication(
            for: Self.request([NTLMAuthentication(username: "jane", password: "secret")]), features: Self.ntlmAndNegotiate))
        let refusal = try #require(try Self.head(Self.refusal))
        let challenge = try #require(try Self.head(Self.challenge))
        // The handshake ran: the server sent a type 2, libcurl answered, the server refused.
        #expect(ntlm.unanswered(final: refusal, replaced: [challenge], url: Self.url) == nil)
        // No type 2 ever came.
        let silent = try #require(ntlm.unanswered(final: refusal, replaced: [], url: Self.url))
        #expect(silent.scheme == .ntlm)
        #expect(silent.reason.contains("intranet.example"))
        // Not a 401, or a challenge of another scheme.
        #expect(ntlm.unanswered(final: try #require(try Self.head(Self.success)), replaced: [], url: Self.url) == nil)
        let basic = try #require(try Self.head(["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: Basic realm=\"x\"", ""]))
        #expect(ntlm.unanswered(final: basic, replaced: [], url: Self.url) == nil)

        let both = try #require(CurlConnectionAuthentication(
            for: Self.request([NTLMAuthentication(username: "jane", password: "secret"), NegotiateAuthentication()]),
            features: Self.ntlmAndNegotiate))
        let offersBoth = try #require(try Self.head(["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: Negotiate", "WWW-Authenticate: NTLM", ""]))
        let negotiate = try #require(both.unanswered(final: offersBoth, replaced: [], url: Self.url))
        #expect(negotiate.scheme == .negotiate)
        #expect(negotiate.reason.contains("HTTP@intranet.example"))
        #expect(negotiate.reason.contains("doesn't fall back"))
    }

    @Test("the transport's word: what this libcurl was built with")
    func transportSupport() throws {
        let library = try CurlLibrary.system.get()
        let transport = CurlTransport()
        #expect((transport.unavailability(of: .ntlm) == nil) == library.features.contains(.ntlm))
        #expect((transport.unavailability(of: .negotiate) == nil) == library.features.contains(.spnego))
    }
}

