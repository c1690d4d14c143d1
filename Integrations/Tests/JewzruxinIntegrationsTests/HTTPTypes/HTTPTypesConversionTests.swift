import Foundation
import HTTPTypes
import Jewzruxin
import JewzruxinHTTPTypes
import Testing

@Suite struct HTTPTypesConversionTests {
    @Test func makesTheLibrarysRequestJoiningRepeatedFields() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        fields.append(HTTPField(name: try #require(HTTPField.Name("X-Api-Key")), value: "k"))
        let url = try #require(URL(string: "https://example.com:8443/v1/items?limit=2"))
        let request = HTTPTypes.HTTPRequest(method: .put, url: url, headerFields: fields)

        let converted = try Jewzruxin.HTTPRequest(request, body: Data("hi".utf8))

        #expect(converted.method == .put)
        #expect(converted.url == url)
        #expect(converted.value(forHTTPHeaderField: "Accept") == "text/plain, application/json")
        #expect(converted.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
        #expect(converted.value(forHTTPHeaderField: "x-api-key") == "k")
        #expect(converted.data == Data("hi".utf8))
    }

    @Test func refusesARequestWithoutAURL() {
        let request = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/relative")
        #expect(throws: HTTPTypesConversionError.missingURL) { try Jewzruxin.HTTPRequest(request) }
    }

    @Test func makesSwiftHTTPTypesRequestFromTheLibrarys() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/hello/?a=b"))
        var request = Jewzruxin.HTTPRequest(url: url, method: .delete)
        request.setValue("v", forHTTPHeaderField: "X-Trace")

        let converted = try HTTPTypes.HTTPRequest(request)

        #expect(converted.method == .delete)
        #expect(converted.scheme == "http")
        #expect(converted.authority == "127.0.0.1:8080")
        #expect(converted.path == "/hello/?a=b")
        #expect(converted.headerFields[try #require(HTTPField.Name("X-Trace"))] == "v")
    }

    @Test func convertsResponsesBothWays() throws {
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentType, value: "text/plain"))
        fields.append(HTTPField(name: .setCookie, value: "a=1"))
        fields.append(HTTPField(name: .setCookie, value: "b=2"))
        let original = HTTPTypes.HTTPResponse(status: .init(code: 201, reasonPhrase: "Created"), headerFields: fields)

        let library = Jewzruxin.HTTPResponse(original, url: url, body: Data("made".utf8))
        #expect(library.statusCode == 201)
        #expect(library.text == "made")
        #expect(library.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2")

        let back = try HTTPTypes.HTTPResponse(library)
        #expect(back.status.code == 201)
        #expect(back.headerFields[.contentType] == "text/plain")
        // The response's fields as they came: the two cookies stay two.
        #expect(back.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(back.headerFields == fields)
    }

    @Test func refusesAResponseWithoutAHead() {
        #expect(throws: HTTPTypesConversionError.invalidStatus(nil)) { try HTTPTypes.HTTPResponse(Jewzruxin.HTTPResponse()) }
    }

    @Test func keepsRepeatedFieldsOfAHeadApart() throws {
        let head: [HTTPResponseHead.Field] = [.init(name: "Set-Cookie", value: "a=1"), .init(name: "Set-Cookie", value: "b=2")]
        let fields = try HTTPFields(head)
        #expect(fields[values: .setCookie] == ["a=1", "b=2"])
        #expect([HTTPResponseHead.Field](fields) == head)
    }
}
