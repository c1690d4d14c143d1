import Testing
@testable import PlaygroundKit

@Suite("BaseURL: joining paths and checking base URLs")
struct BaseURLTests {
    @Test(arguments: [
        ("http://h:8080", "/hello/", "http://h:8080/hello/"),
        ("http://h:8080/", "/hello/", "http://h:8080/hello/"),
        ("http://h:8080", "hello/", "http://h:8080/hello/"),
        ("http://h/api/", "//items?a=1", "http://h/api/items?a=1"),
        ("http://h/api", "?q=1", "http://h/api?q=1"),
        ("http://h/api", "", "http://h/api"),
        ("http://h", "https://x.org/y", "https://x.org/y"),
        ("http://h", "HTTP://x.org/", "HTTP://x.org/"),
        ("", "/a", "/a"),
        ("http://h", "/a://b", "http://h/a://b"),
    ])
    func join(base: String, target: String, url: String) {
        #expect(BaseURL.join(base, target) == url)
    }

    @Test("a base URL loses its trailing slashes")
    func valid() throws {
        #expect(try BaseURL.validated("http://127.0.0.1:8080/") == "http://127.0.0.1:8080")
        #expect(try BaseURL.validated("https://example.com/api//") == "https://example.com/api")
    }

    @Test(arguments: [
        ("ftp://h", "invalid base URL ftp://h: the scheme must be http or https"),
        ("/relative", "invalid base URL /relative: it doesn't start with http:// or https://"),
        ("ht!tp://h", "invalid base URL ht!tp://h: ht!tp is not a URL scheme (http or https)"),
        ("http://", "invalid base URL http://: the URL has no host"),
        ("http://h/?q=1", "invalid base URL http://h/?q=1: a base URL has no query or fragment"),
    ])
    func invalid(string: String, message: String) {
        #expect(throws: PlaygroundError(message)) { try BaseURL.validated(string) }
    }

    @Test("a request target meant as an absolute URL is checked, not joined to the base as a path")
    func resolve() throws {
        #expect(try BaseURL.resolve("/a://b", on: "http://h") == "http://h/a://b")
        #expect(try BaseURL.resolve("items?next=http://x", on: "http://h") == "http://h/items?next=http://x")
        #expect(try BaseURL.resolve("HTTPS://x.org/y", on: "http://h") == "HTTPS://x.org/y")
        #expect(throws: PlaygroundError("invalid URL ht!tp://x: ht!tp is not a URL scheme (http or https)")) {
            try BaseURL.resolve("ht!tp://x", on: "http://h")
        }
        #expect(throws: PlaygroundError("invalid URL ftp://x: the scheme must be http or https")) {
            try BaseURL.resolve("ftp://x", on: "http://h")
        }
    }
}
