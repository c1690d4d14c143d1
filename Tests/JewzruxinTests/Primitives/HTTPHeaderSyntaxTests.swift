import JewzruxinPrimitives
import Testing

@Suite("HTTP syntax shared by the client, the sandbox and the auth scanner")
struct HTTPHeaderSyntaxTests {
    @Test("tokens: letters, digits and the tchar symbols, nothing else")
    func tokens() {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        for byte in UInt8.min...UInt8.max {
            let alphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            #expect(HTTPHeaderSyntax.isTokenByte(byte) == (alphanumeric || symbols.contains(byte)), "byte \(byte)")
        }
    }

    @Test("chunk sizes: 1 to 15 hex digits, whitespace, then the end or extensions")
    func chunkSizes() {
        let valid: [(String, Int64)] = [
            ("0", 0), ("1a", 26), ("1A", 26), ("FF;name=value", 255), ("10 ", 16), ("10\t; name", 16), ("a;", 10),
            ("fffffffffffffff", 0xFFF_FFFF_FFFF_FFFF),
        ]
        for (line, size) in valid {
            #expect(HTTPHeaderSyntax.chunkSize(Array(line.utf8)) == size, "\(line)")
        }
        for line in ["", " 1", "-1", "+1", "0x10", "1 a", "1a xyz", ";ext", "ffffffffffffffff", "1\r"] {
            #expect(HTTPHeaderSyntax.chunkSize(Array(line.utf8)) == nil, "\(line)")
        }
    }

    @Test("case-insensitive comparison folds ASCII letters only")
    func caseInsensitive() {
        #expect(HTTPHeaderSyntax.equalIgnoringASCIICase("Content-Length", "content-LENGTH"))
        #expect(!HTTPHeaderSyntax.equalIgnoringASCIICase("a@", "A`"))
        #expect(!HTTPHeaderSyntax.equalIgnoringASCIICase("é", "É"))
        #expect(HTTPHeaderSyntax.trimmed(Array(" \t ok \t".utf8)).elementsEqual("ok".utf8))
    }
}
