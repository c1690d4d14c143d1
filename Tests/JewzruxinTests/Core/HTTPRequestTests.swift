import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Jewzruxin

/// The request as a value of its own: its fields in order, its copies independent, and `core`, the
/// Foundation view, made when read and taken back when set.
@Suite("HTTPRequest, a value of its own")
struct HTTPRequestTests {
    static let url = URL(fileURLWithPath: "/stores")

    @Test("fields keep the order they were set in; a name is one field, matched case-insensitively, replaced in place")
    func fieldOrder() {
        var request = HTTPRequest(url: Self.url, method: .post)
        request.setValue("b", forHTTPHeaderField: "X-B")
        request.setValue("a", forHTTPHeaderField: "X-A")
        request.setValue("json", forHTTPHeaderField: "Content-Type")
        request.setValue("B", forHTTPHeaderField: "x-b")
        #expect(request.headerFields.map(\.name) == ["x-b", "X-A", "Content-Type"])
        #expect(request.value(forHTTPHeaderField: "X-B") == "B")
        request.setValue(nil, forHTTPHeaderField: "X-A")
        #expect(request.headerFields.map(\.value) == ["B", "json"])
        #expect(request.value(forHTTPHeaderField: "x-a") == nil)
    }

    @Test("a refused field isn't set, and the first refusal is the one reported")
    func refusedField() {
        var request = HTTPRequest(url: Self.url)
        request.setValue("a\r\nX-Evil: 1", forHTTPHeaderField: "X-One")
        request.setValue("b", forHTTPHeaderField: "Bad Name")
        #expect(request.headerFields.isEmpty)
        #expect(request.invalidHeader?.name == "X-One")
    }

    @Test("a field set through core is checked as setValue checks it: refused, and reported")
    func refusedThroughCore() {
        var request = HTTPRequest(url: Self.url)
        request.core.setValue("v", forHTTPHeaderField: "Bad Name")
        request.core.setValue("fine", forHTTPHeaderField: "X-Fine")
        #expect(request.headerFields.map(\.name) == ["X-Fine"])
        #expect(request.invalidHeader?.name == "Bad Name")
    }

    @Test("a change to what the fields are completed from drops the completed fields; the completion itself doesn't")
    func completedFieldsGoStale() {
        var request = HTTPRequest(url: Self.url)
        request.completedFields = [("Accept", "*/*")]
        #expect(request.headerFieldsCompleted)
        var changed = request
        changed.setValue("1", forHTTPHeaderField: "X-New")
        #expect(!changed.headerFieldsCompleted && request.headerFieldsCompleted)
        changed = request
        changed.redirect(to: URL(fileURLWithPath: "/elsewhere"))
        #expect(!changed.headerFieldsCompleted)
        changed = request
        changed.data = Data("body".utf8)
        #expect(!changed.headerFieldsCompleted)
    }

    @Test("a copy is independent: changing one leaves the other as it was")
    func copies() {
        var first = HTTPRequest(url: Self.url)
        first.setValue("1", forHTTPHeaderField: "X-N")
        first.data = Data("one".utf8)
        var second = first
        second.setValue("2", forHTTPHeaderField: "X-N")
        second.data = nil
        second.method = .put
        #expect(first.value(forHTTPHeaderField: "X-N") == "1" && first.data == Data("one".utf8) && first.method == .get)
        #expect(second.value(forHTTPHeaderField: "X-N") == "2" && second.data == nil && second.method == .put)
    }

    @Test("core shows the URL, method and fields; what is set through it is kept, fields included")
    func core() {
        var request = HTTPRequest(url: Self.url, method: .delete)
        request.setValue("1", forHTTPHeaderField: "X-Kept")
        request.setValue("2", forHTTPHeaderField: "X-Dropped")
        #expect(request.core.url == Self.url && request.core.httpMethod == "DELETE")
        #expect(request.core.value(forHTTPHeaderField: "x-kept") == "1")
        #expect(request.timeoutInterval == 60 && request.httpShouldHandleCookies && request.httpBody == nil)

        request.core.timeoutInterval = 5
        request.core.cachePolicy = .reloadIgnoringLocalCacheData
        request.core.httpShouldHandleCookies = false
        request.core.httpBody = Data("body".utf8)
        request.core.setValue(nil, forHTTPHeaderField: "X-Dropped")
        request.core.setValue("3", forHTTPHeaderField: "X-Added")
        #expect(request.timeoutInterval == 5 && !request.httpShouldHandleCookies && request.httpBody == Data("body".utf8))
        #expect(request.core.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(request.headerFields.map(\.name) == ["X-Kept", "X-Added"])

        // Set on the value, seen through the view, with what the view was given.
        request.setValue("4", forHTTPHeaderField: "X-Later")
        request.method = .patch
        #expect(request.core.value(forHTTPHeaderField: "X-Later") == "4" && request.core.httpMethod == "PATCH")
        #expect(request.core.timeoutInterval == 5 && request.core.value(forHTTPHeaderField: "X-Dropped") == nil)
    }

    @Test("the completed fields are shown in place of the request's own, which stay")
    func completedFields() {
        var request = HTTPRequest(url: Self.url)
        request.setValue("own", forHTTPHeaderField: "X-Own")
        request.completedFields = [("Accept", "*/*"), ("X-Own", "own")]
        let shown = request.showingCompletedFields
        #expect(shown.headerFields.map(\.name) == ["Accept", "X-Own"])
        #expect(shown.core.value(forHTTPHeaderField: "Accept") == "*/*")
        #expect(request.headerFields.map(\.name) == ["X-Own"])
    }

    @Test("a redirect to another origin drops Authorization and Cookie; to the same origin keeps them")
    func redirect() throws {
        let source = try #require(URL(string: "http://example.com/a"))
        var request = HTTPRequest(url: source)
        request.setValue("Basic x", forHTTPHeaderField: "Authorization")
        request.setValue("a=1", forHTTPHeaderField: "Cookie")
        request.setValue("kept", forHTTPHeaderField: "X-Other")
        var same = request
        same.redirect(to: try #require(URL(string: "HTTP://EXAMPLE.com:80/b")))
        #expect(same.value(forHTTPHeaderField: "Authorization") != nil && same.value(forHTTPHeaderField: "Cookie") != nil)
        #expect(same.url?.path == "/b")
        request.redirect(to: try #require(URL(string: "http://example.com:8080/b")))
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil && request.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(request.value(forHTTPHeaderField: "X-Other") == "kept")
    }
}
