// Fuzz target `authenticate`: WWW-Authenticate parsing, and the Digest answer to each parsed
// challenge, checked by the server-side verification.
//
// Input: the header value; after a NUL byte, the request body (for `qop=auth-int`).
import Foundation
@testable import Jewzruxin
import JewzruxinAuth

private func fail(_ message: String) -> Never {
    fatalError("authenticate fuzz invariant: \(message)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let header = parts.isEmpty ? "" : String(decoding: Array(parts[0]), as: UTF8.self)
    let body: [UInt8]? = parts.count > 1 ? Array(parts[1]) : nil
    let challenges = AuthenticationChallenge.parse(header)
    _ = AuthenticationChallenge.parse(headerValues: header.split(separator: "\n").map(String.init))
    for challenge in challenges {
        if challenge.scheme.isEmpty { fail("empty scheme") }
        _ = challenge.hasScheme("Basic")
    }
    _ = DigestChallenge.preferred(in: challenges)
    let credentials = DigestCredentials(username: "Mufasa", password: "Circle of Life")
    for challenge in challenges {
        guard let digest = DigestChallenge(challenge) else { continue }
        _ = digest.chooseQOP(bodyIsKnown: body != nil)
        guard let authorization = credentials.authorization(
            for: digest, method: "GET", uri: "/dir/index.html", entityBody: body, clientNonce: "0a4f113b", nonceCount: 1)
        else { continue }
        // What the client sends parses back, on the server side, to the same credentials, and
        // verifies with the same password.
        let header = authorization.headerValue
        // Control characters can't travel in a header: `quoted` drops them (never CR/LF injection).
        if header.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            fail("control character in the Authorization value: \(header)")
        }
        // Values that held some can't round-trip; the rest must.
        let fields = [digest.realm, digest.nonce, digest.opaque ?? ""]
        if fields.contains(where: { $0.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F } }) { continue }
        guard let parsed = DigestAuthorization(headerValue: header) else { fail("answer does not parse: \(header)") }
        if parsed != authorization { fail("answer parses differently: \(header)") }
        let verdict = parsed.verify(
            username: "Mufasa", password: "Circle of Life", method: "GET", entityBody: body, issuedNonce: digest.nonce)
        if verdict != DigestVerification.valid { fail("answer does not verify (\(verdict)): \(header)") }
        if parsed.verify(username: "Mufasa", password: "wrong", method: "GET", entityBody: body, issuedNonce: digest.nonce) != DigestVerification.invalid {
            fail("a wrong password verifies")
        }
    }
    return 0
}
