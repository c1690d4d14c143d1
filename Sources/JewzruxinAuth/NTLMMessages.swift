import Foundation

/// The client's first NTLM message, type 1 (MS-NLMP §2.2.1.1): the flags it asks for, and
/// optionally its domain and workstation in the OEM code page.
package struct NTLMNegotiateMessage: Sendable, Equatable {
    /// What the client asks for.
    package var flags: NTLM.Flags
    /// The domain it names, if any.
    package var domain: String?
    /// The workstation it names, if any.
    package var workstation: String?

    /// A message asking for `flags`.
    package init(flags: NTLM.Flags, domain: String? = nil, workstation: String? = nil) {
        self.flags = flags
        self.domain = domain
        self.workstation = workstation
    }

    /// Reads a type 1 message: the signature, the type and the flags, then the domain and
    /// workstation when the message is long enough to have their fields; `nil` for anything else.
    package init?(bytes: [UInt8]) {
        let reader = ByteReader(bytes)
        guard NTLM.messageType(of: bytes) == 1, let flags = reader.uint32(at: 12) else { return nil }
        self.flags = NTLM.Flags(rawValue: flags)
        if bytes.count >= 32 {
            guard let domain = reader.field(at: 16), let workstation = reader.field(at: 24) else { return nil }
            self.domain = domain.isEmpty ? nil : NTLM.decode(domain, unicode: false)
            self.workstation = workstation.isEmpty ? nil : NTLM.decode(workstation, unicode: false)
        }
    }

    /// The message's bytes.
    package var bytes: [UInt8] {
        var fixed = NTLM.signature
        NTLM.appendLittleEndian(1, byteCount: 4, to: &fixed)
        var flags = self.flags
        if domain != nil { flags.insert(.domainSupplied) }
        if workstation != nil { flags.insert(.workstationSupplied) }
        NTLM.appendLittleEndian(UInt64(flags.rawValue), byteCount: 4, to: &fixed)
        fixed += [UInt8](repeating: 0, count: 16)
        return NTLM.assemble(fixed: fixed, payloads: [
            (16, domain.map { NTLM.encode($0, unicode: false) } ?? []),
            (24, workstation.map { NTLM.encode($0, unicode: false) } ?? []),
        ])
    }
}

/// The server's NTLM message, type 2 (MS-NLMP §2.2.1.2): the flags it grants, its eight-byte
/// challenge, its name, and the target information an NTLMv2 answer includes.
package struct NTLMChallengeMessage: Sendable, Equatable {
    /// What the server grants; ``NTLM/Flags/unicode`` says how ``targetName`` is encoded.
    package var flags: NTLM.Flags
    /// The eight bytes the client's answer is computed over.
    package var serverChallenge: [UInt8]
    /// The server's (or its domain's) name.
    package var targetName: String
    /// AV pairs (``NTLM/targetInfo(_:)``); sent when ``flags`` has ``NTLM/Flags/targetInfo``.
    package var targetInfo: [UInt8]

    /// A challenge message.
    package init(flags: NTLM.Flags, serverChallenge: [UInt8], targetName: String, targetInfo: [UInt8]) {
        self.flags = flags
        self.serverChallenge = serverChallenge
        self.targetName = targetName
        self.targetInfo = targetInfo
    }

    /// Reads a type 2 message; `nil` when it is shorter than its fixed fields or a field points
    /// outside it.
    package init?(bytes: [UInt8]) {
        let reader = ByteReader(bytes)
        guard NTLM.messageType(of: bytes) == 2, bytes.count >= 48,
              let flags = reader.uint32(at: 20), let challenge = reader.slice(at: 24, count: 8),
              let name = reader.field(at: 12), let info = reader.field(at: 40)
        else { return nil }
        self.flags = NTLM.Flags(rawValue: flags)
        guard let targetName = NTLM.decode(name, unicode: self.flags.contains(.unicode)) else { return nil }
        self.serverChallenge = challenge
        self.targetName = targetName
        self.targetInfo = self.flags.contains(.targetInfo) ? info : []
    }

    /// The message's bytes: the fixed fields without a version (48 bytes), then the name and the
    /// target information.
    package var bytes: [UInt8] {
        var fixed = NTLM.signature
        NTLM.appendLittleEndian(2, byteCount: 4, to: &fixed)
        fixed += [UInt8](repeating: 0, count: 8)
        NTLM.appendLittleEndian(UInt64(flags.subtracting(.version).rawValue), byteCount: 4, to: &fixed)
        fixed += serverChallenge.prefix(8) + [UInt8](repeating: 0, count: 8 - min(serverChallenge.count, 8))
        fixed += [UInt8](repeating: 0, count: 16)
        return NTLM.assemble(fixed: fixed, payloads: [
            (12, NTLM.encode(targetName, unicode: flags.contains(.unicode))),
            (40, flags.contains(.targetInfo) ? targetInfo : []),
        ])
    }
}

