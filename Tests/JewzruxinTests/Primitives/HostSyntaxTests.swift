import JewzruxinPrimitives
import Testing

@Suite("IPv6 literals in and out of brackets")
struct HostSyntaxTests {
    @Test("bracketed: an IPv6 address gets brackets once; names and IPv4 addresses stay as they are")
    func bracketed() {
        #expect(HostSyntax.bracketed("::1") == "[::1]")
        #expect(HostSyntax.bracketed("fe80::1%25eth0") == "[fe80::1%25eth0]")
        #expect(HostSyntax.bracketed("[::1]") == "[::1]")
        #expect(HostSyntax.bracketed("127.0.0.1") == "127.0.0.1")
        #expect(HostSyntax.bracketed("example.com") == "example.com")
        #expect(HostSyntax.bracketed("") == "")
    }

    @Test("unbracketed: the brackets of a literal come off; anything else stays, half brackets included")
    func unbracketed() {
        #expect(HostSyntax.unbracketed("[::1]") == "::1")
        #expect(HostSyntax.unbracketed("[2001:db8::1]"[...]) == "2001:db8::1")
        #expect(HostSyntax.unbracketed("::1") == "::1")
        #expect(HostSyntax.unbracketed("example.com") == "example.com")
        #expect(HostSyntax.unbracketed("[::1") == "[::1")
        #expect(HostSyntax.unbracketed("[]") == "")
        for host in ["::1", "10.0.0.1", "localhost"] {
            #expect(HostSyntax.unbracketed(HostSyntax.bracketed(host)) == host[...])
        }
    }
}
