import Foundation
import Testing
@testable import JewzruxinAuth

@Suite("Basic authentication (RFC 7617)")
struct BasicCredentialsTests {
    @Test("The sandbox user encodes to the documented header")
    func sandboxUser() {
        #expect(BasicCredentials.basicAuthorization(username: "test", password: "12345") == "Basic dGVzdDoxMjM0NQ==")
    }

    @Test("Decoding tolerates scheme case and whitespace; passwords may contain colons")
    func decoding() {
        #expect(BasicCredentials(authorization: "basic   dGVzdDoxMjM0NQ==  ")
            == BasicCredentials(username: "test", password: "12345"))
        let colon = BasicCredentials(username: "u", password: "a:b:c")
        #expect(BasicCredentials(authorization: colon.authorizationValue) == colon)
        let empty = BasicCredentials(username: "", password: "")
        #expect(empty.authorizationValue == "Basic Og==")
        #expect(BasicCredentials(authorization: "Basic Og==") == empty)
    }

    @Test("Bad Basic credentials are rejected", arguments: [
        "", "Basic", "Basic ", "Bearer dGVzdDoxMjM0NQ==", "Basic !!!!", "Basic dGVzdA==",
        "Basic /w==", "Basic realm=\"x\"", "Digest username=\"test\"",
    ])
    func rejects(value: String) {
        #expect(BasicCredentials(authorization: value) == nil)
    }
}

@Suite("Basic authentication: encodings and edge cases")
struct BasicCredentialsEdgeTests {
    @Test("Non-ASCII user names and passwords round-trip as UTF-8", arguments: [
        ("Jäsøn Doe", "Secret, or not?"), ("用户", "密码"), ("tab\tuser", "pass word "), ("a", "☃:☃"),
    ])
    func roundTrip(username: String, password: String) throws {
        let header = BasicCredentials.basicAuthorization(username: username, password: password)
        let token = try #require(header.split(separator: " ").last)
        let decoded = try #require(Data(base64Encoded: String(token)))
        #expect(decoded == Data("\(username):\(password)".utf8))
        #expect(BasicCredentials(authorization: header) == BasicCredentials(username: username, password: password))
    }

    @Test("Only the first element of an Authorization value is read")
    func firstElementOnly() {
        #expect(BasicCredentials(authorization: "Basic dGVzdDoxMjM0NQ==, Bearer x")?.username == "test")
        #expect(BasicCredentials(authorization: "Bearer x, Basic dGVzdDoxMjM0NQ==") == nil)
    }

    @Test("Base64 without padding is rejected (RFC 7617 uses padded base64)")
    func unpadded() {
        #expect(BasicCredentials(authorization: "Basic dGVzdDoxMjM0NQ") == nil)
    }
}
