import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

// The class-level defaults are process-wide, and the other suites (fault matrix, stress, writers…)
// create the library's handlers with the default settings while these tests run. So these tests
// only ever read the defaults of the library's classes; every default they set is on a class of
// their own below, which nothing else in the process creates.

// MARK: A test tree mirroring the library's hierarchy

/// The root of the test tree, where ``SelectiveDiscarder`` stands in the library's.
///
/// It accumulates, so that its descendants can be fetched with and give their content back.
private class TreeRoot: Accumulator, @unchecked Sendable {}

/// A branch beside the accumulating one, as ``StreamWriter`` and ``FileWriter`` are.
private final class TreeSide: TreeRoot, @unchecked Sendable {}

/// The accumulating branch, where ``Accumulator`` stands in the library's.
private class TreeMid: TreeRoot, @unchecked Sendable {}

/// A subclass that says nothing of its own, as ``StringConverter`` does of types.
private final class TreeMidLeaf: TreeMid, @unchecked Sendable {}

/// A JSON parser with an initial type list, as ``JSONParser`` is.
private final class TreeJSON: TreeMid, @unchecked Sendable {
    override class var initialAcceptableContentTypes: [String] { ["application/json", "*/*+json"] }

    override func content(from data: Data) throws -> (any Sendable)? {
        try JSON(data: data)
    }
}

/// A sibling with another initial type list, as ``ImageDecoder`` is.
private final class TreeImage: TreeMid, @unchecked Sendable {
    override class var initialAcceptableContentTypes: [String] { ["image/*"] }
}

/// A class of the tree's own, below its root, with an initial type list.
private class CSVProbe: TreeRoot, @unchecked Sendable {
    override class var initialAcceptableContentTypes: [String] { ["text/csv"] }
}

/// A subclass of the probe that says nothing of its own.
private final class CSVProbeChild: CSVProbe, @unchecked Sendable {}

// MARK: A subclass of each library class

private final class ProbeSelectiveDiscarder: SelectiveDiscarder, @unchecked Sendable {}
private class ProbeAccumulator: Accumulator, @unchecked Sendable {}
private final class ProbeAccumulatorChild: ProbeAccumulator, @unchecked Sendable {}
private final class ProbeStringConverter: StringConverter, @unchecked Sendable {}
private class ProbeJSONParser: JSONParser, @unchecked Sendable {}
private final class ProbeJSONParserChild: ProbeJSONParser, @unchecked Sendable {}
private final class ProbeImageDecoder: ImageDecoder, @unchecked Sendable {}
private final class ProbeStreamWriter: StreamWriter, @unchecked Sendable {}
private final class ProbeFileWriter: FileWriter, @unchecked Sendable {}

extension ContentHandlingTests {
    /// The class-level defaults (seed 003: setDefaultAcceptableResponses:, setDefaultAcceptableContentTypes:).
    ///
    /// They are global: the parent suite runs one test at a time, each test here resets them at
    /// both ends, and the only classes they are set on are this file's own (see above), so the
    /// handlers other suites create meanwhile keep the built-in settings.
    @Suite("Class-level defaults", .serialized)
    struct ClassDefaultsTests {
        static let initialStatuses: Set<Int> = [200, 201, 202, 203]
        static let jsonTypes = ["application/json", "*/*+json"]

        /// A new handler of each library class, by name.
        static func libraryHandlers() -> [(String, SelectiveDiscarder)] {
            [
                ("SelectiveDiscarder", SelectiveDiscarder()), ("Accumulator", Accumulator()),
                ("StringConverter", StringConverter()), ("JSONParser", JSONParser()), ("ImageDecoder", ImageDecoder()),
                ("StreamWriter", StreamWriter(stream: OutputStream(toMemory: ()))),
                ("FileWriter", FileWriter(url: URL(fileURLWithPath: "/tmp/unused"))),
            ]
        }

        /// A new handler of each of this file's classes, by name.
        static func testHandlers() -> [(String, SelectiveDiscarder)] {
            [
                ("TreeRoot", TreeRoot()), ("TreeSide", TreeSide()), ("TreeMid", TreeMid()), ("TreeMidLeaf", TreeMidLeaf()),
                ("TreeJSON", TreeJSON()), ("TreeImage", TreeImage()), ("CSVProbe", CSVProbe()), ("CSVProbeChild", CSVProbeChild()),
                ("ProbeSelectiveDiscarder", ProbeSelectiveDiscarder()), ("ProbeAccumulator", ProbeAccumulator()),
                ("ProbeAccumulatorChild", ProbeAccumulatorChild()), ("ProbeStringConverter", ProbeStringConverter()),
                ("ProbeJSONParser", ProbeJSONParser()), ("ProbeJSONParserChild", ProbeJSONParserChild()),
                ("ProbeImageDecoder", ProbeImageDecoder()),
                ("ProbeStreamWriter", ProbeStreamWriter(stream: OutputStream(toMemory: ()))),
                ("ProbeFileWriter", ProbeFileWriter(path: "/tmp/unused")),
            ]
        }