/// The client's answer, NTLM type 3 (MS-NLMP §2.2.1.3): the challenge responses and who it is.
package struct NTLMAuthenticateMessage: Sendable, Equatable {
    /// The flags the client settled on; ``NTLM/Flags/unicode`` says how the names are encoded.
    package var flags: NTLM.Flags
    /// The LM (or LMv2) response.
    package var lmResponse: [UInt8]
    /// The NT response: 24 bytes for NTLMv1, an NTLMv2 proof and blob otherwise.
    package var ntResponse: [UInt8]
    /// The user's domain (may be empty).
    package var domain: String
    /// The user name.
    package var user: String
    /// The client's name (may be empty).
    package var workstation: String
    /// The encrypted session key (empty unless key exchange was negotiated).
    package var encryptedSessionKey: [UInt8]

    /// An authenticate message.
    package init(
        flags: NTLM.Flags, lmResponse: [UInt8], ntResponse: [UInt8], domain: String, user: String,
        workstation: String, encryptedSessionKey: [UInt8] = []
    ) {
        self.flags = flags
        self.lmResponse = lmResponse
        self.ntResponse = ntResponse
        self.domain = domain
        self.user = user
        self.workstation = workstation
        self.encryptedSessionKey = encryptedSessionKey
    }

    /// Reads a type 3 message: its six security buffers and the flags (64 bytes, as every client
    /// since Windows NT 4 sends); `nil` when it is shorter, a buffer points outside it, or a
    /// UTF-16 name has an odd length.
    package init?(bytes: [UInt8]) {
        let reader = ByteReader(bytes)
        guard NTLM.messageType(of: bytes) == 3, bytes.count >= 64,
              let lm = reader.field(at: 12), let nt = reader.field(at: 20), let domain = reader.field(at: 28),
              let user = reader.field(at: 36), let workstation = reader.field(at: 44),
              let key = reader.field(at: 52), let flags = reader.uint32(at: 60)
        else { return nil }
        self.flags = NTLM.Flags(rawValue: flags)
        let unicode = self.flags.contains(.unicode)
        guard let domainName = NTLM.decode(domain, unicode: unicode), let userName = NTLM.decode(user, unicode: unicode),
              let workstationName = NTLM.decode(workstation, unicode: unicode)
        else { return nil }
        self.lmResponse = lm
        self.ntResponse = nt
        self.domain = domainName
        self.user = userName
        self.workstation = workstationName
        self.encryptedSessionKey = key
    }

    /// The NTLMv2 answer to `challenge` (MS-NLMP §3.3.2), as a client computes it.
    ///
    /// - Parameters:
    ///   - challenge: The server's challenge message.
    ///   - user: The user name.
    ///   - password: The password.
    ///   - domain: The user's domain, empty for none.
    ///   - workstation: The client's name.
    ///   - clientChallenge: Eight random bytes.
    ///   - timestamp: Tenths of a microsecond since 1601-01-01 UTC.
    package init(
        answering challenge: NTLMChallengeMessage, user: String, password: String, domain: String = "",
        workstation: String = "", clientChallenge: [UInt8], timestamp: UInt64
    ) {
        let key = NTLM.responseKeyV2(password: password, user: user, domain: domain)
        let blob = NTLM.blob(timestamp: timestamp, clientChallenge: clientChallenge, targetInfo: challenge.targetInfo)
        let proof = NTLM.proof(responseKey: key, serverChallenge: challenge.serverChallenge, blob: blob)
        let unicode: NTLM.Flags = challenge.flags.contains(.unicode) ? .unicode : .oem
        self.init(
            flags: challenge.flags.intersection([.ntlm, .alwaysSign, .extendedSessionSecurity, .targetInfo]).union(unicode),
            lmResponse: NTLM.lmResponseV2(responseKey: key, serverChallenge: challenge.serverChallenge, clientChallenge: clientChallenge),
            ntResponse: proof + blob, domain: domain, user: user, workstation: workstation)
    }

    /// The message's bytes: the fixed fields without a version or MIC (64 bytes), then the names
    /// and the responses.
    package var bytes: [UInt8] {
        var fixed = NTLM.signature
        NTLM.appendLittleEndian(3, byteCount: 4, to: &fixed)
        fixed += [UInt8](repeating: 0, count: 48)
        NTLM.appendLittleEndian(UInt64(flags.subtracting(.version).rawValue), byteCount: 4, to: &fixed)
        let unicode = flags.contains(.unicode)
        return NTLM.assemble(fixed: fixed, payloads: [
            (28, NTLM.encode(domain, unicode: unicode)),
            (36, NTLM.encode(user, unicode: unicode)),
            (44, NTLM.encode(workstation, unicode: unicode)),
            (12, lmResponse),
            (20, ntResponse),
            (52, encryptedSessionKey),
        ])
    }
}
