import Foundation
import Testing
@testable import Jewzruxin

@Suite("HTTPService profiles")
struct HTTPServiceProfileTests {
    @Test("The plist profile is read from a URL")
    func plistFromURL() throws {
        let service = try GitHubService(profileURL: serviceProfileURL("github", "plist"))
        #expect(service.baseURL == "https://api.github.com")
        #expect(service.profile.resources.map(\.name) == ["search", "repository", "createIssue"])
        #expect(service.profile.resource(named: "search")?.method == .get)
        #expect(service.profile.resource(named: "createIssue")?.method == .post)
        #expect(service.profile.resource(named: "search")?.uriTemplate.description == "/search/repositories{?q,sort,order}")
    }

    @Test("The JSON twin is read from a URL and gives the same profile")
    func jsonFromURL() throws {
        let plist = try GitHubService(profileURL: serviceProfileURL("github", "plist"))
        let json = try GitHubService(profileURL: serviceProfileURL("github", "json"))
        #expect(plist.profile == json.profile)
    }

    @Test("A file without a known extension is read by its content")
    func sniffedFormat() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonFile = directory.appendingPathComponent("profile.txt")
        try Data(contentsOf: serviceProfileURL("github", "json")).write(to: jsonFile)
        let plistFile = directory.appendingPathComponent("profile.conf")
        try Data(contentsOf: serviceProfileURL("github", "plist")).write(to: plistFile)
        let binaryFile = directory.appendingPathComponent("profile")
        let binary = try PropertyListSerialization.data(
            fromPropertyList: ["Resources": [["Name": "a", "URITemplate": "/a"]]], format: .binary, options: 0)
        try binary.write(to: binaryFile)

