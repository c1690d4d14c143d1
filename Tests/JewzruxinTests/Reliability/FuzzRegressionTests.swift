import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinAuth

/// Inputs found by the fuzz targets of `Fuzz/` (see `Fuzz/fuzz.sh`), kept as regression tests.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// `authenticate`: a Digest challenge whose realm holds control characters (here U+0001 and
    /// a form feed). They can't travel in a header, so the answer drops them instead of sending
    /// them (no CR/LF injection into the Authorization field).
    @Test func digestAnswerToAChallengeWithControlCharactersHasNone() throws {
        let header = "Basic realm=\"x\", Digest realm=\"testrealm@h\u{93}st.c\u{01}\u{0C}\", qop=\"auth,auth'-int\", "
            + "nonce=\"dcd49b7102dd2f0e8b11d0F600bfb0c093\", opaque=\"t5ccc069c403ebaf9f0171e9517f40e41\""
        let challenges = AuthenticationChallenge.parse(header)
        let digest = try #require(challenges.lazy.compactMap(DigestChallenge.init).first)
        let answer = try #require(DigestCredentials(username: "Mufasa", password: "Circle of Life").authorization(
            for: digest, method: "GET", uri: "/dir/index.html", clientNonce: "0a4f113b"))
        let value = answer.headerValue
        #expect(!value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F })
        #expect(DigestAuthorization(headerValue: value) != nil)
    }

    /// `profile`: a property list that doesn't parse is reported as unreadable (the parse error
    /// path, where Foundation leaks its CFError; see Scripts/lsan.supp).
    @Test func invalidPropertyListProfileIsUnreadable() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-regression-\(UUID()).plist")
        try Data("<?xml version=\"1.0\"?><plist><dict><key>Resources</key><array>".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: HTTPServiceError.self) { try HTTPService.readProfileDictionary(at: url) }
    }
}
