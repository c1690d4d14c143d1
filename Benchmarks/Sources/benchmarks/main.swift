import Foundation

// Runs every benchmark and prints a table: `swift run -c release --package-path Benchmarks benchmarks`.

func row(_ name: String, _ rate: Double, _ note: String) -> String {
    name.padding(toLength: 42, withPad: " ", startingAt: 0)
        + String(format: "%14.0f", rate).padding(toLength: 16, withPad: " ", startingAt: 0) + note
}

print("Benchmark (median of 5 rounds of ~1 s)".padding(toLength: 42, withPad: " ", startingAt: 0) + "ops/s           vs baseline")
do {
    let rows = try URITemplateBenchmark.run()
    let baseline = rows.last?.1 ?? 1
    print("URI template: \(URITemplateBenchmark.text)")
    for (name, rate) in rows {
        print(row("  " + name, rate, String(format: "%.2fx", rate / baseline)))
    }
} catch {
    print("URI template benchmark failed: \(error)")
    exit(1)
}
