import Foundation
import JewzruxinSandbox
@testable import PlaygroundKit

/// Runs `body` with a playground in this process on a fresh sandbox, its output captured, its working
/// directory a temporary one; both are removed afterwards.
func withPlayground(
    colors: Bool = false, _ body: (Playground, CapturedOutput, Sandbox) async throws -> Void
) async throws {
    let sandbox = try Sandbox.start()
    defer { sandbox.stop() }
    let output = CapturedOutput()
    let directory = try PlaygroundExecutable.temporaryDirectory()
    defer { PlaygroundExecutable.removeTemporaryDirectory(directory) }
    let playground = Playground(configuration: .init(
        sandboxURL: sandbox.baseURL.absoluteString, console: Console(sink: output, colors: colors),
        workingDirectory: directory))
    try await body(playground, output, sandbox)
}
