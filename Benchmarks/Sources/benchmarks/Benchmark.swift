import Foundation

/// A named operation timed in rounds of ``Settings/roundSeconds`` each.
struct Benchmark {
    let name: String
    /// Bytes one iteration goes through (for MB/s); 0 when that means nothing.
    var bytes = 0
    /// Runs the operation `iterations` times and returns a value that depends on every run.
    let body: (Int) -> Int

    init(name: String, bytes: Int = 0, body: @escaping (Int) -> Int) {
        self.name = name
        self.bytes = bytes
        self.body = body
    }

    /// Operations per second, the median of `rounds` rounds.
    func run(rounds: Int = Settings.rounds) -> Double {
        var sink = body(1)  // warm up
        // Calibrate from one iteration up, so that a 10 MB body isn't decoded a thousand times first.
        var iterations = 1
        let target = Settings.roundSeconds
        while true {
            let seconds = Self.time { sink &+= body(iterations) }
            if seconds > target / 5 { iterations = max(1, Int(Double(iterations) * target / seconds)); break }
            iterations *= 4
        }
        var rates: [Double] = []
        for _ in 0..<rounds {
            let seconds = Self.time { sink &+= body(iterations) }
            rates.append(Double(iterations) / seconds)
        }
        if sink == 42 { print("") }
        rates.sort()
        return rates[rates.count / 2]
    }

    /// Runs it and returns the rate with its MB/s (10^6 bytes) when ``bytes`` is set.
    func measure() -> Measurement {
        let rate = run()
        return Measurement(name: name, bytes: bytes, operationsPerSecond: rate, megabytesPerSecond: bytes > 0 ? rate * Double(bytes) / 1e6 : nil)
    }

    static func time(_ work: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        work()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// What a ``Benchmark`` measured, as the JSON file keeps it.
struct Measurement: Codable, Sendable {
    var name: String
    var bytes: Int
    var operationsPerSecond: Double
    var megabytesPerSecond: Double?
}
