// Fuzz target `ntlm`: the NTLM messages a peer sends, as JewzruxinAuth reads them — the
// server's CHALLENGE (type 2) on the client side, the client's NEGOTIATE and AUTHENTICATE
// (types 1 and 3) on the sandbox's `/auth/ntlm/` — and the `NTLM <base64>` header values that
// carry them.
//
// Input: the message's bytes; the same bytes, read as text, are also tried as a header value
// (`NTLM <base64>`), and the message it holds is read the same way.
import Foundation
@testable import JewzruxinAuth

private func fail(_ message: String) -> Never {
    fatalError("ntlm fuzz invariant: \(message)")
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.prefix(96).map { String(format: "%02x", $0) }.joined()
}

/// The bytes of the security buffer at `fieldOffset`, read independently of `ByteReader`: `nil`
/// when they aren't all inside the message.
private func securityBuffer(_ bytes: [UInt8], at fieldOffset: Int) -> [UInt8]? {
    guard fieldOffset + 8 <= bytes.count else { return nil }
    let length = Int(bytes[fieldOffset]) | Int(bytes[fieldOffset + 1]) << 8
    let offset = (0..<4).reduce(0) { $0 | Int(bytes[fieldOffset + 4 + $1]) << (8 * $1) }
    if length == 0 { return [] }
    guard offset + length <= bytes.count else { return nil }
    return Array(bytes[offset..<(offset + length)])
}

/// Whether a security buffer can hold each of `fields` (at most 65535 bytes): writing a message
/// cuts a longer one short, so only messages whose fields all fit can read back the same. A field
/// read from a message fits, but a name grows when written again if its bytes weren't valid
/// UTF-8 (each bad byte comes back as U+FFFD, three bytes), which inputs over 21 KiB can reach
/// (`FUZZ_FLAGS=-max_len=65536`).
private func fit(_ fields: [UInt8]...) -> Bool {
    fields.allSatisfy { $0.count <= Int(UInt16.max) }
}

private func flags(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
}

/// The client's NTLMv2 answer to `challenge` reads back on the server side and verifies there, for
/// the right password only.
private func checkAnswer(to challenge: NTLMChallengeMessage) {
    let answer = NTLMAuthenticateMessage(
        answering: challenge, user: "User", password: "Password", domain: "Domain", workstation: "PC",
        clientChallenge: [UInt8](repeating: 0xAA, count: 8), timestamp: 0)
    // (Its NT response is the target information and 44 bytes: too long for target information
    // of more than 65491 bytes.)
    if !fit(answer.ntResponse) { return }
    guard let read = NTLMAuthenticateMessage(bytes: answer.bytes) else { fail("the answer to a challenge doesn't read") }
    if read != answer { fail("the answer to a challenge reads differently") }
    if read.flags.contains(.unicode) != challenge.flags.contains(.unicode) { fail("the answer's encoding isn't the challenge's") }
    if read.ntResponse.count < NTLM.minimumResponseV2ByteCount { fail("the answer is shorter than NTLMv2") }
    if !NTLM.verifyResponseV2(
        read.ntResponse, serverChallenge: challenge.serverChallenge, user: read.user, domain: read.domain, password: "Password") {
        fail("the answer to a challenge doesn't verify: \(hex(challenge.bytes))")
    }
    if NTLM.verifyResponseV2(
        read.ntResponse, serverChallenge: challenge.serverChallenge, user: read.user, domain: read.domain, password: "password") {
        fail("the answer to a challenge verifies with a wrong password")
    }
}

