// The `playground` executable: `swift run playground`. The command logic is in PlaygroundKit.
import Foundation
import PlaygroundKit

let status = await PlaygroundApp.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
