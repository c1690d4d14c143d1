import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sandbox's `/stores/` endpoint, which the seed examples run against.
@Suite("Sandbox /stores/")
struct StoresEndpointTests {
    @Test("stores are filtered by zip, all without one, [] for an unknown zip", arguments: [
        ("15217", ["Squirrel Hill", "Greenfield"]),
        ("15232", ["Shadyside"]),
        ("00000", []),
        (nil, ["Squirrel Hill", "Greenfield", "Shadyside", "Bentonville"]),
    ] as [(String?, [String])])
    func filtering(zip: String?, names: [String]) async throws {
        try await withSandbox { sandbox in
            let response = try await makeService(sandbox).GET("/stores/", parameters: zip.map { ["zip": $0] }).response()
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let stores = try JSONDecoder().decode([StoreModel].self, from: response.data)
            #expect(stores.map(\.name) == names)
            #expect(stores.allSatisfy { $0.zip == $0.address.zip && (zip == nil || $0.zip == zip) })
        }
    }

    @Test("the JSON has sorted keys and the documented shape")
    func shape() async throws {
        try await withSandbox { sandbox in
            let text = try await makeService(sandbox).GET("/stores/?zip=15232").string()
            #expect(text == #"[{"address":{"city":"Pittsburgh","street":"5502 Walnut St","zip":"15232"},"name":"Shadyside","zip":"15232"}]"#)
        }
    }

    @Test("a zip that isn't five digits is a 400 with a JSON error body", arguments: ["bad", "1521", "152170", "1521a", "", "１５２１７"])
    func malformedZip(zip: String) async throws {
        try await withSandbox { sandbox in
            do {
                _ = try await makeService(sandbox).GET("/stores/", parameters: ["zip": zip]).response()
                Issue.record("zip \(zip) was accepted")
            } catch HTTPError.statusCodeSeemsToHaveErred(let response) {
                #expect(response.statusCode == 400)
                #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
                let error = try JSONDecoder().decode(APIError.self, from: response.data)
                #expect(error.code == "invalidZipCode")
                #expect(error.message.contains("\"\(zip)\""))
            }
        }
    }

    @Test("methods other than GET and HEAD get 405")
    func otherMethods() async throws {
        try await withSandbox { sandbox in
            let head = try await makeService(sandbox).HEAD("/stores/").response()
            #expect(head.statusCode == 200)
            await #expect {
                try await makeService(sandbox).POST("/stores/").response()
            } throws: { error in
                (error as? HTTPError)?.statusCode == 405
            }
        }
    }
}
