import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox

@Suite("Query parameters", .onEveryTransport)
struct QueryMergingTests {
    @Test("reserved, space, plus and non-ASCII characters are percent-encoded", arguments: [
        ("a&b", "a%26b"), ("a=b", "a%3Db"), ("1+1", "1%2B1"), ("two words", "two%20words"),
        ("café", "caf%C3%A9"), ("中文", "%E4%B8%AD%E6%96%87"), ("a/b?c#d", "a%2Fb%3Fc%23d"),
        ("100%", "100%25"), ("~-._", "~-._"), ("", ""),
    ])
    func encoding(raw: String, encoded: String) {
        #expect("http://h/p".mergingQueryParameters(["k": raw]) == "http://h/p?k=\(encoded)")
        #expect("http://h/p".mergingQueryParameters([raw.isEmpty ? "e" : raw: "v"]).hasSuffix("=v"))
    }

    @Test("keys are encoded too")
    func keysEncoded() {
        #expect("http://h/".mergingQueryParameters(["a key&": "v"]) == "http://h/?a%20key%26=v")
    }

    @Test("values of every kind become text; arrays repeat the key; nil is left out")
    func valueKinds() {
        let optional: Int? = nil
        let merged = "http://h/".mergingQueryParameters([
            "int": 71, "double": 2.5, "bool": true, "list": ["dummy", 71] as [any Sendable], "none": optional,
        ])
        #expect(merged == "http://h/?bool=true&double=2.5&int=71&list=dummy&list=71")
    }

    @Test("the existing query is kept as written and merged in key order")
    func mergeWithExisting() {
        #expect("http://h/p?z=1&a=2".mergingQueryParameters(["m": "3"]) == "http://h/p?a=2&m=3&z=1")
        #expect("http://h/p?q=already%20encoded".mergingQueryParameters(["r": "x"]) == "http://h/p?q=already%20encoded&r=x")
        #expect("http://h/p?flag".mergingQueryParameters(["a": "1"]) == "http://h/p?a=1&flag")
    }

    @Test("a new value replaces an existing one with the same key")
    func replaceSameKey() {
        #expect("http://h/p?key=old&other=1".mergingQueryParameters(["key": "new"]) == "http://h/p?key=new&other=1")
        #expect("http://h/p?a%20b=old".mergingQueryParameters(["a b": "new"]) == "http://h/p?a%20b=new")
    }

    @Test("an empty query, a trailing '?', fragments and no parameters")
    func edges() {
        #expect("http://h/p?".mergingQueryParameters(["a": "1"]) == "http://h/p?a=1")
        #expect("http://h/p#top".mergingQueryParameters(["a": "1"]) == "http://h/p?a=1#top")
        #expect("http://h/p?b=2#top".mergingQueryParameters(["a": "1"]) == "http://h/p?a=1&b=2#top")
        #expect("http://h/p?b=2".mergingQueryParameters([:]) == "http://h/p?b=2")
        #expect("http://h/p?a=1&&b=2".mergingQueryParameters(["c": "3"]) == "http://h/p?a=1&b=2&c=3")
    }

    @Test("repeated keys keep their order")
    func repeatedKeysOrder() {
        #expect("http://h/?x=2&x=1".mergingQueryParameters(["y": ["b", "a"]]) == "http://h/?x=2&x=1&y=b&y=a")
    }

    @Test("the server receives exactly the encoded query and decodes it back")
    func overTheWire() async throws {
        try await withSandbox { sandbox in
            let tricky = "a&b=c+d e/ü"
            let cycle = try await HTTPCycle.get(sandbox.string("/echo/?existing=1"), parameters: ["content": tricky], session: makeSession())
            #expect(cycle.response.text == tricky)
            let seen = try await HTTPCycle.get(sandbox.string("/inspect/?z=last"), parameters: ["content": tricky], session: makeSession())
            #expect(try Inspection(seen.response).query == "content=a%26b%3Dc%2Bd%20e%2F%C3%BC&z=last")
        }
    }

    @Test("every convenience method puts `parameters` in the query, DELETE and POST too (seeds 001, 002); a body comes from the request object",
          arguments: [HTTPMethod.get, .head, .delete, .post, .put, .patch])
    func conveniencePutsParametersInTheQuery(method: HTTPMethod) async throws {
        try await withSandbox { sandbox in
            let url = sandbox.string("/inspect/?z=last")
            let parameters: [String: any Sendable] = ["a": "x y"]
            let body = Data("body".utf8)
            let session = makeSession()
            let cycle: HTTPCycle
            switch method {
            case .head: cycle = try await HTTPCycle.head(url, parameters: parameters, session: session)
            case .delete: cycle = try await HTTPCycle.delete(url, parameters: parameters, session: session)
            case .post: cycle = try await HTTPCycle.post(url, parameters: parameters, requestObject: body, requestProcessors: [HTTPDataProcessor()], session: session)
            case .put: cycle = try await HTTPCycle.put(url, parameters: parameters, requestObject: body, requestProcessors: [HTTPDataProcessor()], session: session)
            case .patch: cycle = try await HTTPCycle.patch(url, parameters: parameters, requestObject: body, requestProcessors: [HTTPDataProcessor()], session: session)
            default: cycle = try await HTTPCycle.get(url, parameters: parameters, session: session)
            }
            #expect(cycle.request.url?.query == "a=x%20y&z=last")
            guard method != .head else { return }
            let seen = try Inspection(cycle.response)
            #expect(seen.method == method.rawValue)
            #expect(seen.query == "a=x%20y&z=last")
            #expect(seen.body == ([.post, .put, .patch].contains(method) ? "body" : ""))
        }
    }
}
