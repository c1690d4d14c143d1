import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin

/// `HTTPResponse.text` on a 10 MB body: UTF-8 and single-byte charsets, named by the response or
/// sniffed from the body (the no-charset path: BOM, the UTF-16 pattern, a UTF-8 validation pass,
/// else windows-1252), each against Foundation decoding the same bytes with the encoding known.
enum TextBenchmark {
    static var size: Int { 10_000_000 }
    static let utf8Target = 500.0
    static let singleByteTarget = 100.0

    /// Mixed text, mostly ASCII as real bodies are, with two-, three- and four-byte sequences.
    static let utf8Paragraph = "Le café «Jewzruxin» — naïve façade, Straße, 東京, 🚀. The quick brown fox jumps over the lazy dog 0123456789.\n"
    /// windows-1252 bytes, written as the scalars of the same values: é ï ç ß à, and 0x80–0x9F (€ “ ” –),
    /// where windows-1252 differs from ISO-8859-1.
    static let cp1252Paragraph = "Caf\u{E9} \u{93}Jewzruxin\u{94} \u{96} na\u{EF}ve fa\u{E7}ade, Stra\u{DF}e, d\u{E9}j\u{E0} vu, \u{80}12. The quick brown fox jumps over the lazy dog 0123456789.\n"
    /// ISO-8859-1 bytes: high bytes in 0xA0–0xFF only.
    static let latin1Paragraph = "Caf\u{E9} \u{AB}Jewzruxin\u{BB} na\u{EF}ve fa\u{E7}ade, Stra\u{DF}e, d\u{E9}j\u{E0} vu, \u{A9} \u{BD}. The quick brown fox jumps over the lazy dog 0123456789.\n"
    static let cp1252Specials: [UInt32: Character] = [0x80: "€", 0x93: "“", 0x94: "”", 0x96: "–"]

    /// `paragraph` repeated to about ``size`` bytes (whole paragraphs, so UTF-8 stays valid).
    static func body(_ paragraph: [UInt8]) -> Data {
        var data = Data(capacity: size)
        while data.count + paragraph.count <= size { data.append(contentsOf: paragraph) }
        return data
    }

    static func bytes(ofScalars text: String) -> [UInt8] { text.unicodeScalars.map { UInt8($0.value) } }

