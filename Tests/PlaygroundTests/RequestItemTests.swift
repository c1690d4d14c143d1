import Foundation
import Jewzruxin
import Testing
@testable import PlaygroundKit

@Suite("RequestItem and RequestPlan: key=value, key==value, key:=json")
struct RequestItemTests {
    @Test(arguments: [
        ("a=1", RequestItem.field("a", "1")),
        ("a=", RequestItem.field("a", "")),
        ("a=b=c", RequestItem.field("a", "b=c")),
        ("q==x y", RequestItem.query("q", "x y")),
        ("q===", RequestItem.query("q", "=")),
        ("n:=42", RequestItem.json("n", 42)),
        ("pi:=3.5", RequestItem.json("pi", 3.5)),
        ("ok:=true", RequestItem.json("ok", true)),
        ("x:=null", RequestItem.json("x", nil)),
        (#"s:="text""#, RequestItem.json("s", "text")),
        (#"tags:=["a",1]"#, RequestItem.json("tags", ["a", 1])),
        (#"o:={"k":[true]}"#, RequestItem.json("o", ["k": [true]])),
        ("url=http://h/?a=b", RequestItem.field("url", "http://h/?a=b")),
        ("file@notes.txt", RequestItem.file("file", "notes.txt")),
        ("doc@a=b.txt", RequestItem.file("doc", "a=b.txt")),
        ("to=a@b", RequestItem.field("to", "a@b")),
        ("q==a@b", RequestItem.query("q", "a@b")),
    ])
    func parsing(word: String, item: RequestItem) throws {
        #expect(try RequestItem(parsing: word) == item)
    }

    @Test(arguments: [
        ("novalue", "expected key=value, key==value, key:=json or key@file, not novalue"),
        ("=1", "missing name before = in =1"),
        (":=1", "missing name before = in :=1"),
        ("n:=4x2", #"invalid JSON value in n:=4x2 (quote strings: key:='"text"', or use key=text)"#),
        ("s:=text", #"invalid JSON value in s:=text (quote strings: key:='"text"', or use key=text)"#),
        ("@x.txt", "missing name before @ in @x.txt"),
        ("f@", "missing file path after @ in f@"),
    ])
    func errors(word: String, message: String) {
        #expect(throws: PlaygroundError(message)) { try RequestItem(parsing: word) }
    }

    @Test("an item prints as it would be typed")
    func description() {
        #expect(RequestItem.field("a", "x y").description == "'a=x y'")
        #expect(RequestItem.query("q", "1").description == "q==1")
        #expect(RequestItem.json("o", ["b": 1, "a": [nil]]).description == #"'o:={"a":[null],"b":1}'"#)
        #expect(RequestItem.file("f", "my notes.txt").description == "'f@my notes.txt'")
    }

    @Test("a key@file item makes the body a multipart form of the fields and files, in order; key==value stays in the query")
    func multipartPlan() throws {
        let plan = try RequestPlan(
            method: .post, target: "/dumpupload/", items: [.field("name", "Jane"), .file("cv", "/tmp/cv.pdf"), .query("v", "2")],
            json: false, base: base)
        #expect(plan.url == "http://127.0.0.1:8080/dumpupload/?v=2")
        guard case .multipart(let form) = plan.body else {
            Issue.record("expected a multipart body, got \(plan.body)")
            return
        }
        #expect(form.parts.map(\.name) == ["name", "cv"])
        #expect(form.parts.map(\.filename) == [nil, "cv.pdf"])
        #expect(form.parts.last?.content == .file(URL(fileURLWithPath: "/tmp/cv.pdf")))
        #expect(plan.requestProcessors.isEmpty)
        #expect(plan.uploadSource == .multipart(form))
    }

    @Test("file parts need a body method, and don't mix with JSON", arguments: [
        (HTTPMethod.get, [RequestItem.file("f", "x")], false, "f@x needs a body: file parts are for POST, PUT and PATCH"),
        (.post, [.file("f", "x"), .json("n", 1)], false, "n:=1 can't go in a multipart form: use key=value fields with key@file parts"),
        (.post, [.file("f", "x")], true, "--json can't go with key@file parts, which make a multipart form"),
    ])
    func multipartErrors(method: HTTPMethod, items: [RequestItem], json: Bool, message: String) {
        #expect(throws: PlaygroundError(message)) { try RequestPlan(method: method, target: "/", items: items, json: json, base: base) }
    }

    // MARK: RequestPlan

    let base = "http://127.0.0.1:8080"

    @Test("GET, HEAD and DELETE put every key=value in the query, a repeated key as a list")
    func bodylessPlan() throws {
        let plan = try RequestPlan(
            method: .get, target: "/search?page=2", items: [.field("q", "a b"), .query("tag", "x"), .field("tag", "y")],
            json: false, base: base)

        #expect(plan.url == "http://127.0.0.1:8080/search?page=2&q=a%20b&tag=x&tag=y")
        #expect(plan.body == .empty)
    }

    @Test("POST makes a form of its fields, in order, and key==value stays in the query")
    func formPlan() throws {
        let plan = try RequestPlan(
            method: .post, target: "inspect/", items: [.field("z", "1"), .query("v", "2"), .field("a", "3")], json: false, base: base + "/")

        #expect(plan.url == "http://127.0.0.1:8080/inspect/?v=2")
        #expect(plan.body == .form(["z": "1", "a": "3"]))
        #expect(plan.requestProcessors.first is HTTPFormProcessor)
    }

    @Test("--json, or any key:=json item, makes a JSON object; a repeated key keeps its last value")
    func jsonPlan() throws {
        let flagged = try RequestPlan(method: .put, target: "/x", items: [.field("a", "1")], json: true, base: base)
        let implied = try RequestPlan(
            method: .patch, target: "/x", items: [.field("a", "1"), .json("n", 2), .json("n", 3)], json: false, base: base)
        let empty = try RequestPlan(method: .post, target: "/x", items: [], json: true, base: base)

        #expect(flagged.body == .json(["a": "1"]))
        #expect(implied.body == .json(["a": "1", "n": 3]))
        #expect(empty.body == .json([:]))
        #expect(implied.requestProcessors.first is HTTPJSONProcessor)
    }

    @Test("a POST without items has no body")
    func emptyPost() throws {
        #expect(try RequestPlan(method: .post, target: "/x", items: [], json: false, base: base).body == .empty)
    }

    @Test("a raw JSON value on a method without a body is an error")
    func jsonOnGet() {
        #expect(throws: PlaygroundError("n:=1 needs a body: raw JSON values are for POST, PUT and PATCH")) {
            try RequestPlan(method: .delete, target: "/x", items: [.json("n", 1)], json: false, base: base)
        }
    }

    @Test("an absolute URL target ignores the base URL")
    func absoluteTarget() throws {
        let plan = try RequestPlan(method: .get, target: "https://example.com/a", items: [.field("b", "1")], json: false, base: base)
        #expect(plan.url == "https://example.com/a?b=1")
    }
}
