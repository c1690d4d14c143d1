import Testing
@testable import PlaygroundKit

@Suite("ProgressFormatter: bytes, rates, durations and the progress line")
struct ProgressFormatterTests {
    @Test(arguments: [
        (Int64(0), "0 B"), (1, "1 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
        (1_048_576, "1.0 MiB"), (200_000, "195.3 KiB"), (3 << 30, "3.0 GiB"), (5 << 40, "5.0 TiB"), (-5, "0 B"),
    ])
    func bytes(count: Int64, text: String) {
        #expect(ProgressFormatter.bytes(count) == text)
    }

    @Test("a rate is bytes per second; nonsense counts as 0")
    func rate() {
        #expect(ProgressFormatter.rate(2048) == "2.0 KiB/s")
        #expect(ProgressFormatter.rate(0.4) == "0 B/s")
        #expect(ProgressFormatter.rate(-1) == "0 B/s")
        #expect(ProgressFormatter.rate(.infinity) == "0 B/s")
        #expect(ProgressFormatter.rate(.nan) == "0 B/s")
    }

    @Test(arguments: [
        (0.0, "0s"), (0.2, "1s"), (42, "42s"), (59.5, "1m00s"), (187, "3m07s"), (7500, "2h05m"), (Double.infinity, "?"),
    ])
    func duration(seconds: Double, text: String) {
        #expect(ProgressFormatter.duration(seconds) == text)
    }

    @Test("the bar has 20 cells, filled by whole twentieths")
    func bar() {
        #expect(ProgressFormatter.bar(0) == "[--------------------]")
        #expect(ProgressFormatter.bar(0.26) == "[#####---------------]")
        #expect(ProgressFormatter.bar(1) == "[####################]")
        #expect(ProgressFormatter.bar(7) == "[####################]")
        #expect(ProgressFormatter.bar(-1) == "[--------------------]")
    }

    @Test("a line in progress has the share, the bytes, the rate and the time left")
    func lineInProgress() {
        #expect(ProgressFormatter.line(done: 262_144, total: 1_048_576, elapsed: 0.5)
            == "[#####---------------]  25%  256.0 KiB / 1.0 MiB  512.0 KiB/s  ETA 2s")
        #expect(ProgressFormatter.line(done: 0, total: 100, elapsed: 0)
            == "[--------------------]   0%  0 B / 100 B  0 B/s  ETA ?")
    }

    @Test("the final line says done; an unknown total gives bytes and rate only")
    func finalAndUnknown() {
        #expect(ProgressFormatter.line(done: 1_048_576, total: 1_048_576, elapsed: 2, finished: true)
            == "[####################] 100%  1.0 MiB / 1.0 MiB  512.0 KiB/s  done")
        #expect(ProgressFormatter.line(done: 4096, total: -1, elapsed: 2) == "4.0 KiB  2.0 KiB/s")
        #expect(ProgressFormatter.line(done: 4096, total: nil, elapsed: 1, finished: true)
            == "[####################] 100%  4.0 KiB / 4.0 KiB  4.0 KiB/s  done")
        #expect(ProgressFormatter.line(done: 0, total: 0, elapsed: 1, finished: true)
            == "[####################] 100%  0 B / 0 B  0 B/s  done")
    }
}
