import Foundation

/// Formats a transfer's progress as one line: a bar, the share done, bytes, rate and time left.
///
/// ```swift
/// ProgressFormatter.line(done: 262_144, total: 1_048_576, elapsed: 0.5)
/// // "[#####---------------]  25%  256.0 KiB / 1.0 MiB  512.0 KiB/s  ETA 2s"
/// ProgressFormatter.line(done: 1_048_576, total: 1_048_576, elapsed: 2, finished: true)
/// // "[####################] 100%  1.0 MiB / 1.0 MiB  512.0 KiB/s  done"
/// ```
///
/// Every function is pure, so the output depends on its arguments only.
enum ProgressFormatter {
    /// The number of cells in the bar.
    private static let barWidth = 20

    /// A byte count with a binary unit: `512 B`, `1.5 KiB`, `20.0 MiB`, `3.2 GiB`.
    ///
    /// - Parameter count: A number of bytes (negative counts are shown as 0).
    /// - Returns: Whole bytes below 1 KiB, else one decimal.
    static func bytes(_ count: Int64) -> String {
        let count = max(0, count)
        guard count >= 1024 else { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    /// A transfer rate: ``bytes(_:)`` per second.
    ///
    /// - Parameter bytesPerSecond: The rate; not finite or negative counts as 0.
    /// - Returns: Such as `1.2 MiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        let value = bytesPerSecond.isFinite && bytesPerSecond > 0 ? bytesPerSecond : 0
        return bytes(Int64(min(value, Double(Int64.max / 2)))) + "/s"
    }

    /// A duration to come, rounded up: `0s`, `42s`, `3m07s`, `2h05m`.
    ///
    /// - Parameter seconds: The duration; not finite gives `?`.
    /// - Returns: The shortest readable form.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let total = Int(max(0, seconds).rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m" + pad2(total % 60) + "s" }
        return "\(total / 3600)h" + pad2(total % 3600 / 60) + "m"
    }

    /// A bar of ``barWidth`` cells, `#` for done and `-` for to do: `[#####---------------]`.
    ///
    /// - Parameter fraction: The share done, clamped to 0…1.
    /// - Returns: The bar with its brackets.
    static func bar(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let filled = Int((clamped * Double(barWidth)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
    }

    /// The progress line.
    ///
    /// - Parameters:
    ///   - done: The bytes received so far.
    ///   - total: The bytes expected, or `nil` (or a negative value) when unknown: the line then has
    ///     no bar, share or ETA.
    ///   - elapsed: The seconds since the transfer started.
    ///   - finished: Whether the transfer is complete: `done` replaces the ETA.
    /// - Returns: The line, without a newline.
    static func line(done: Int64, total: Int64?, elapsed: Double, finished: Bool = false) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let known = total.flatMap { $0 >= 0 ? $0 : nil }
        guard let total = known ?? (finished ? done : nil) else {
            return "\(bytes(done))  \(self.rate(rate))"
        }
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let percent = Int((min(1, max(0, fraction)) * 100).rounded(.down))
        let percentText = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        let eta: String
        if finished {
            eta = "done"
        } else if rate > 0 {
            eta = "ETA " + duration(Double(max(0, total - done)) / rate)
        } else {
            eta = "ETA ?"
        }
        return "\(bar(fraction)) \(percentText)  \(bytes(done)) / \(bytes(total))  \(self.rate(rate))  \(eta)"
    }

    private static func pad2(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