/// Every reading of one message, and what each reading promises.
private func check(_ bytes: [UInt8]) {
    let type = NTLM.messageType(of: bytes)
    if let type {
        if bytes.count < 12 || !bytes.starts(with: NTLM.signature) { fail("type \(type) without a signature: \(hex(bytes))") }
        if type != flags(bytes, at: 8) { fail("type \(type) is not the bytes' \(flags(bytes, at: 8))") }
    } else if bytes.count >= 12, bytes.starts(with: NTLM.signature) {
        fail("no type for a message with the signature: \(hex(bytes))")
    }
    let negotiate = NTLMNegotiateMessage(bytes: bytes)
    let challenge = NTLMChallengeMessage(bytes: bytes)
    let authenticate = NTLMAuthenticateMessage(bytes: bytes)
    if negotiate != nil && type != 1 { fail("a type \(String(describing: type)) message read as a negotiate message") }
    if challenge != nil && type != 2 { fail("a type \(String(describing: type)) message read as a challenge message") }
    if authenticate != nil && type != 3 { fail("a type \(String(describing: type)) message read as an authenticate message") }
    // A message of its type is refused only for a reason: too short, a field outside it, a
    // UTF-16 name of an odd length.
    if type == 1, bytes.count >= 16, negotiate == nil,
       bytes.count < 32 || securityBuffer(bytes, at: 16) != nil && securityBuffer(bytes, at: 24) != nil {
        fail("a negotiate message whose fields fit is refused: \(hex(bytes))")
    }
    if type == 2, bytes.count >= 48, challenge == nil, let name = securityBuffer(bytes, at: 12),
       securityBuffer(bytes, at: 40) != nil, flags(bytes, at: 20) & 1 == 0 || name.count % 2 == 0 {
        fail("a challenge message whose fields fit is refused: \(hex(bytes))")
    }
    if type == 3, bytes.count >= 64, authenticate == nil {
        let buffers = stride(from: 12, through: 52, by: 8).map { securityBuffer(bytes, at: $0) }
        let names = [buffers[2], buffers[3], buffers[4]]
        if !buffers.contains(where: { $0 == nil }),
           flags(bytes, at: 60) & 1 == 0 || names.allSatisfy({ ($0?.count ?? 0) % 2 == 0 }) {
            fail("an authenticate message whose fields fit is refused: \(hex(bytes))")
        }
    }

    if let negotiate {
        if negotiate.flags.rawValue != flags(bytes, at: 12) { fail("negotiate flags misread") }
        if bytes.count >= 32 {
            // A field that is there is read whole, from inside the message.
            guard let domain = securityBuffer(bytes, at: 16), let workstation = securityBuffer(bytes, at: 24) else {
                fail("a negotiate message with a field outside it was read: \(hex(bytes))")
            }
            if negotiate.domain != (domain.isEmpty ? nil : String(decoding: domain, as: UTF8.self)) { fail("negotiate domain misread") }
            if negotiate.workstation != (workstation.isEmpty ? nil : String(decoding: workstation, as: UTF8.self)) {
                fail("negotiate workstation misread")
            }
        } else if negotiate.domain != nil || negotiate.workstation != nil {
            fail("a negotiate message of \(bytes.count) bytes has names")
        }
        // Written again, it reads back the same, the "supplied" flags added for the names it has.
        var expected = negotiate
        if negotiate.domain != nil { expected.flags.insert(.domainSupplied) }
        if negotiate.workstation != nil { expected.flags.insert(.workstationSupplied) }
        if fit(NTLM.encode(negotiate.domain ?? "", unicode: false), NTLM.encode(negotiate.workstation ?? "", unicode: false)),
           NTLMNegotiateMessage(bytes: negotiate.bytes) != expected { fail("negotiate message doesn't round-trip: \(hex(bytes))") }
        // The sandbox answers it with a challenge in the encoding it offers; the client reads it.
        let answer = NTLMChallengeMessage(
            flags: [negotiate.flags.contains(.unicode) ? .unicode : .oem, .ntlm, .extendedSessionSecurity, .targetInfo],
            serverChallenge: [1, 2, 3, 4, 5, 6, 7, 8], targetName: negotiate.domain ?? "SANDBOX",
            targetInfo: NTLM.targetInfo([(.netBIOSDomainName, negotiate.workstation ?? "SANDBOX")]))
        if fit(NTLM.encode(answer.targetName, unicode: answer.flags.contains(.unicode)), answer.targetInfo),
           NTLMChallengeMessage(bytes: answer.bytes) != answer { fail("the challenge to a negotiate message doesn't round-trip") }
    }

    if let challenge {
        if challenge.serverChallenge != Array(bytes[24..<32]) { fail("server challenge misread") }
        if challenge.flags.rawValue != flags(bytes, at: 20) { fail("challenge flags misread") }
        guard let info = securityBuffer(bytes, at: 40), securityBuffer(bytes, at: 12) != nil else {
            fail("a challenge message with a field outside it was read: \(hex(bytes))")
        }
        if challenge.targetInfo != (challenge.flags.contains(.targetInfo) ? info : []) { fail("target info misread") }
        // Written again (without a version), it reads back the same.
        var expected = challenge
        expected.flags.remove(.version)
        if fit(NTLM.encode(challenge.targetName, unicode: challenge.flags.contains(.unicode))),
           NTLMChallengeMessage(bytes: challenge.bytes) != expected { fail("challenge message doesn't round-trip: \(hex(bytes))") }
        checkAnswer(to: challenge)
    }

    if let authenticate {
        if authenticate.flags.rawValue != flags(bytes, at: 60) { fail("authenticate flags misread") }
        for (field, value) in [(12, authenticate.lmResponse), (20, authenticate.ntResponse), (52, authenticate.encryptedSessionKey)] {
            if securityBuffer(bytes, at: field) != value { fail("the buffer at \(field) misread: \(hex(bytes))") }
        }
        for field in [28, 36, 44] where securityBuffer(bytes, at: field) == nil {
            fail("an authenticate message with a name outside it was read: \(hex(bytes))")
        }
        var expected = authenticate
        expected.flags.remove(.version)
        let unicode = authenticate.flags.contains(.unicode)
        if fit(NTLM.encode(authenticate.domain, unicode: unicode), NTLM.encode(authenticate.user, unicode: unicode),
               NTLM.encode(authenticate.workstation, unicode: unicode)),
           NTLMAuthenticateMessage(bytes: authenticate.bytes) != expected { fail("authenticate message doesn't round-trip: \(hex(bytes))") }
        // What the sandbox does with it: compare the user, check the answer against a challenge.
        _ = NTLM.uppercased(authenticate.user)
        let verified = NTLM.verifyResponseV2(
            authenticate.ntResponse, serverChallenge: Array(bytes[24..<32]), user: authenticate.user,
            domain: authenticate.domain, password: "Password")
        if verified && authenticate.ntResponse.count < NTLM.minimumResponseV2ByteCount { fail("an answer shorter than NTLMv2 verifies") }
    }

    // The header value that carries the message gives it back.
    if !bytes.isEmpty, NTLM.message(inHeader: NTLM.headerValue(bytes)) != bytes { fail("header value doesn't round-trip") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    check(bytes)
    // The same input as a header value, `NTLM <base64>`.
    let header = String(decoding: bytes, as: UTF8.self)
    if let message = NTLM.message(inHeader: header) {
        if message.isEmpty { fail("an empty message from \(header.debugDescription)") }
        check(message)
    }
    return 0
}
