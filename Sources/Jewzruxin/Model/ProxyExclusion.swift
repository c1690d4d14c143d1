import Foundation
import JewzruxinPrimitives
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts a proxy is not used for, matched by curl's `no_proxy` rules (its `noproxy.c`), so that a
/// list means here what it means to curl and to every program on curl.
struct ProxyExclusion {
    /// The entries, blanks and empty ones dropped.
    let entries: [String]
    /// `*` alone: every host.
    let coversEverything: Bool

    /// The rules of `excludedHosts`, taken as one list.
    init(_ excludedHosts: [String]) {
        let list = excludedHosts.joined(separator: ",")
        coversEverything = list.trimmingCharacters(in: .whitespaces) == "*"
        entries = Self.entries(of: list)
    }

    /// The entries of a `no_proxy` value: separated by commas, blanks, or both.
    static func entries(of list: String) -> [String] {
        list.split { $0 == "," || $0 == " " || $0 == "\t" }.map(String.init)
    }

    /// Whether a request to `host` goes direct.
    func covers(_ host: String) -> Bool {
        if coversEverything { return true }
        guard !host.isEmpty else { return false }
        let unbracketed = String(HostSyntax.unbracketed(host))
        if let address = Address(unbracketed) {
            return entries.contains { address.isCovered(by: $0) }
        }
        let name = (unbracketed.hasSuffix(".") ? unbracketed.dropLast() : Substring(unbracketed)).lowercased()
        return entries.contains { entry in
            var token = Substring(entry)
            if token.hasSuffix(".") { token = token.dropLast() }
            if token.hasPrefix(".") { token = token.dropFirst() }
            guard !token.isEmpty else { return false }
            let domain = token.lowercased()
            // The name itself, or a name below it: `example.com` covers `www.example.com`, not
            // `notexample.com`.
            return name == domain || name.hasSuffix("." + domain)
        }
    }
}

extension ProxyExclusion {
    /// An IPv4 or IPv6 address, as its bytes.
    struct Address: Equatable {
        let bytes: [UInt8]

        /// The address written as `text` (dotted IPv4, or IPv6 without brackets); `nil` for anything else.
        init?(_ text: String) {
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                bytes = withUnsafeBytes(of: v4) { Array($0) }
                return
            }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 {
                bytes = withUnsafeBytes(of: v6) { Array($0) }
                return
            }
            return nil
        }

        /// Whether the `no_proxy` entry `entry` covers this address: the same address, or a CIDR range
        /// (`10.0.0.0/8`, `fd00::/8`, IPv6 with or without brackets) that holds it. As curl has it, an
        /// entry of the other family never matches and a prefix length of 0 means the whole address.
        func isCovered(by entry: String) -> Bool {
            var address = Substring(entry)
            var bits = bytes.count * 8
            if let slash = address.firstIndex(of: "/") {
                guard let length = Int(address[address.index(after: slash)...]), length >= 0, length <= bits else { return false }
                if length > 0 { bits = length }
                address = address[..<slash]
            }
            address = HostSyntax.unbracketed(address)
            guard let network = Address(String(address)), network.bytes.count == bytes.count else { return false }
            let whole = bits / 8
            guard bytes[..<whole] == network.bytes[..<whole] else { return false }
            let rest = bits % 8
            guard rest > 0 else { return true }
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
            return bytes[whole] & mask == network.bytes[whole] & mask
        }
    }
}
