/// IPv6 literals in brackets, as URLs and `host:port` write them (RFC 3986 §3.2.2), and out of them,
/// as sockets, libcurl's options and address matching take them: one copy of the rule for the
/// transports, the proxy settings and the sandbox.
public enum HostSyntax {
    /// `host` as written before a `:port` or in a URL: an IPv6 address (any host with a colon) in
    /// brackets, unless it has them already; any other host as it is.
    public static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[" + host + "]" : host
    }

    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`); any other host as it is.
    public static func unbracketed<S: StringProtocol>(_ host: S) -> S.SubSequence {
        host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host[...]
    }
}