    /// A response as the transport makes it, with the given Content-Type (none for `nil`).
    static func response(_ contentType: String?, _ data: Data) -> HTTPResponse {
        let url = URL(string: "http://127.0.0.1/text")!
        var headers = ["Content-Length": String(data.count)]
        if let contentType { headers["Content-Type"] = contentType }
        return HTTPResponse(core: HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers), data: data)
    }

    struct Row: Codable {
        var name: String
        var megabytesPerSecond: Double
        var baseline: String?
        var ratio: Double?
        var targetMBps: Double?
        var met: Bool?
        var correct: Bool
    }

    struct Report: Codable {
        var bodyBytes: Int
        var rows: [Row]
        var baselines: [Measurement]
    }

    static func run() -> Bool {
        print("")
        print("Text: HTTPResponse.text on a \(size / 1_000_000) MB body, against Foundation decoding it with the encoding known;")
        print("median of \(Settings.rounds) rounds; MB = 10^6 bytes")
        let utf8 = body(Array(utf8Paragraph.utf8))
        let cp1252 = body(bytes(ofScalars: cp1252Paragraph))
        let latin1 = body(bytes(ofScalars: latin1Paragraph))
        let utf8Expected = String(decoding: utf8, as: UTF8.self)
        let cp1252Expected = String(cp1252Paragraph.unicodeScalars.map { cp1252Specials[$0.value] ?? Character($0) })
        let latin1Expected = latin1Paragraph
        let cp1252Count = cp1252.count / cp1252Paragraph.unicodeScalars.count
        let latin1Count = latin1.count / latin1Paragraph.unicodeScalars.count

        // Baselines: Foundation / the standard library with the encoding known, no header to read.
        func decoding(_ name: String, _ data: Data, _ decode: @escaping (Data) -> String?) -> Benchmark {
            Benchmark(name: name, bytes: data.count) { iterations in
                var total = 0
                for _ in 0..<iterations { total &+= decode(data)?.utf8.count ?? 0 }
                return total
            }
        }
        let baselines = [
            decoding("String(decoding:as: UTF8.self)", utf8) { String(decoding: $0, as: UTF8.self) },
            decoding("String(data:encoding: .windowsCP1252)", cp1252) { String(data: $0, encoding: .windowsCP1252) },
            decoding("String(data:encoding: .isoLatin1)", latin1) { String(data: $0, encoding: .isoLatin1) },
        ].map { $0.measure() }

        struct Case {
            var name: String
            var contentType: String?
            var data: Data
            var baseline: Int
            var target: Double?
            var check: (String?) -> Bool
            var sniffOnly = false
        }
        func repeated(_ paragraph: String, _ count: Int) -> (String?) -> Bool {
            { text in
                guard let text else { return false }
                return text.count == paragraph.count * count && text.hasPrefix(paragraph) && text.hasSuffix(paragraph)
            }
        }
        let cases = [
            Case(name: "UTF-8, charset=utf-8", contentType: "text/plain; charset=utf-8", data: utf8, baseline: 0, target: utf8Target,
                 check: { $0 == utf8Expected }),
            Case(name: "UTF-8, no Content-Type (sniffed)", contentType: nil, data: utf8, baseline: 0, target: utf8Target,
                 check: { $0 == utf8Expected }),
            Case(name: "windows-1252, charset=windows-1252", contentType: "text/html; charset=windows-1252", data: cp1252, baseline: 1,
                 target: singleByteTarget, check: repeated(cp1252Expected, cp1252Count)),
            Case(name: "windows-1252, no Content-Type (sniffed)", contentType: nil, data: cp1252, baseline: 1, target: singleByteTarget,
                 check: repeated(cp1252Expected, cp1252Count)),
            Case(name: "ISO-8859-1, text/plain without charset", contentType: "text/plain", data: latin1, baseline: 2,
                 target: singleByteTarget, check: repeated(latin1Expected, latin1Count)),
            Case(name: "sniffing alone (textEncoding), UTF-8 body", contentType: nil, data: utf8, baseline: 0, target: nil,
                 check: { _ in true }, sniffOnly: true),
        ]

        print("case".padded(48) + "MB/s".leftPadded(9) + "vs base".leftPadded(9) + "  " + "target".padded(14) + "result")
        var rows: [Row] = []
        var passed = true
        for testCase in cases {
            let response = response(testCase.contentType, testCase.data)
            let correct = testCase.sniffOnly ? response.textEncoding == .utf8 : testCase.check(response.text)
            let benchmark: Benchmark
            if testCase.sniffOnly {
                benchmark = Benchmark(name: testCase.name, bytes: testCase.data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= Int(response.textEncoding.rawValue) }
                    return total
                }
            } else {
                benchmark = Benchmark(name: testCase.name, bytes: testCase.data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= response.text?.utf8.count ?? 0 }
                    return total
                }
            }
            let rate = benchmark.measure().megabytesPerSecond ?? 0
            let base = baselines[testCase.baseline]
            let ratio = base.megabytesPerSecond.flatMap { $0 > 0 ? rate / $0 : nil }
            let met = testCase.target.map { rate >= $0 && correct }
            if met == false { passed = false }
            rows.append(Row(name: testCase.name, megabytesPerSecond: rate, baseline: base.name, ratio: ratio, targetMBps: testCase.target,
                            met: met, correct: correct))
            let target = testCase.target.map { String(format: "≥ %.0f MB/s", $0) }
            print(
                ("  " + testCase.name).padded(48) + String(format: "%.0f", rate).leftPadded(9) + Format.ratio(ratio).leftPadded(9)
                    + "  " + (target ?? "—").padded(14)
                    + (met.map { $0 ? "met" : "MISSED" } ?? "info") + (correct ? "" : " (WRONG TEXT)"))
            Results.shared.add(SummaryEntry(
                section: "text", name: testCase.name, value: String(format: "%.0f MB/s", rate), ratio: Format.ratio(ratio),
                baseline: base.name, target: target, met: met, note: correct ? nil : "wrong text", counts: testCase.target != nil))
        }
        print("baselines:")
        for base in baselines {
            print(("  " + base.name).padded(48) + (base.megabytesPerSecond.map { String(format: "%.0f", $0) } ?? "—").leftPadded(9))
        }
        if !repeated(cp1252Expected, cp1252Count)(String(data: cp1252, encoding: .windowsCP1252)) {
            print("  (Foundation's windows-1252 decoding doesn't give the WHATWG text for these bytes: its rate is for reference only)")
        }
        Results.shared.record("text", Report(bodyBytes: size, rows: rows, baselines: baselines))
        return passed
    }
}
