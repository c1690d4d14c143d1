import Foundation
import Testing
@testable import Jewzruxin

@Suite("Charset labels (WHATWG Encoding Standard)")
struct CharsetLabelTests {
    @Test("every label of encodings.json names its encoding, case- and whitespace-insensitively")
    func everyLabel() throws {
        let encodings = try TextFixtures.whatwgEncodings()
        #expect(encodings.count == 40)
        var labelCount = 0
        for (name, labels) in encodings {
            let whatwg = try #require(WHATWGEncoding(rawValue: name), "no case for \(name)")
            for label in labels {
                labelCount += 1
                #expect(WHATWGEncoding(label: label) == whatwg, "\(label)")
                #expect(WHATWGEncoding(label: " \t\(label.uppercased())\n\u{0C}\r") == whatwg, "\(label)")
                let encoding = String.Encoding(charsetLabel: label)
                if name == "replacement" {
                    #expect(encoding == nil, "\(label) names replacement")
                } else {
                    #expect(encoding != nil, "\(label)")
                    #expect(encoding == String.Encoding(charsetLabel: name), "\(label) and \(name)")
                }
            }
        }
        #expect(labelCount == WHATWGEncoding.labels.count)
        #expect(labelCount > 200)
    }

    @Test("the embedded table has exactly the encodings of encodings.json")
    func sameEncodings() throws {
        let names = try TextFixtures.whatwgEncodings().map(\.name)
        #expect(Set(names) == Set(WHATWGEncoding.allCases.map(\.rawValue)))
    }

    @Test("WHATWG semantics of well-known labels")
    func wellKnownLabels() {
        #expect(String.Encoding(charsetLabel: "utf-8") == .utf8)
        #expect(String.Encoding(charsetLabel: "UTF8") == .utf8)
        #expect(String.Encoding(charsetLabel: "iso-8859-1") == .windowsCP1252)
        #expect(String.Encoding(charsetLabel: "latin1") == .windowsCP1252)
        #expect(String.Encoding(charsetLabel: "us-ascii") == .windowsCP1252)
        #expect(String.Encoding(charsetLabel: "utf-16") == .utf16LittleEndian)
        #expect(String.Encoding(charsetLabel: "utf-16be") == .utf16BigEndian)
        #expect(String.Encoding(charsetLabel: "gb2312") == String.Encoding(charsetLabel: "gb18030"))
        #expect(String.Encoding(charsetLabel: "x-sjis") == .shiftJIS)
        #expect(String.Encoding(charsetLabel: "iso-2022-jp") == .iso2022JP)
        #expect(String.Encoding(charsetLabel: "euc-jp") == .japaneseEUC)
    }

    @Test("unknown labels and the replacement labels give nil",
          arguments: ["", " ", "utf-7", "utf-32", "latin-1 ", "iso-2022-kr", "hz-gb-2312", "replacement",
                      "csiso2022kr", "utf 8", "utf-8\u{0B}", "\u{A0}utf-8", "ＵＴＦ-8", "x-unknown"])
    func unknownLabels(label: String) {
        #expect(String.Encoding(charsetLabel: label) == nil)
    }

    @Test("each WHATWG encoding decodes known bytes", arguments: EncodedSample.all)
    func decodesSample(sample: EncodedSample) throws {
        let encoding = try #require(String.Encoding(charsetLabel: sample.name))
        #expect(TextDecoding.decode(Data(sample.bytes), encoding: encoding) == sample.text)
        #expect(ResponseTextEncoding.decode(Data(sample.bytes), encoding: encoding) == sample.text)
    }

    @Test("every WHATWG encoding but replacement has a sample")
    func samplesCoverEveryEncoding() {
        let sampled = Set(EncodedSample.all.map(\.name))
        let expected = Set(WHATWGEncoding.allCases.map(\.rawValue)).subtracting(["replacement"])
        #expect(sampled == expected)
    }

    @Test("String(data:encoding:) decodes with the returned value where Foundation can",
          arguments: EncodedSample.all.filter { !["EUC-JP", "x-user-defined"].contains($0.name) })
    func foundationDecodes(sample: EncodedSample) throws {
        let encoding = try #require(String.Encoding(charsetLabel: sample.name))
        #expect(String(data: Data(sample.bytes), encoding: encoding) == sample.text)
    }

    /// Bytes where CoreFoundation on Linux defines a character the WHATWG index does not.
    static let knownCoreFoundationDifferences: Set<String> = [
        "windows-1253 AA",
        "windows-874 DB", "windows-874 DC", "windows-874 DD", "windows-874 DE",
        "windows-874 FC", "windows-874 FD", "windows-874 FE", "windows-874 FF",
    ]

    @Test("single-byte tables agree with CoreFoundation byte by byte, except WHATWG's own choices",
          .enabled(if: Self.isLinux),
          arguments: WHATWGEncoding.allCases.filter {
              if case .singleByte = TextDecoding.Decoder($0.stringEncoding ?? .utf8) { return $0 != .xUserDefined }
              return false
          })
    func singleByteTablesMatchCoreFoundation(encoding: WHATWGEncoding) throws {
        let stringEncoding = try #require(encoding.stringEncoding)
        for byte in UInt8(0x80)...UInt8(0xFF) {
            let ours = try #require(TextDecoding.decode(Data([byte]), encoding: stringEncoding))
            let key = "\(encoding.rawValue) \(String(byte, radix: 16, uppercase: true))"
            if let foundation = String(data: Data([byte]), encoding: stringEncoding) {
                #expect(ours == foundation || Self.knownCoreFoundationDifferences.contains(key), "\(key)")
            } else {
                // Undefined for CF: WHATWG has U+FFFD, or the C1 control for windows-* 0x80-0x9F.
                let c1 = encoding.rawValue.hasPrefix("windows-") && byte < 0xA0
                #expect(ours == (c1 ? String(UnicodeScalar(byte)) : "\u{FFFD}"), "\(key)")
            }
        }
    }

    static var isLinux: Bool {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }
}