        /// The built-in type lists of the library's classes.
        static let libraryTypes: [String: [String]] = [
            "SelectiveDiscarder": [], "Accumulator": [], "StringConverter": [], "StreamWriter": [], "FileWriter": [],
            "JSONParser": jsonTypes, "ImageDecoder": ["image/*"],
        ]

        /// The built-in type lists of this file's classes: their own initial lists, or their nearest
        /// ancestor's, the library's included.
        static let testTypes: [String: [String]] = [
            "TreeRoot": [], "TreeSide": [], "TreeMid": [], "TreeMidLeaf": [], "TreeJSON": jsonTypes, "TreeImage": ["image/*"],
            "CSVProbe": ["text/csv"], "CSVProbeChild": ["text/csv"],
            "ProbeSelectiveDiscarder": [], "ProbeAccumulator": [], "ProbeAccumulatorChild": [], "ProbeStringConverter": [],
            "ProbeJSONParser": jsonTypes, "ProbeJSONParserChild": jsonTypes, "ProbeImageDecoder": ["image/*"],
            "ProbeStreamWriter": [], "ProbeFileWriter": [],
        ]

        static func expectSettings(
            _ handlers: [(String, SelectiveDiscarder)], types: [String: [String]], sourceLocation: SourceLocation
        ) {
            for (name, handler) in handlers {
                #expect(handler.acceptableResponses == initialStatuses, "\(name)", sourceLocation: sourceLocation)
            }
            let seen = Dictionary(uniqueKeysWithValues: handlers.map { ($0.0, $0.1.acceptableContentTypes) })
            #expect(seen == types, sourceLocation: sourceLocation)
        }

        /// Checks that the library's classes, as class defaults and as new handlers, have their
        /// built-in settings: whatever a test sets on its own classes must not reach them.
        static func expectLibraryBuiltIn(sourceLocation: SourceLocation = #_sourceLocation) {
            expectSettings(libraryHandlers(), types: libraryTypes, sourceLocation: sourceLocation)
            let classes: [(String, SelectiveDiscarder.Type)] = [
                ("SelectiveDiscarder", SelectiveDiscarder.self), ("Accumulator", Accumulator.self),
                ("StringConverter", StringConverter.self), ("JSONParser", JSONParser.self), ("ImageDecoder", ImageDecoder.self),
                ("StreamWriter", StreamWriter.self), ("FileWriter", FileWriter.self),
            ]
            for (name, type) in classes {
                #expect(type.defaultAcceptableResponses == initialStatuses, "\(name)", sourceLocation: sourceLocation)
                #expect(type.defaultAcceptableContentTypes == libraryTypes[name], "\(name)", sourceLocation: sourceLocation)
            }
        }

        /// Everything built-in, as a new handler of each class, the library's and this file's, sees it.
        static func expectBuiltIn(sourceLocation: SourceLocation = #_sourceLocation) {
            expectLibraryBuiltIn(sourceLocation: sourceLocation)
            expectSettings(testHandlers(), types: testTypes, sourceLocation: sourceLocation)
        }

        @Test("a default set on a class is what the class reports afterwards")
        func readBack() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                ProbeAccumulator.defaultAcceptableResponses = [204]
                ProbeAccumulator.defaultAcceptableContentTypes = ["text/plain"]
                #expect(ProbeAccumulator.defaultAcceptableResponses == [204])
                #expect(ProbeAccumulator.defaultAcceptableContentTypes == ["text/plain"])
                #expect(ProbeAccumulator().acceptableResponses == [204])
                #expect(ProbeAccumulator().acceptableContentTypes == ["text/plain"])

                TreeMid.defaultAcceptableResponses = [204]
                TreeMid.defaultAcceptableContentTypes = ["text/plain"]
                #expect(TreeMid.defaultAcceptableResponses == [204])
                #expect(TreeMid.defaultAcceptableContentTypes == ["text/plain"])
                #expect(TreeMid().acceptableResponses == [204])

