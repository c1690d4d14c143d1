import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinSandbox

/// A store, the model a JSONParser subclass builds.
struct Store: Sendable, Equatable {
    let name: String
    let zip: String
    let aisles: [String]
}

/// Builds a ``Store`` from the JSON (seed 003: "If your handler converts JSON to a domain object,
/// consider subclassing BBJSONParser").
final class StoreParser: JSONParser, @unchecked Sendable {
    override func content(from json: JSON) throws -> (any Sendable)? {
        guard let name = json["store.name"]?.stringValue, let zip = json["store.address.zip"]?.stringValue else {
            throw ContentHandlerError(.unparsableContent, reason: "the store has no name or zip")
        }
        let aisles = (json["store.aisles"]?.arrayValue ?? []).compactMap(\.stringValue)
        return Store(name: name, zip: zip, aisles: aisles)
    }
}

/// A JSONParser subclass whose model fails with an error of its own kind.
final class StrictStoreParser: JSONParser, @unchecked Sendable {
    struct Missing: Error {}

    override func content(from json: JSON) throws -> (any Sendable)? {
        guard json["store.opened"] != nil else { throw Missing() }
        return json
    }
}

extension ContentHandlingTests {
    @Suite("JSONParser")
    struct JSONParserTests {
        static let storeJSON = #"""
        {"store": {"name": "Corner Shop", "address": {"street": "1 Main St", "zip": "90210"}, "aisles": ["fruit", "bread"]},
         "stores": [{"name": "North"}, {"name": "South", "open": true}], "count": 2}
        """#

        /// Serves ``storeJSON`` at `/store/` with `contentType`, or `body` instead.
        static func serveStore(_ sandbox: Sandbox, contentType: String = "application/json", body: String = storeJSON) {
            sandbox.route("/store/") { _ in .data(Data(body.utf8), contentType: contentType) }
        }

        @Test("the content is a JSON value read with key paths; the data is the raw body")
        func parses() async throws {
            try await withSandbox { sandbox in
                Self.serveStore(sandbox)
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/store/"), handler: JSONParser(), session: session)
                #expect(result.error == nil)
                let json = try #require(result.response.content as? JSON)
                #expect(json["store.address.zip"] == "90210")
                #expect(json["store.name"]?.stringValue == "Corner Shop")
                #expect(json["stores.0.name"] == "North")
                #expect(json["stores.1.open"] == true)
                #expect(json["stores.2.name"] == nil)
                #expect(json["count"]?.intValue == 2)
                #expect(json["store"]?["aisles"]?[1] == "bread")
                #expect(result.response.data == Data(Self.storeJSON.utf8))
                await settle(session)
            }
        }

        @Test("a top-level array and scalars parse too")
        func arraysAndScalars() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let cases: [(String, JSON)] = [("[1, \"two\", null]", [1, "two", nil]), ("42", 42), ("\"text\"", "text"), ("null", nil)]
                for (body, expected) in cases {
                    let url = sandbox.echo(content: body, headers: ["Content-Type:application/json"])
                    let result = try await fetchContent(url, handler: JSONParser(), session: session)
                    #expect(result.error == nil, "\(body)")
                    #expect(result.response.content as? JSON == expected, "\(body)")
                }
                await settle(session)
            }
        }

        @Test("application/json in any case and with parameters, and any +json type, are taken", arguments: [
            "application/json", "Application/JSON; charset=utf-8", "application/problem+json", "application/vnd.api+json",
            "text/x-custom+json",
        ])
        func jsonTypesTaken(contentType: String) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.echo(content: #"{"title":"ok"}"#, headers: ["Content-Type:\(contentType)"])
                let result = try await fetchContent(url, handler: JSONParser(), session: session)
                #expect(result.error == nil)
                #expect((result.response.content as? JSON)?["title"] == "ok")
                await settle(session)
            }
        }

        @Test("other types are refused before parsing, even when the body is JSON", arguments: ["text/plain", "text/json", "application/jsonp", ""])
        func otherTypesRefused(contentType: String) async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let url = sandbox.echo(content: #"{"title":"ok"}"#, headers: ["Content-Type:\(contentType)"])
                let result = try await fetchContent(url, handler: JSONParser(), session: session)
                let error = try #require(contentError(result, .unacceptableContentType))
                #expect(error.response?.data == Data(#"{"title":"ok"}"#.utf8))
                #expect(result.response.content == nil)
                await settle(session)
            }
        }

        @Test("a malformed body fails as unparsable; the raw bytes are the intermediate content and the response's content",
              arguments: [#"{"store": "#, "<html>oops</html>", ""])
        func malformed(body: String) async throws {
            try await withSandbox { sandbox in
                Self.serveStore(sandbox, body: body)
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/store/"), handler: JSONParser(), session: session)
                let error = try #require(contentError(result, .unparsableContent))
                let raw = Data(body.utf8)
                #expect(!error.isRefusal)
                #expect(error.intermediateContent as? Data == raw)
                #expect(error.underlyingError != nil)
                #expect(error.statusCode == 200)
                #expect(result.response.content as? Data == raw)
                #expect(result.response.data == raw)
                await settle(session)
            }
        }

        @Test("an API error as problem+json with status 422 is statusCodeSeemsToHaveErred; its body stays readable")
        func problemDetails() async throws {
            try await withSandbox { sandbox in
                let session = makeSession()
                let problem = #"{"type":"about:blank","title":"Invalid store","status":422}"#
                let url = sandbox.echo(code: 422, content: problem, headers: ["Content-Type:application/problem+json"])
                let result = try await fetchContent(url, handler: JSONParser(), session: session)
                let response = try #require(erredResponse(result))
                #expect(try JSON(data: response.data)["title"] == "Invalid store")
                #expect(result.response.content == nil)
                await settle(session)
            }
        }

        @Test("a JSONParser subclass builds a model from the JSON")
        func storeModel() async throws {
            try await withSandbox { sandbox in
                Self.serveStore(sandbox)
                let session = makeSession()
                let result = try await fetchContent(sandbox.string("/store/"), handler: StoreParser(), session: session)
                #expect(result.error == nil)
                #expect(result.response.content as? Store == Store(name: "Corner Shop", zip: "90210", aisles: ["fruit", "bread"]))
                await settle(session)
            }
        }

        @Test("a model that can't be built fails with the bytes kept, whatever the error it threw")
        func modelFailure() async throws {
            try await withSandbox { sandbox in
                Self.serveStore(sandbox, body: #"{"store": {"name": "Nameless zip"}}"#)
                let session = makeSession()
                let raw = Data(#"{"store": {"name": "Nameless zip"}}"#.utf8)

                let result = try await fetchContent(sandbox.string("/store/"), handler: StoreParser(), session: session)
                let error = try #require(contentError(result, .unparsableContent))
                #expect(error.reason == "the store has no name or zip")
                #expect(error.intermediateContent as? Data == raw)
                #expect(error.response?.statusCode == 200)
                #expect(result.response.content as? Data == raw)

                let strict = try await fetchContent(sandbox.string("/store/"), handler: StrictStoreParser(), session: session)
                let wrapped = try #require(contentError(strict, .unparsableContent))
                #expect(wrapped.underlyingError is StrictStoreParser.Missing)
                #expect(wrapped.reason.contains("StrictStoreParser"))
                #expect(wrapped.intermediateContent as? Data == raw)
                await settle(session)
            }
        }
    }
}
