import Foundation

/// A named operation timed in rounds of about a second each.
struct Benchmark {
    let name: String
    /// Runs the operation `iterations` times and returns a value that depends on every run.
    let body: (Int) -> Int

    /// Operations per second, the median of `rounds` rounds.
    func run(rounds: Int = 5) -> Double {
        _ = body(1_000)  // warm up
        var iterations = 1_000
        while true {
            let seconds = Self.time { _ = body(iterations) }
            if seconds > 0.1 { iterations = max(1, Int(Double(iterations) / seconds)); break }
            iterations *= 4
        }
        var rates: [Double] = []
        var sink = 0
        for _ in 0..<rounds {
            let seconds = Self.time { sink &+= body(iterations) }
            rates.append(Double(iterations) / seconds)
        }
        if sink == 42 { print("") }
        rates.sort()
        return rates[rates.count / 2]
    }

    static func time(_ work: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        work()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
