import Foundation
import Testing
@testable import JewzruxinAuth

/// The worked example of MS-NLMP §4.2 (Microsoft's Open Specifications; values checked against
/// an independent Python computation when this file was written): user `User`, domain `Domain`,
/// password `Password`, server `Server`, client challenge `aa × 8`, server challenge
/// `0123456789abcdef`, time 0.
enum MSNLMPExample {
    static let user = "User"
    static let domain = "Domain"
    static let password = "Password"
    static let serverChallenge = bytes("0123456789abcdef")
    static let clientChallenge = [UInt8](repeating: 0xAA, count: 8)
    /// §4.2.4: AV pairs MsvAvNbDomainName `Domain`, MsvAvNbComputerName `Server`, MsvAvEOL.
    static let targetInfo = bytes("02000c0044006f006d00610069006e0001000c005300650072007600650072000000" + "0000")
    /// §4.2.2.1.2 NTOWFv1.
    static let ntHash = "a4f49c406510bdcab6824ee7c30fd852"
    /// §4.2.4.1.1 NTOWFv2.
    static let responseKey = "0c868a403bfd7a93a3001ef22ef02e3f"
    /// §4.2.4.2.2: the NTProofStr that begins the NTLMv2 response.
    static let proof = "68cd0ab851e51c96aabc927bebef6a1c"
    /// §4.2.4.2.1 LMv2 response.
    static let lmResponse = "86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa"
    /// §4.2.4.1.3 `temp`: the blob the proof is computed over.
    static let blob = "01010000000000000000000000000000aaaaaaaaaaaaaaaa00000000"
        + "02000c0044006f006d00610069006e0001000c005300650072007600650072000000000000000000"
    /// §4.2.4.3 CHALLENGE_MESSAGE as the spec prints it: with a version (so the payload begins at
    /// 56), target name `Server` in UTF-16, the target information above. The `ntlm` fuzz target's
    /// seed `Fuzz/corpus/ntlm/challenge-msnlmp` holds these bytes.
    static let challengeMessage = "4e544c4d53535000020000000c000c003800000033828ae20123456789abcdef"
        + "00000000000000002400240044000000060070170000000f53006500720076006500720002000c0044006f006d"
        + "00610069006e0001000c0053006500720076006500720000000000"

    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex) ?? [] }
}

@Suite("NTLM")
struct NTLMTests {
    typealias Example = MSNLMPExample

