import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Jewzruxin

/// The `JSONParser` content handler as a cycle drives it (made, `prepare(for:)` with the response,
/// the body appended in chunks, `parseContent()`, `cleanup()`), against `JSONSerialization.jsonObject`
/// on the whole body alone; on a ~1 MB document and on the ~100 B one the throughput section serves.
/// `JSON(data:)` (the parse `JSONParser` does) and `JSONDecoder` into the models
/// (`responseJSON([T].self)`) for reference.
enum JSONBenchmark {
    /// The chunk size the handler is fed with (a typical read from a socket).
    static let chunk = 16 * 1024

    /// About `size` bytes of JSON: an array of ``Model``-shaped objects.
    static func largeDocument(size: Int = 1_000_000) -> (data: Data, count: Int) {
        var text = "["
        var count = 0
        while text.utf8.count < size {
            if count > 0 { text += "," }
            text += #"{"id":\#(count),"name":"item \#(count) — café «\#(count % 97)»","active":\#(count % 3 == 0),"#
                + #""score":\#(Double(count) * 0.37),"tags":["swift","http","loopback"]}"#
            count += 1
        }
        text += "]"
        return (Data(text.utf8), count)
    }

    static func response(_ data: Data) -> HTTPResponse {
        let headers = ["Content-Type": "application/json", "Content-Length": String(data.count)]
        return HTTPResponse(
            core: HTTPURLResponse(url: URL(string: "http://127.0.0.1/doc.json")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers))
    }

    /// Runs a fresh `JSONParser` over `data` as a cycle would; returns its content.
    static func parse(_ data: Data, response: HTTPResponse) throws -> JSON? {
        let parser = JSONParser()
        defer { parser.cleanup() }
        try parser.prepare(for: response)
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            try parser.append(data.subdata(in: offset..<end))
            offset = end
        }
        return try parser.parseContent() as? JSON
    }

    struct Row: Codable {
        var document: String
        var name: String
        var operationsPerSecond: Double
        var megabytesPerSecond: Double
        var ratio: Double?
    }

    static func run() -> Bool {
        print("")
        print("JSON: the JSONParser content handler fed in \(chunk / 1024) KiB chunks vs JSONSerialization.jsonObject on the body alone;")
        print("median of \(Settings.rounds) rounds; MB = 10^6 bytes")
        let large = largeDocument()
        let documents: [(name: String, data: Data, elements: Int?)] = [
            (String(format: "%.1f MB", Double(large.data.count) / 1e6), large.data, large.count),
            ("\(Model.body.count) B", Model.body, nil),
        ]
        print("document".padded(10) + "case".padded(38) + "ops/s".leftPadded(12) + "MB/s".leftPadded(9) + "vs JSONSerialization".leftPadded(22))
        var rows: [Row] = []
        var correct = true
        for document in documents {
            let data = document.data
            let response = response(data)
            // Check once that every way gives the document.
            let json = try? parse(data, response: response)
            let ok: Bool
            if let elements = document.elements {
                ok = json?.arrayValue?.count == elements && (try? JSONDecoder().decode([Model].self, from: data))?.count == elements
                    && ((try? JSONSerialization.jsonObject(with: data)) as? [Any])?.count == elements
            } else {
                ok = json?["id"]?.intValue == Model.expected.id && (try? JSONDecoder().decode(Model.self, from: data)) == Model.expected
            }
            if !ok { correct = false }
            let isArray = document.elements != nil
            let benchmarks = [
                Benchmark(name: "JSONSerialization.jsonObject (baseline)", bytes: data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= (try? JSONSerialization.jsonObject(with: data)) == nil ? 0 : 1 }
                    return total
                },
                Benchmark(name: "JSONParser, chunked", bytes: data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= (try? parse(data, response: response)) == nil ? 0 : 1 }
                    return total
                },
                Benchmark(name: "JSON(data:)", bytes: data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations { total &+= (try? JSON(data: data)) == nil ? 0 : 1 }
                    return total
                },
                Benchmark(name: isArray ? "JSONDecoder [Model]" : "JSONDecoder Model", bytes: data.count) { iterations in
                    var total = 0
                    for _ in 0..<iterations {
                        if isArray {
                            total &+= (try? JSONDecoder().decode([Model].self, from: data))?.count ?? 0
                        } else {
                            total &+= (try? JSONDecoder().decode(Model.self, from: data))?.id ?? 0
                        }
                    }
                    return total
                },
            ]
            var base: Double?
            for benchmark in benchmarks {
                let measured = benchmark.measure()
                let rate = measured.operationsPerSecond
                if base == nil { base = rate }
                let ratio = base.map { rate / $0 }
                rows.append(Row(document: document.name, name: benchmark.name, operationsPerSecond: rate,
                                megabytesPerSecond: measured.megabytesPerSecond ?? 0, ratio: ratio))
                print(
                    (rows.count % benchmarks.count == 1 ? document.name : "").padded(10) + benchmark.name.padded(38)
                        + Format.rate(rate, "").leftPadded(12) + String(format: "%.1f", measured.megabytesPerSecond ?? 0).leftPadded(9)
                        + Format.ratio(ratio).leftPadded(22) + (ok ? "" : "  (WRONG RESULT)"))
                if benchmark.name == "JSONParser, chunked" {
                    Results.shared.add(SummaryEntry(
                        section: "json", name: "JSONParser, chunked, \(document.name) document",
                        value: String(format: "%.1f MB/s · ", measured.megabytesPerSecond ?? 0) + Format.rate(rate, "/s"),
                        ratio: Format.ratio(ratio), baseline: "JSONSerialization.jsonObject", target: nil, met: nil,
                        note: ok ? nil : "wrong result", counts: false))
                }
            }
        }
        struct Report: Codable {
            var chunkBytes: Int
            var rows: [Row]
        }
        Results.shared.record("json", Report(chunkBytes: chunk, rows: rows))
        return correct
    }
}
