import Foundation
import Jewzruxin
import Testing

/// The transports the network suites run on: each test of a suite marked ``Trait/onEveryTransport``
/// runs once per transport, with ``current`` set, and the suites' `makeSession` helpers build their
/// sessions on it.
///
/// `JEWZRUXIN_TEST_TRANSPORT=native` (or `urlSession`) limits a run to one transport, to tell
/// which one a failure belongs to.
public enum TransportUnderTest: String, CaseIterable, Sendable, CustomStringConvertible {
    case urlSession
    case native
    case curl

    /// The transport of the test running now (URLSession outside a parameterised suite).
    @TaskLocal public static var current = TransportUnderTest.urlSession

    /// The transports to run on: all, or the one named by `JEWZRUXIN_TEST_TRANSPORT`.
    public static var selected: [TransportUnderTest] {
        guard let name = ProcessInfo.processInfo.environment["JEWZRUXIN_TEST_TRANSPORT"],
              let only = TransportUnderTest(rawValue: name)
        else { return allCases }
        return [only]
    }

    /// What to give `HTTPSession(transport:)`.
    public var transport: (any HTTPTransport)? {
        switch self {
        case .urlSession: return .urlSession
        case .native: return .native
        case .curl: return .curl
        }
    }

    public var description: String { rawValue }
}

/// Runs each test case once per selected transport.
public struct OnEveryTransportTrait: TestCaseScoping {
    public func scope(_ testCase: @Sendable () async throws -> Void) async throws {
        for transport in TransportUnderTest.selected {
            do {
                try await TransportUnderTest.$current.withValue(transport) { try await testCase() }
            } catch {
                Issue.record(error, "on the \(transport) transport")
            }
        }
    }
}

extension Trait where Self == OnEveryTransportTrait {
    /// Runs each test once on URLSession and once on the native transport.
    public static var onEveryTransport: Self { OnEveryTransportTrait() }
}
