import Testing
@testable import Jewzruxin

/// The one rule a base URL and a path are joined by, for `HTTPService` and the fluent `WebService`.
@Suite("Joining a base URL and a path")
struct URLJoiningTests {
    @Test("one slash between base and path; queries, fragments and absolute URLs as they are", arguments: [
        ("http://h/", "/a", "http://h/a"),
        ("http://h", "a", "http://h/a"),
        ("http://h/api//", "//stores/", "http://h/api/stores/"),
        ("http://h/api", "?q=1", "http://h/api?q=1"),
        ("http://h/api", "#top", "http://h/api#top"),
        ("http://h/api/", "", "http://h/api/"),
        ("http://h", "HTTP://Other.example", "HTTP://Other.example"),
        ("http://h", "svn+ssh://x/y", "svn+ssh://x/y"),
        ("http://h", "/a://b", "http://h/a://b"),
        ("http://h", "1x://y", "http://h/1x://y"),
        ("http://h", "a:b://c", "http://h/a:b://c"),
        ("http://h", "é", "http://h/é"),
        ("", "stores", "stores"),
        ("", "/stores", "/stores"),
        ("", "", ""),
    ])
    func join(base: String, path: String, expected: String) {
        #expect(URLJoining.join(base, path) == expected)
        #expect(HTTPService.join(base, path) == expected)
    }
}
