import Foundation

/// NTLM (MS-NLMP) as HTTP carries it, in `WWW-Authenticate: NTLM <base64>` and
/// `Authorization: NTLM <base64>`: the flags, the byte-level helpers and the NTLMv2 computation.
///
/// The three messages are ``NTLMNegotiateMessage`` (the client's type 1),
/// ``NTLMChallengeMessage`` (the server's type 2) and ``NTLMAuthenticateMessage`` (the client's
/// type 3). Reading one checks every length and offset against the bytes received: a message that
/// doesn't fit is `nil`, never a trap. The sandbox's `/auth/ntlm/` endpoint is the server side; the
/// library's client is libcurl's, so the client side here serves the tests.
///
/// Only NTLMv2 is computed (MS-NLMP §3.3.2):
///
/// ```swift
/// let key = NTLM.responseKeyV2(password: "Password", user: "User", domain: "Domain")
/// // 0c868a403bfd7a93a3001ef22ef02e3f (MS-NLMP §4.2.4.1.1)
/// ```
package enum NTLM {
    /// `NTLMSSP` and a NUL: how every message begins.
    package static let signature: [UInt8] = Array("NTLMSSP".utf8) + [0]

    /// The NEGOTIATE flags of MS-NLMP §2.2.2.5 that this package reads or writes.
    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Strings are UTF-16LE (`NTLMSSP_NEGOTIATE_UNICODE`).
        package static let unicode = Flags(rawValue: 0x0000_0001)
        /// Strings are in the OEM code page (`NTLM_NEGOTIATE_OEM`); read here as UTF-8.
        package static let oem = Flags(rawValue: 0x0000_0002)
        /// The server is asked for its name (`NTLMSSP_REQUEST_TARGET`).
        package static let requestTarget = Flags(rawValue: 0x0000_0004)
        /// NTLM session security (`NTLMSSP_NEGOTIATE_NTLM`).
        package static let ntlm = Flags(rawValue: 0x0000_0200)
        /// The negotiate message names a domain.
        package static let domainSupplied = Flags(rawValue: 0x0000_1000)
        /// The negotiate message names a workstation.
        package static let workstationSupplied = Flags(rawValue: 0x0000_2000)
        /// `NTLMSSP_NEGOTIATE_ALWAYS_SIGN`.
        package static let alwaysSign = Flags(rawValue: 0x0000_8000)
        /// The target name is a domain.
        package static let targetTypeDomain = Flags(rawValue: 0x0001_0000)
        /// The target name is a server.
        package static let targetTypeServer = Flags(rawValue: 0x0002_0000)
        /// Extended session security (`NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY`, curl's
        /// `NTLM2_KEY`): libcurl answers with NTLMv2 only when the challenge sets it.
        package static let extendedSessionSecurity = Flags(rawValue: 0x0008_0000)
        /// The challenge carries target information (`NTLMSSP_NEGOTIATE_TARGET_INFO`): the AV pairs
        /// an NTLMv2 answer includes.
        package static let targetInfo = Flags(rawValue: 0x0080_0000)
        /// A version field follows the fixed fields.
        package static let version = Flags(rawValue: 0x0200_0000)
    }

    /// The attribute-value pair identifiers of MS-NLMP §2.2.2.1 that the sandbox writes.
    package enum AttributeID: UInt16, Sendable {
        /// The end of the list.
        case end = 0
        /// The server's NetBIOS name.
        case netBIOSComputerName = 1
        /// The server's NetBIOS domain name.
        case netBIOSDomainName = 2
        /// The server's DNS name.
        case dnsComputerName = 3
        /// The server's DNS domain name.
        case dnsDomainName = 4
    }

    // MARK: NTLMv2

    /// NTOWFv1: MD4 of the password's UTF-16LE bytes, the "NT hash" (MS-NLMP §3.3.1).
    package static func ntHash(password: String) -> [UInt8] {
        MD4.hash(utf16LittleEndian(password))
    }

    /// NTOWFv2, the NTLMv2 response key: HMAC-MD5 under the NT hash of the upper-cased user name
    /// followed by the domain, both UTF-16LE (MS-NLMP §3.3.2).
    package static func responseKeyV2(password: String, user: String, domain: String) -> [UInt8] {
        HMAC<MD5>.authenticationCode(
            for: utf16LittleEndian(uppercased(user) + domain), key: ntHash(password: password))
    }

    /// The client's part of an NTLMv2 answer (`temp` in MS-NLMP §3.3.2): versions 1 and 1, six
    /// zero bytes, the time, the client challenge, four zero bytes, the server's target
    /// information, four zero bytes.
    ///
    /// - Parameters:
    ///   - timestamp: Tenths of a microsecond since 1601-01-01 UTC.
    ///   - clientChallenge: Eight random bytes.
    ///   - targetInfo: The AV pairs of the challenge message.
    package static func blob(timestamp: UInt64, clientChallenge: [UInt8], targetInfo: [UInt8]) -> [UInt8] {
        var blob: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0]
        appendLittleEndian(timestamp, byteCount: 8, to: &blob)
        blob += clientChallenge
        blob += [0, 0, 0, 0]
        blob += targetInfo
        blob += [0, 0, 0, 0]
        return blob
    }

    /// NTProofStr: HMAC-MD5 under the response key of the server challenge followed by the blob.
    package static func proof(responseKey: [UInt8], serverChallenge: [UInt8], blob: [UInt8]) -> [UInt8] {
        HMAC<MD5>.authenticationCode(for: serverChallenge + blob, key: responseKey)
    }

    /// The LMv2 answer: HMAC-MD5 under the response key of both challenges, then the client's.
    package static func lmResponseV2(responseKey: [UInt8], serverChallenge: [UInt8], clientChallenge: [UInt8]) -> [UInt8] {
        HMAC<MD5>.authenticationCode(for: serverChallenge + clientChallenge, key: responseKey) + clientChallenge
    }

    /// The smallest NTLMv2 answer: the 16-byte proof, then a blob of at least 28 bytes. An answer
    /// of 24 bytes is NTLMv1, which is refused.
    package static let minimumResponseV2ByteCount = 16 + 28

    /// Whether `ntResponse`, the NtChallengeResponse of an authenticate message, is the NTLMv2
    /// answer of `password` to `serverChallenge` for `user` in `domain`: a blob of versions 1 and 1,
    /// preceded by its proof.
    package static func verifyResponseV2(
        _ ntResponse: [UInt8], serverChallenge: [UInt8], user: String, domain: String, password: String
    ) -> Bool {
        guard ntResponse.count >= minimumResponseV2ByteCount, ntResponse[16] == 1, ntResponse[17] == 1 else { return false }
        let key = responseKeyV2(password: password, user: user, domain: domain)
        let expected = proof(responseKey: key, serverChallenge: serverChallenge, blob: Array(ntResponse[16...]))
        // Every byte compared, whatever the first difference.
        var difference: UInt8 = 0
        for (index, byte) in expected.enumerated() { difference |= byte ^ ntResponse[index] }
        return difference == 0
    }

    // MARK: Target information

    /// AV pairs (MS-NLMP §2.2.2.1), values UTF-16LE, with the terminating pair.
    package static func targetInfo(_ pairs: [(AttributeID, String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (id, value) in pairs where id != .end {
            let encoded = utf16LittleEndian(value)
            appendLittleEndian(UInt64(id.rawValue), byteCount: 2, to: &bytes)
            appendLittleEndian(UInt64(min(encoded.count, Int(UInt16.max))), byteCount: 2, to: &bytes)
            bytes += encoded.prefix(Int(UInt16.max))
        }
        return bytes + [0, 0, 0, 0]
    }

    // MARK: HTTP

    /// The message in an `Authorization` or `WWW-Authenticate` value `NTLM <base64>`; `nil` for a
    /// bare `NTLM`, another scheme, or a token that isn't base64.
    package static func message(inHeader value: String) -> [UInt8]? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 5, trimmed.prefix(5).lowercased() == "ntlm " else { return nil }
        let token = trimmed.dropFirst(5).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let data = Data(base64Encoded: token) else { return nil }
        return [UInt8](data)
    }

    /// `NTLM <base64>` for `message`.
    package static func headerValue(_ message: [UInt8]) -> String {
        "NTLM " + Data(message).base64EncodedString()
    }

    /// The message type of `bytes` (1, 2 or 3, or another number), `nil` when they don't begin
    /// with the signature and a type.
    package static func messageType(of bytes: [UInt8]) -> UInt32? {
        guard bytes.count >= 12, bytes.starts(with: signature) else { return nil }
        return ByteReader(bytes).uint32(at: 8)
    }

    // MARK: Bytes

    /// `text` as UTF-16LE bytes.
    package static func utf16LittleEndian(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf16.count * 2)
        for unit in text.utf16 {
            bytes.append(UInt8(truncatingIfNeeded: unit))
            bytes.append(UInt8(truncatingIfNeeded: unit >> 8))
        }
        return bytes
    }

    /// `text` upper-cased one scalar at a time, a scalar whose upper case is several (`ß`) kept as
    /// it is: Windows' simple case mapping, not Swift's full one (`ß` → `SS`).
    package static func uppercased(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let mapped = scalar.properties.uppercaseMapping.unicodeScalars
            if mapped.count == 1, let single = mapped.first { result.append(single) } else { result.append(scalar) }
        }
        return String(result)
    }

    /// A message string: UTF-16LE when `unicode`, else the OEM bytes (UTF-8 here).
    static func encode(_ text: String, unicode: Bool) -> [UInt8] {
        unicode ? utf16LittleEndian(text) : Array(text.utf8)
    }

    /// A message string read back; `nil` for UTF-16 of an odd length.
    static func decode(_ bytes: [UInt8], unicode: Bool) -> String? {
        guard unicode else { return String(decoding: bytes, as: UTF8.self) }
        guard bytes.count % 2 == 0 else { return nil }
        let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        return String(decoding: units, as: UTF16.self)
    }

    static func appendLittleEndian(_ value: UInt64, byteCount: Int, to bytes: inout [UInt8]) {
        for index in 0..<byteCount { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
    }

    /// Lays out a message: the fixed part, then each payload after it, with the security buffer
    /// (length, allocated length, offset) of each written at its place in the fixed part.
    static func assemble(fixed: [UInt8], payloads: [(fieldOffset: Int, bytes: [UInt8])]) -> [UInt8] {
        var message = fixed
        for (fieldOffset, payload) in payloads {
            var field: [UInt8] = []
            let length = UInt64(min(payload.count, Int(UInt16.max)))
            appendLittleEndian(length, byteCount: 2, to: &field)
            appendLittleEndian(length, byteCount: 2, to: &field)
            appendLittleEndian(UInt64(message.count), byteCount: 4, to: &field)
            message.replaceSubrange(fieldOffset..<(fieldOffset + 8), with: field)
            message += payload.prefix(Int(length))
        }
        return message
    }
}

/// Reads little-endian numbers and security buffers from a message, each access checked against
/// its length.
struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let low = uint16(at: offset), let high = uint16(at: offset + 2) else { return nil }
        return UInt32(low) | UInt32(high) << 16
    }

    func slice(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else { return nil }
        return Array(bytes[offset..<(offset + count)])
    }

    /// The bytes a security buffer at `offset` points to (MS-NLMP §2.2.1: length, allocated length,
    /// offset from the message's start); `nil` when the buffer or its bytes lie outside the message.
    func field(at offset: Int) -> [UInt8]? {
        guard let length = uint16(at: offset), let start = uint32(at: offset + 4) else { return nil }
        if length == 0 { return [] }
        return slice(at: Int(start), count: Int(length))
    }
}
