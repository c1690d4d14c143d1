import Testing

/// A trait, on a suite or a test, whose scope wraps each of its test cases: a suite's own scope,
/// which runs once around all of them, passes through.
public protocol TestCaseScoping: SuiteTrait, TestTrait, TestScoping {
    /// Runs `testCase`, one test case, in the trait's scope.
    func scope(_ testCase: @Sendable () async throws -> Void) async throws
}

extension TestCaseScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        try await scope(function)
    }
}