        #expect(try HTTPService(profileURL: jsonFile).profile.resources.count == 3)
        #expect(try HTTPService(profileURL: plistFile).profile.resources.count == 3)
        let fromBinary = try HTTPService(profileURL: binaryFile)
        #expect(fromBinary.profile.resources.map(\.name) == ["a"])
        #expect(fromBinary.baseURL == "")
    }

    @Test("Unreadable profile files throw unreadableProfile")
    func unreadable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.plist")
        let notJSON = directory.appendingPathComponent("bad.json")
        try Data("{ nope".utf8).write(to: notJSON)
        let array = directory.appendingPathComponent("array.json")
        try Data("[1, 2]".utf8).write(to: array)
        for url in [missing, notJSON, array] {
            do {
                _ = try HTTPService(profileURL: url)
                Issue.record("expected an error for \(url.lastPathComponent)")
            } catch let HTTPServiceError.unreadableProfile(failing, reason) {
                #expect(failing == url)
                #expect(!reason.isEmpty)
            }
        }
        #expect(throws: HTTPServiceError.self) { try HTTPService(profileURL: array) }
    }

    @Test("The bundle profile is found by service name: plist first, else JSON")
    func fromBundle() throws {
        let github = try GitHubService(bundle: .module, subdirectory: serviceResources)
        #expect(github.profile.resources.count == 3)
        let jsonOnly = try JSONOnlyService(bundle: .module, subdirectory: serviceResources)
        #expect(jsonOnly.baseURL == "http://127.0.0.1:1/api/")
        #expect(jsonOnly.profile.resource(named: "item")?.method == .delete)
        #expect(throws: HTTPServiceError.profileNotFound(
            serviceName: "no-such-service", bundlePath: Bundle.module.bundlePath, subdirectory: serviceResources)
        ) {
            try MissingService(bundle: .module, subdirectory: serviceResources)
        }
    }

    @Test("serviceName defaults to the class name; defaultSession gives each service a new session")
    func defaults() throws {
        #expect(HTTPService.serviceName == "HTTPService")
        #expect(HookedService.serviceName == "HookedService")
        #expect(GitHubService.serviceName == "github")
        let profile: [String: Any] = ["Resources": [["Name": "a", "URITemplate": "/a"]]]
        let a = try HTTPService(profile: profile)
        let b = try HTTPService(profile: profile)
        #expect(a.session !== b.session)
        #expect(a.session !== HTTPSession.default)
        let github = try GitHubService(profile: profile)
        #expect(github.session.requestProcessors.first is HTTPJSONProcessor)
        #expect(github.session.responseProcessors.first is HTTPJSONProcessor)
        let given = HTTPSession()
        #expect(try GitHubService(profile: profile, session: given).session === given)
    }

    @Test("A broken profile file lists every problem")
    func brokenFile() throws {
        do {
            _ = try HTTPService(profileURL: serviceProfileURL("broken", "json"))
            Issue.record("expected invalidProfile")
        } catch let HTTPServiceError.invalidProfile(problems) {
            #expect(problems.count == 5, "\(problems)")
            #expect(problems.contains { $0.contains("BaseURL") && $0.contains("a number") })
            #expect(problems.contains { $0.contains("Resources[0]") && $0.contains("\"Name\"") })
            #expect(problems.contains { $0.contains("Resources[1]") && $0.contains("does not parse") })
            #expect(problems.contains { $0.contains("Resources[2]") && $0.contains("repeats the name \"b\"") })
            #expect(problems.contains { $0.contains("Resources[2]") && $0.contains("\"Method\" \"NOT A TOKEN\"") })
        }
    }

    @Test("verifyProfile is empty for a valid profile")
    func verifyValid() throws {
        let profile: [String: Any] = [
            "BaseURL": "http://h", "Resources": [["Name": "a", "URITemplate": "/a{?x}", "Method": "put"]],
            "Comment": "ignored",
        ]
        #expect(HTTPService.verifyProfile(profile) == [])
        #expect(try HTTPService.Profile(profile).resources.first?.method == .put)
    }

    /// One problem `verifyProfile` must report, alone.
    struct ProblemCase: Sendable, CustomTestStringConvertible {
        let expected: String
        let profile: @Sendable () -> [String: Any]
        init(_ expected: String, _ profile: @escaping @Sendable () -> [String: Any]) {
            self.expected = expected
            self.profile = profile
        }
        var testDescription: String { expected }
    }

    static let problemCases: [ProblemCase] = [
        ProblemCase("the required key \"Resources\" is missing") { ["BaseURL": "http://h"] },
        ProblemCase("\"Resources\" must be an array, not a string") { ["Resources": "x"] },
        ProblemCase("\"Resources\" must be an array, not a dictionary") { ["Resources": ["Name": "a"]] },
        ProblemCase("\"Resources\" is empty") { ["Resources": [Any]()] },
        ProblemCase("\"BaseURL\" must be a string, not a number") {
            ["BaseURL": 1, "Resources": [["Name": "a", "URITemplate": "/a"]]]
        },
        ProblemCase("Resources[0] must be a dictionary, not a string") { ["Resources": ["a"]] },
        ProblemCase("Resources[0] has no \"Name\"") { ["Resources": [["URITemplate": "/a"]]] },
        ProblemCase("Resources[0] \"Name\" must be a string, not a number") {
            ["Resources": [["Name": 3, "URITemplate": "/a"] as [String: Any]]]
        },
        ProblemCase("Resources[0] has an empty \"Name\"") { ["Resources": [["Name": "", "URITemplate": "/a"]]] },
        ProblemCase("Resources[0] (\"a\") has no \"URITemplate\"") { ["Resources": [["Name": "a"]]] },
        ProblemCase("Resources[0] (\"a\") \"URITemplate\" must be a string, not an array") {
            ["Resources": [["Name": "a", "URITemplate": ["/a"]] as [String: Any]]]
        },
        ProblemCase("Resources[0] (\"a\") \"URITemplate\" does not parse: ") {
            ["Resources": [["Name": "a", "URITemplate": "/a{b"]]]
        },
        ProblemCase("Resources[0] (\"a\") \"Method\" must be a string, not a number") {
            ["Resources": [["Name": "a", "URITemplate": "/a", "Method": 1] as [String: Any]]]
        },
        ProblemCase("Resources[0] (\"a\") \"Method\" \"GE T\" is not a valid HTTP method token") {
            ["Resources": [["Name": "a", "URITemplate": "/a", "Method": "GE T"]]]
        },
        ProblemCase("Resources[1] repeats the name \"a\" of Resources[0]") {
            ["Resources": [["Name": "a", "URITemplate": "/a"], ["Name": "a", "URITemplate": "/b"]]]
        },
    ]

    @Test("verifyProfile names each problem", arguments: problemCases)
    func verifyProblem(_ problemCase: ProblemCase) {
        let problems = HTTPService.verifyProfile(problemCase.profile())
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix(problemCase.expected) == true, "\(problems)")
    }

    @Test("The template error's message is in the problem")
    func templateMessage() throws {
        let template = "/a{b"
        var parserMessage = ""
        do { _ = try URITemplate(template) } catch { parserMessage = error.description }
        #expect(!parserMessage.isEmpty)
        let problems = HTTPService.verifyProfile(["Resources": [["Name": "a", "URITemplate": template]]])
        #expect(problems.first?.hasSuffix(parserMessage) == true, "\(problems)")
    }

    @Test("Every problem is reported at once; initialisers and setProfile throw them")
    func everyProblem() throws {
        let profile: [String: Any] = [
            "BaseURL": ["x"],
            "Resources": [["Name": "a"], 7, ["Name": "a", "URITemplate": "}"]] as [Any],
        ]
        let problems = HTTPService.verifyProfile(profile)
        #expect(problems.count == 5, "\(problems)")
        #expect(throws: HTTPServiceError.invalidProfile(problems)) { try HTTPService(profile: profile) }

        let service = try HTTPService(profile: ["Resources": [["Name": "a", "URITemplate": "/a"]]])
        #expect(throws: HTTPServiceError.invalidProfile(problems)) { try service.setProfile(profile) }
        #expect(service.profile.resources.map(\.name) == ["a"])
        try service.setProfile(["BaseURL": "http://new", "Resources": [["Name": "b", "URITemplate": "/b"]]])
        #expect(service.profile.resources.map(\.name) == ["b"])
        #expect(service.baseURL == "http://new")
        #expect(throws: HTTPServiceError.unknownResource("a")) { try service.cycle(forResource: "a") }
    }

    @Test("The typed profile round-trips through its dictionary form and rejects duplicates")
    func typedProfile() throws {
        let github = try GitHubService(profileURL: serviceProfileURL("github", "plist"))
        let again = try HTTPService.Profile(github.profile.dictionary)
        #expect(again == github.profile)
        let resource = HTTPService.Profile.Resource(name: "a", uriTemplate: try URITemplate("/a"))
        #expect(throws: HTTPServiceError.self) { try HTTPService.Profile(resources: [resource, resource]) }
        #expect(throws: HTTPServiceError.self) { try HTTPService.Profile(resources: []) }
        let service = HTTPService(profile: try HTTPService.Profile(baseURL: "http://h", resources: [resource]))
        #expect(try service.cycle(forResource: "a").request.url?.absoluteString == "http://h/a")
    }
}
