import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

/// A handler class of the test's own, below ``SelectiveDiscarder``, with an initial type list.
class CSVProbe: SelectiveDiscarder, @unchecked Sendable {
    override class var initialAcceptableContentTypes: [String] { ["text/csv"] }
}

/// A subclass of the probe that says nothing of its own.
final class CSVProbeChild: CSVProbe, @unchecked Sendable {}

extension ContentHandlingTests {
    /// The class-level defaults (seed 003: setDefaultAcceptableResponses:, setDefaultAcceptableContentTypes:).
    ///
    /// They are global: the parent suite runs one test at a time, and each test here resets them at
    /// both ends.
    @Suite("Class-level defaults", .serialized)
    struct ClassDefaultsTests {
        static let initialStatuses: Set<Int> = [200, 201, 202, 203]

        /// Everything built-in, as a new handler of each class sees it.
        static func builtInSettings() -> [String: (Set<Int>, [String])] {
            let stream = OutputStream(toMemory: ())
            let file = URL(fileURLWithPath: "/tmp/unused")
            let handlers: [(String, SelectiveDiscarder)] = [
                ("SelectiveDiscarder", SelectiveDiscarder()), ("Accumulator", Accumulator()),
                ("StringConverter", StringConverter()), ("JSONParser", JSONParser()), ("ImageDecoder", ImageDecoder()),
                ("StreamWriter", StreamWriter(stream: stream)), ("FileWriter", FileWriter(url: file)),
                ("CSVProbe", CSVProbe()), ("CSVProbeChild", CSVProbeChild()),
            ]
            return Dictionary(uniqueKeysWithValues: handlers.map { ($0.0, ($0.1.acceptableResponses, $0.1.acceptableContentTypes)) })
        }