    @Test("NTOWFv1 and NTOWFv2 of the MS-NLMP example")
    func keys() {
        #expect(Hex.encode(NTLM.ntHash(password: Example.password)) == Example.ntHash)
        #expect(Hex.encode(NTLM.responseKeyV2(password: Example.password, user: Example.user, domain: Example.domain)) == Example.responseKey)
        // The user name is upper-cased, the domain is not.
        #expect(NTLM.responseKeyV2(password: Example.password, user: "USER", domain: Example.domain)
            == NTLM.responseKeyV2(password: Example.password, user: "user", domain: Example.domain))
        #expect(NTLM.responseKeyV2(password: Example.password, user: Example.user, domain: "DOMAIN")
            != NTLM.responseKeyV2(password: Example.password, user: Example.user, domain: Example.domain))
    }

    @Test("the NTLMv2 blob, NTProofStr and LMv2 response of the MS-NLMP example")
    func responses() {
        let key = Example.bytes(Example.responseKey)
        let blob = NTLM.blob(timestamp: 0, clientChallenge: Example.clientChallenge, targetInfo: Example.targetInfo)
        #expect(Hex.encode(blob) == Example.blob)
        #expect(Hex.encode(NTLM.proof(responseKey: key, serverChallenge: Example.serverChallenge, blob: blob)) == Example.proof)
        #expect(Hex.encode(NTLM.lmResponseV2(
            responseKey: key, serverChallenge: Example.serverChallenge, clientChallenge: Example.clientChallenge)) == Example.lmResponse)
    }

    @Test("verifying an NTLMv2 answer: the example's passes; a wrong password, user, challenge or byte fails")
    func verification() {
        let answer = Example.bytes(Example.proof + Example.blob)
        func verify(_ response: [UInt8] = answer, challenge: [UInt8] = Example.serverChallenge,
                    user: String = Example.user, password: String = Example.password) -> Bool {
            NTLM.verifyResponseV2(response, serverChallenge: challenge, user: user, domain: Example.domain, password: password)
        }
        #expect(verify())
        #expect(verify(user: "user"))
        #expect(!verify(password: "password"))
        #expect(!verify(user: "Other"))
        #expect(!verify(challenge: Example.bytes("0123456789abcdee")))
        for index in [0, 15, 16, 40, answer.count - 1] {
            var flipped = answer
            flipped[index] ^= 0x01
            #expect(!verify(flipped), "byte \(index) flipped")
        }
        // NTLMv1's 24 bytes, and anything shorter than a proof and the smallest blob.
        #expect(!verify(Array(answer.prefix(24))))
        #expect(!verify(Array(answer.prefix(NTLM.minimumResponseV2ByteCount - 1))))
        #expect(!verify([]))
    }

    @Test("target information: UTF-16LE values, ending in MsvAvEOL")
    func targetInfo() {
        #expect(NTLM.targetInfo([(.netBIOSDomainName, "Domain"), (.netBIOSComputerName, "Server")]) == Example.targetInfo)
        #expect(NTLM.targetInfo([]) == [0, 0, 0, 0])
    }

    @Test("the three messages read back what was written, UTF-16 or OEM")
    func roundTrips() throws {
        let negotiate = NTLMNegotiateMessage(flags: [.oem, .requestTarget, .ntlm, .extendedSessionSecurity], domain: "DOM", workstation: "WS")
        let readNegotiate = try #require(NTLMNegotiateMessage(bytes: negotiate.bytes))
        #expect(readNegotiate.domain == "DOM")
        #expect(readNegotiate.workstation == "WS")
        #expect(readNegotiate.flags.isSuperset(of: negotiate.flags.union([.domainSupplied, .workstationSupplied])))
        for encoding in [NTLM.Flags.unicode, .oem] {
            let challenge = NTLMChallengeMessage(
                flags: [encoding, .ntlm, .extendedSessionSecurity, .targetInfo], serverChallenge: Example.serverChallenge,
                targetName: "Sérvér", targetInfo: Example.targetInfo)
            #expect(NTLMChallengeMessage(bytes: challenge.bytes) == challenge)
            let answer = NTLMAuthenticateMessage(
                answering: challenge, user: "Üser", password: "pässword", domain: "Domain", workstation: "PC",
                clientChallenge: Example.clientChallenge, timestamp: 42)
            let read = try #require(NTLMAuthenticateMessage(bytes: answer.bytes))
            #expect(read == answer)
            #expect(read.flags.contains(encoding))
            #expect(NTLM.verifyResponseV2(
                read.ntResponse, serverChallenge: Example.serverChallenge, user: read.user, domain: read.domain, password: "pässword"))
        }
    }

    @Test("the client's answer to the example's challenge carries the example's responses")
    func exampleAnswer() {
        let challenge = NTLMChallengeMessage(
            flags: [.unicode, .ntlm, .extendedSessionSecurity, .targetInfo], serverChallenge: Example.serverChallenge,
            targetName: "Server", targetInfo: Example.targetInfo)
        let answer = NTLMAuthenticateMessage(
            answering: challenge, user: Example.user, password: Example.password, domain: Example.domain,
            clientChallenge: Example.clientChallenge, timestamp: 0)
        #expect(Hex.encode(answer.ntResponse) == Example.proof + Example.blob)
        #expect(Hex.encode(answer.lmResponse) == Example.lmResponse)
    }

    @Test("the example's challenge message, as the spec prints it with a version, reads, and is answered with the example's responses")
    func exampleChallengeMessage() throws {
        let challenge = try #require(NTLMChallengeMessage(bytes: Example.bytes(Example.challengeMessage)))
        #expect(challenge.flags.rawValue == 0xE28A_8233)
        #expect(challenge.serverChallenge == Example.serverChallenge)
        #expect(challenge.targetName == "Server")
        #expect(challenge.targetInfo == Example.targetInfo)
        let answer = NTLMAuthenticateMessage(
            answering: challenge, user: Example.user, password: Example.password, domain: Example.domain,
            clientChallenge: Example.clientChallenge, timestamp: 0)
        #expect(Hex.encode(answer.ntResponse) == Example.proof + Example.blob)
        #expect(Hex.encode(answer.lmResponse) == Example.lmResponse)
    }

    @Test("HTTP header values: NTLM and base64, either case; a bare NTLM or another scheme is no message")
    func headers() throws {
        let message = NTLMNegotiateMessage(flags: [.unicode]).bytes
        let value = NTLM.headerValue(message)
        #expect(value.hasPrefix("NTLM TlRMTVNTUAAB"))
        #expect(NTLM.message(inHeader: value) == message)
        #expect(NTLM.message(inHeader: "ntlm  " + value.dropFirst(5)) == message)
        #expect(NTLM.message(inHeader: "NTLM") == nil)
        #expect(NTLM.message(inHeader: "NTLM ") == nil)
        #expect(NTLM.message(inHeader: "Negotiate " + value.dropFirst(5)) == nil)
        #expect(NTLM.message(inHeader: "NTLM not*base64") == nil)
        #expect(NTLM.messageType(of: message) == 1)
        #expect(NTLM.messageType(of: Array(message.prefix(11))) == nil)
        #expect(NTLM.messageType(of: [UInt8](repeating: 0, count: 16)) == nil)
    }

    @Test("user names are upper-cased scalar by scalar, as Windows does: ß stays")
    func uppercasing() {
        #expect(NTLM.uppercased("user") == "USER")
        #expect(NTLM.uppercased("straße") == "STRAßE")
        #expect(NTLM.uppercased("émile") == "ÉMILE")
    }

    // MARK: Reading what a peer sent

    static let wellFormed: [(name: String, bytes: [UInt8])] = {
        let challenge = NTLMChallengeMessage(
            flags: [.unicode, .ntlm, .extendedSessionSecurity, .targetInfo], serverChallenge: Example.serverChallenge,
            targetName: "Server", targetInfo: Example.targetInfo)
        let answer = NTLMAuthenticateMessage(
            answering: challenge, user: Example.user, password: Example.password, domain: Example.domain, workstation: "PC",
            clientChallenge: Example.clientChallenge, timestamp: 0)
        return [
            ("negotiate", NTLMNegotiateMessage(flags: [.oem], domain: "D", workstation: "W").bytes),
            ("challenge", challenge.bytes), ("authenticate", answer.bytes),
        ]
    }()

    /// Reads `bytes` as each kind of message; whatever comes back, nothing traps.
    static func readAll(_ bytes: [UInt8]) -> Int {
        var read = 0
        if NTLMNegotiateMessage(bytes: bytes) != nil { read += 1 }
        if NTLMChallengeMessage(bytes: bytes) != nil { read += 1 }
        if NTLMAuthenticateMessage(bytes: bytes) != nil { read += 1 }
        return read
    }

    @Test("a message cut short anywhere is read as no message, without trapping")
    func truncated() {
        for (name, bytes) in Self.wellFormed {
            #expect(Self.readAll(bytes) == 1, "\(name) whole")
            for length in 0..<bytes.count {
                let cut = Array(bytes.prefix(length))
                // A negotiate message needs only its first 16 bytes (the fields are optional) and a
                // cut that keeps every field's bytes is still a message: what matters is no trap and
                // no read outside the bytes.
                if name != "negotiate" || length < 16 { #expect(Self.readAll(cut) == 0, "\(name) cut to \(length)") }
            }
        }
    }

    @Test("security buffers pointing outside the message, or past 4 GiB, are refused")
    func outOfBounds() throws {
        let answer = try #require(Self.wellFormed.last?.bytes)
        for fieldOffset in stride(from: 12, through: 52, by: 8) {
            for (length, offset) in [(UInt16(8), UInt32(answer.count - 4)), (UInt16.max, UInt32(64)), (UInt16(1), UInt32.max)] {
                var bad = answer
                bad[fieldOffset] = UInt8(truncatingIfNeeded: length)
                bad[fieldOffset + 1] = UInt8(truncatingIfNeeded: length >> 8)
                for index in 0..<4 { bad[fieldOffset + 4 + index] = UInt8(truncatingIfNeeded: offset >> UInt32(8 * index)) }
                #expect(NTLMAuthenticateMessage(bytes: bad) == nil, "field at \(fieldOffset): \(length) bytes at \(offset)")
            }
        }
        // A UTF-16 user name of an odd length.
        var odd = answer
        odd[36] = 3
        #expect(NTLMAuthenticateMessage(bytes: odd) == nil)
    }

    @Test("random bytes behind a valid signature and type never trap")
    func randomBytes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for round in 0..<3000 {
            var bytes = NTLM.signature + [UInt8(round % 3 + 1), 0, 0, 0]
            bytes += (0..<(round % 160)).map { _ in next() }
            _ = Self.readAll(bytes)
        }
    }
}
