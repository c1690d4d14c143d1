import Foundation
import Jewzruxin

/// `FormData`: serializing a form (`encoded`, the body `HTTPFormProcessor` sends) and parsing one
/// (`FormData(parsing:)`), against the same done by hand with Foundation's percent-encoding.
enum FormBenchmark {
    /// A sign-up-like form: ASCII, spaces, punctuation, accents, CJK and emoji.
    static let form: FormData = [
        "username": "jewzruxin", "email": "someone+test@example.com", "password": "p@ss w0rd&=?/",
        "first_name": "Zoë", "last_name": "Ångström-Ødegård", "city": "São Paulo", "country": "BR",
        "bio": "Swift developer — likes HTTP, caching & URI templates. 東京 🚀",
        "interests": "networking", "interests": "performance", "interests": "testing",
        "newsletter": "on", "terms": "accepted", "redirect": "https://example.com/welcome?step=2&from=signup",
        "comment": String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 8),
        "empty": "", "csrf": "b7f0c1e2-4d5a-4e6f-9a8b-7c6d5e4f3a2b",
    ]

    /// What the WHATWG serializer keeps (a space is encoded, then turned into `+`).
    static let kept = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._")

    static func encodeByHand(_ pairs: [(name: String, value: String)]) -> String {
        func encode(_ text: String) -> String {
            (text.addingPercentEncoding(withAllowedCharacters: kept) ?? "").replacingOccurrences(of: "%20", with: "+")
        }
        return pairs.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&")
    }

    static func parseByHand(_ text: String) -> [(name: String, value: String)] {
        func decode(_ part: Substring) -> String {
            let spaced = part.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return text.split(separator: "&").map { piece -> (name: String, value: String) in
            guard let equals = piece.firstIndex(of: "=") else { return (decode(piece), "") }
            return (decode(piece[..<equals]), decode(piece[piece.index(after: equals)...]))
        }
    }

    struct Row: Codable {
        var name: String
        var operationsPerSecond: Double
        var megabytesPerSecond: Double
        var baseline: String
        var ratio: Double?
        var correct: Bool
    }

    static func run() -> Bool {
        let form = form
        let encoded = form.encoded
        let byHand = encodeByHand(form.pairs)
        let parsed = FormData(parsing: encoded)
        let parsedByHand = FormData(parseByHand(encoded))
        print("")
        print("Form encoding: a form of \(form.count) pairs, \(encoded.utf8.count) bytes encoded; median of \(Settings.rounds) rounds;")
        print("MB/s of the encoded form (10^6 bytes)")
        let cases: [(library: Benchmark, baseline: Benchmark, correct: Bool)] = [
            (
                Benchmark(name: "FormData.encoded", bytes: encoded.utf8.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= form.encoded.utf8.count }
                    return total
                },
                Benchmark(name: "addingPercentEncoding by hand", bytes: encoded.utf8.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= encodeByHand(form.pairs).utf8.count }
                    return total
                },
                encoded == byHand
            ),
            (
                Benchmark(name: "FormData(parsing:)", bytes: encoded.utf8.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= FormData(parsing: encoded).count }
                    return total
                },
                Benchmark(name: "split + removingPercentEncoding by hand", bytes: encoded.utf8.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= parseByHand(encoded).count }
                    return total
                },
                parsed == form && parsedByHand == form
            ),
        ]
        print("case".padded(44) + "ops/s".leftPadded(12) + "MB/s".leftPadded(8) + "vs base".leftPadded(9) + "  baseline")
        var rows: [Row] = []
        var baselines: [Measurement] = []
        for (library, baseline, correct) in cases {
            let mine = library.measure()
            let base = baseline.measure()
            baselines.append(base)
            let ratio = mine.operationsPerSecond / base.operationsPerSecond
            rows.append(Row(name: mine.name, operationsPerSecond: mine.operationsPerSecond, megabytesPerSecond: mine.megabytesPerSecond ?? 0,
                            baseline: base.name, ratio: ratio, correct: correct))
            for (measurement, ratioText, note) in [
                (mine, Format.ratio(ratio), base.name + (correct ? "" : " (RESULTS DIFFER)")), (base, "", "baseline"),
            ] {
                print(
                    ("  " + measurement.name).padded(44) + String(format: "%.0f", measurement.operationsPerSecond).leftPadded(12)
                        + String(format: "%.1f", measurement.megabytesPerSecond ?? 0).leftPadded(8) + ratioText.leftPadded(9) + "  " + note)
            }
            Results.shared.add(SummaryEntry(
                section: "form", name: mine.name,
                value: Format.rate(mine.operationsPerSecond, "/s") + String(format: " · %.0f MB/s", mine.megabytesPerSecond ?? 0),
                ratio: Format.ratio(ratio), baseline: base.name, target: nil, met: nil,
                note: correct ? nil : "results differ from the baseline's", counts: false))
        }
        struct Report: Codable {
            var pairs: Int
            var encodedBytes: Int
            var rows: [Row]
            var baselines: [Measurement]
        }
        Results.shared.record("form", Report(pairs: form.count, encodedBytes: encoded.utf8.count, rows: rows, baselines: baselines))
        return rows.allSatisfy(\.correct)
    }
}