                // A subclass's setting stays off its library parent.
                Self.expectLibraryBuiltIn()
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
            // A subclass of a library class starts with that class's settings.
            #expect(ProbeJSONParserChild.defaultAcceptableContentTypes == ["application/json", "*/*+json"])
            #expect(ProbeImageDecoder.defaultAcceptableContentTypes == ["image/*"])
            #expect(ProbeAccumulatorChild.defaultAcceptableResponses == Self.initialStatuses)
        }

        @Test("a default set on a class changes the handlers created afterwards only; arguments still win")
        func newInstancesOnly() async throws {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                try await withSandbox { sandbox in
                    let session = makeSession()
                    let before = ProbeAccumulator()
                    ProbeAccumulator.defaultAcceptableResponses = [206]
                    let after = ProbeAccumulator()
                    #expect(before.acceptableResponses == Self.initialStatuses)
                    #expect(after.acceptableResponses == [206])
                    #expect(ProbeAccumulator(acceptableResponses: [200]).acceptableResponses == [200])
                    #expect(Accumulator().acceptableResponses == Self.initialStatuses)

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
                Self.expectLibraryBuiltIn()
            }
        }

        @Test("subclasses inherit a class's default; its parent and siblings don't")
        func inheritedBySubclasses() async throws {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                TreeMid.defaultAcceptableResponses = [299]
                #expect(TreeMidLeaf().acceptableResponses == [299])
                #expect(TreeJSON().acceptableResponses == [299])
                #expect(TreeImage().acceptableResponses == [299])
                #expect(TreeJSON.defaultAcceptableResponses == [299])
                #expect(TreeRoot().acceptableResponses == Self.initialStatuses)
                #expect(TreeSide().acceptableResponses == Self.initialStatuses)
                #expect(CSVProbe().acceptableResponses == Self.initialStatuses)
                // Statuses and types are separate settings.
                #expect(TreeJSON().acceptableContentTypes == ["application/json", "*/*+json"])

                // Below a library class: the library's parent and the other probes keep theirs.
                ProbeJSONParser.defaultAcceptableResponses = [299]
                #expect(ProbeJSONParserChild().acceptableResponses == [299])
                #expect(ProbeJSONParserChild.defaultAcceptableResponses == [299])
                #expect(ProbeJSONParserChild().acceptableContentTypes == ["application/json", "*/*+json"])
                #expect(ProbeAccumulator().acceptableResponses == Self.initialStatuses)
                #expect(ProbeImageDecoder().acceptableResponses == Self.initialStatuses)
                #expect(ProbeStringConverter().acceptableResponses == Self.initialStatuses)
                Self.expectLibraryBuiltIn()

                try await withSandbox { sandbox in
                    let session = makeSession()
                    let url = sandbox.echo(code: 299, content: #"{"a":1}"#, headers: ["Content-Type:application/json"])
                    let result = try await fetchContent(url, handler: TreeJSON(), session: session)
                    #expect(result.error == nil)
                    #expect((result.response.content as? JSON)?["a"] == 1)
                    let parsed = try await fetchContent(url, handler: ProbeJSONParserChild(), session: session)
                    #expect(parsed.error == nil)
                    #expect((parsed.response.content as? JSON)?["a"] == 1)
                    let refused = try await fetchContent(url, handler: JSONParser(), session: session)
                    #expect(contentError(refused, .unacceptableStatus)?.statusCode == 299)
                    await settle(session)
                }
            }
        }

        @Test("the nearest class's own setting wins, whichever was set first")
        func nearestSettingWins() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                TreeJSON.defaultAcceptableResponses = [203]
                TreeRoot.defaultAcceptableResponses = [201]
                TreeMid.defaultAcceptableResponses = [202]
                #expect(TreeRoot().acceptableResponses == [201])
                #expect(TreeSide().acceptableResponses == [201])
                #expect(CSVProbeChild().acceptableResponses == [201])
                #expect(TreeMid().acceptableResponses == [202])
                #expect(TreeMidLeaf().acceptableResponses == [202])
                #expect(TreeImage().acceptableResponses == [202])
                #expect(TreeJSON().acceptableResponses == [203])
                CSVProbe.defaultAcceptableResponses = [200]
                #expect(CSVProbeChild().acceptableResponses == [200])
                #expect(TreeRoot().acceptableResponses == [201])

