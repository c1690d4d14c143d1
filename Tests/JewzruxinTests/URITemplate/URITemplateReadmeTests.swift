import Testing
@testable import Jewzruxin

@Suite("URITemplate README example")
struct URITemplateReadmeTests {
    @Test("the README's example expands as shown")
    func readmeExample() throws {
        let expanded = try URITemplate("/repos{/owner,repo}{?q}").expand(["owner": "a", "repo": "b", "q": "x y"])
        #expect(expanded == "/repos/a/b?q=x%20y")
    }
}