        static func expectBuiltIn(sourceLocation: SourceLocation = #_sourceLocation) {
            let settings = builtInSettings()
            for (name, (statuses, _)) in settings {
                #expect(statuses == initialStatuses, "\(name)", sourceLocation: sourceLocation)
            }
            let types = settings.mapValues(\.1)
            #expect(types == [
                "SelectiveDiscarder": [], "Accumulator": [], "StringConverter": [], "StreamWriter": [], "FileWriter": [],
                "JSONParser": ["application/json", "*/*+json"], "ImageDecoder": ["image/*"],
                "CSVProbe": ["text/csv"], "CSVProbeChild": ["text/csv"],
            ], sourceLocation: sourceLocation)
        }

        @Test("a default set on a class is what the class reports afterwards")
        func readBack() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                Accumulator.defaultAcceptableResponses = [204]
                Accumulator.defaultAcceptableContentTypes = ["text/plain"]
                #expect(Accumulator.defaultAcceptableResponses == [204])
                #expect(Accumulator.defaultAcceptableContentTypes == ["text/plain"])
                #expect(Accumulator().acceptableResponses == [204])
            }
        }

        @Test("the built-in defaults: 200–203 for all; any type but JSON and image types")
        func builtInDefaults() {
            SelectiveDiscarder.resetDefaults()
            Self.expectBuiltIn()
            #expect(SelectiveDiscarder.defaultAcceptableResponses == Self.initialStatuses)
            #expect(JSONParser.defaultAcceptableContentTypes == ["application/json", "*/*+json"])
            #expect(ImageDecoder.defaultAcceptableContentTypes == ["image/*"])
            #expect(Accumulator.defaultAcceptableContentTypes.isEmpty)
        }

        @Test("a default set on a class changes the handlers created afterwards only; arguments still win")
        func newInstancesOnly() async throws {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                try await withSandbox { sandbox in
                    let session = makeSession()
                    let before = Accumulator()
                    Accumulator.defaultAcceptableResponses = [206]
                    let after = Accumulator()
                    #expect(before.acceptableResponses == Self.initialStatuses)
                    #expect(after.acceptableResponses == [206])
                    #expect(Accumulator(acceptableResponses: [200]).acceptableResponses == [200])

                    let url = sandbox.echo(code: 206, content: "partial")
                    let taken = try await fetchContent(url, handler: after, session: session)
                    #expect(taken.error == nil)
                    #expect(taken.response.content as? Data == Data("partial".utf8))
                    let refused = try await fetchContent(url, handler: before, session: session)
                    #expect(contentError(refused, .unacceptableStatus) != nil)
                    let ok = try await fetchContent(sandbox.string("/hello/"), handler: after, session: session)
                    #expect(contentError(ok, .unacceptableStatus)?.statusCode == 200)
                    await settle(session)
                }
            }
        }

        @Test("subclasses inherit a class's default; its parent and siblings don't")
        func inheritedBySubclasses() async throws {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                Accumulator.defaultAcceptableResponses = [299]
                #expect(StringConverter().acceptableResponses == [299])
                #expect(JSONParser().acceptableResponses == [299])
                #expect(ImageDecoder().acceptableResponses == [299])
                #expect(JSONParser.defaultAcceptableResponses == [299])
                #expect(SelectiveDiscarder().acceptableResponses == Self.initialStatuses)
                #expect(StreamWriter(stream: OutputStream(toMemory: ())).acceptableResponses == Self.initialStatuses)
                #expect(FileWriter(path: "/tmp/unused").acceptableResponses == Self.initialStatuses)
                #expect(CSVProbe().acceptableResponses == Self.initialStatuses)
                // Statuses and types are separate settings.
                #expect(JSONParser().acceptableContentTypes == ["application/json", "*/*+json"])

                try await withSandbox { sandbox in
                    let session = makeSession()
                    let url = sandbox.echo(code: 299, content: #"{"a":1}"#, headers: ["Content-Type:application/json"])
                    let result = try await fetchContent(url, handler: JSONParser(), session: session)
                    #expect(result.error == nil)
                    #expect((result.response.content as? JSON)?["a"] == 1)
                    await settle(session)
                }
            }
        }

        @Test("the nearest class's own setting wins, whichever was set first")
        func nearestSettingWins() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                JSONParser.defaultAcceptableResponses = [203]
                SelectiveDiscarder.defaultAcceptableResponses = [201]
                Accumulator.defaultAcceptableResponses = [202]
                #expect(SelectiveDiscarder().acceptableResponses == [201])
                #expect(StreamWriter(stream: OutputStream(toMemory: ())).acceptableResponses == [201])
                #expect(CSVProbeChild().acceptableResponses == [201])
                #expect(Accumulator().acceptableResponses == [202])
                #expect(StringConverter().acceptableResponses == [202])
                #expect(ImageDecoder().acceptableResponses == [202])
                #expect(JSONParser().acceptableResponses == [203])
                CSVProbe.defaultAcceptableResponses = [200]
                #expect(CSVProbeChild().acceptableResponses == [200])
                #expect(SelectiveDiscarder().acceptableResponses == [201])
            }
        }

        @Test("content types: a class's initial list holds until an ancestor or the class itself sets one")
        func contentTypeDefaults() async throws {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                CSVProbe.defaultAcceptableContentTypes = []
                #expect(CSVProbe().acceptableContentTypes.isEmpty)
                #expect(CSVProbeChild().acceptableContentTypes.isEmpty)
                #expect(SelectiveDiscarder().acceptableContentTypes.isEmpty)

                JSONParser.defaultAcceptableContentTypes = ["application/vnd.store"]
                #expect(JSONParser().acceptableContentTypes == ["application/vnd.store"])
                #expect(Accumulator().acceptableContentTypes.isEmpty)
                #expect(ImageDecoder().acceptableContentTypes == ["image/*"])

                try await withSandbox { sandbox in
                    let session = makeSession()
                    let store = sandbox.echo(content: #"{"store":{"name":"North"}}"#, headers: ["Content-Type:application/vnd.store"])
                    let taken = try await fetchContent(store, handler: JSONParser(), session: session)
                    #expect((taken.response.content as? JSON)?["store.name"] == "North")
                    let json = sandbox.echo(content: "{}", headers: ["Content-Type:application/json"])
                    let refused = try await fetchContent(json, handler: JSONParser(), session: session)
                    #expect(contentError(refused, .unacceptableContentType) != nil)
                    await settle(session)
                }

                // Set on the root, a list reaches every class without one of its own, JSONParser's too.
                SelectiveDiscarder.resetDefaults()
                SelectiveDiscarder.defaultAcceptableContentTypes = ["text/plain"]
                #expect(JSONParser().acceptableContentTypes == ["text/plain"])
                #expect(ImageDecoder().acceptableContentTypes == ["text/plain"])
                #expect(CSVProbeChild().acceptableContentTypes == ["text/plain"])
            }
        }

        @Test("resetDefaults forgets every class's settings")
        func reset() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                SelectiveDiscarder.defaultAcceptableResponses = [418]
                Accumulator.defaultAcceptableContentTypes = ["text/x"]
                ImageDecoder.defaultAcceptableResponses = []
                CSVProbeChild.defaultAcceptableContentTypes = ["*/*"]
                #expect(ImageDecoder().acceptableResponses.isEmpty)
                #expect(CSVProbeChild().acceptableContentTypes == ["*/*"])
                SelectiveDiscarder.resetDefaults()
                Self.expectBuiltIn()
            }
        }

        @Test("SelectiveDiscarder.shared keeps the settings it was made with")
        func sharedUnaffected() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            let shared = SelectiveDiscarder.shared
            SelectiveDiscarder.defaultAcceptableResponses = [500]
            #expect(SelectiveDiscarder.shared === shared)
            #expect(shared.acceptableResponses == Self.initialStatuses)
            #expect(shared.acceptableContentTypes.isEmpty)
        }
    }
}