                // The same below a library class, set child first.
                ProbeAccumulatorChild.defaultAcceptableResponses = [205]
                ProbeAccumulator.defaultAcceptableResponses = [204]
                #expect(ProbeAccumulator().acceptableResponses == [204])
                #expect(ProbeAccumulatorChild().acceptableResponses == [205])
                Self.expectLibraryBuiltIn()
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
                #expect(TreeRoot().acceptableContentTypes.isEmpty)
                #expect(TreeJSON().acceptableContentTypes == ["application/json", "*/*+json"])

                ProbeJSONParser.defaultAcceptableContentTypes = ["application/vnd.store"]
                #expect(ProbeJSONParser().acceptableContentTypes == ["application/vnd.store"])
                #expect(ProbeJSONParserChild().acceptableContentTypes == ["application/vnd.store"])
                #expect(ProbeAccumulator().acceptableContentTypes.isEmpty)
                #expect(ProbeImageDecoder().acceptableContentTypes == ["image/*"])
                Self.expectLibraryBuiltIn()

                try await withSandbox { sandbox in
                    let session = makeSession()
                    let store = sandbox.echo(content: #"{"store":{"name":"North"}}"#, headers: ["Content-Type:application/vnd.store"])
                    let taken = try await fetchContent(store, handler: ProbeJSONParser(), session: session)
                    #expect((taken.response.content as? JSON)?["store.name"] == "North")
                    let json = sandbox.echo(content: "{}", headers: ["Content-Type:application/json"])
                    let refused = try await fetchContent(json, handler: ProbeJSONParser(), session: session)
                    #expect(contentError(refused, .unacceptableContentType) != nil)
                    // The library's JSONParser still takes JSON and refuses the store type.
                    let parsed = try await fetchContent(json, handler: JSONParser(), session: session)
                    #expect(parsed.error == nil)
                    #expect(parsed.response.content as? JSON == [:])
                    let other = try await fetchContent(store, handler: JSONParser(), session: session)
                    #expect(contentError(other, .unacceptableContentType) != nil)
                    await settle(session)
                }

                // Set on the root, a list reaches every class without one of its own, those with an
                // initial list too.
                SelectiveDiscarder.resetDefaults()
                TreeRoot.defaultAcceptableContentTypes = ["text/plain"]
                #expect(TreeJSON().acceptableContentTypes == ["text/plain"])
                #expect(TreeImage().acceptableContentTypes == ["text/plain"])
                #expect(CSVProbeChild().acceptableContentTypes == ["text/plain"])
                #expect(TreeSide().acceptableContentTypes == ["text/plain"])
                Self.expectLibraryBuiltIn()
            }
        }

        @Test("resetDefaults forgets every class's settings")
        func reset() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            do {
                TreeRoot.defaultAcceptableResponses = [418]
                TreeMid.defaultAcceptableContentTypes = ["text/x"]
                TreeImage.defaultAcceptableResponses = []
                CSVProbeChild.defaultAcceptableContentTypes = ["*/*"]
                ProbeJSONParser.defaultAcceptableResponses = [500]
                ProbeJSONParser.defaultAcceptableContentTypes = ["text/x"]
                ProbeFileWriter.defaultAcceptableResponses = [201]
                #expect(TreeImage().acceptableResponses.isEmpty)
                #expect(CSVProbeChild().acceptableContentTypes == ["*/*"])
                #expect(ProbeJSONParserChild().acceptableResponses == [500])
                #expect(ProbeFileWriter(path: "/tmp/unused").acceptableResponses == [201])
                SelectiveDiscarder.resetDefaults()
                Self.expectBuiltIn()
            }
        }

        @Test("SelectiveDiscarder.shared keeps the settings it was made with")
        func sharedUnaffected() {
            SelectiveDiscarder.resetDefaults()
            defer { SelectiveDiscarder.resetDefaults() }
            let shared = SelectiveDiscarder.shared
            ProbeSelectiveDiscarder.defaultAcceptableResponses = [500]
            ProbeSelectiveDiscarder.defaultAcceptableContentTypes = ["text/x"]
            // `shared` is one stored instance of the library class, whichever class it is read through.
            #expect(SelectiveDiscarder.shared === shared)
            #expect(ProbeSelectiveDiscarder.shared === shared)
            #expect(type(of: shared) == SelectiveDiscarder.self)
            #expect(shared.acceptableResponses == Self.initialStatuses)
            #expect(shared.acceptableContentTypes.isEmpty)
            #expect(ProbeSelectiveDiscarder().acceptableResponses == [500])
            Self.expectLibraryBuiltIn()
        }
    }
}
