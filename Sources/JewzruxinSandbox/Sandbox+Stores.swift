import Foundation

// `/stores/` is the store locator of the Swallow README (seed 004), with fixed data:
//
// | Parameter | Default | Meaning                                                          |
// |-----------|---------|------------------------------------------------------------------|
// | zip       | none    | five ASCII digits: only the stores with that zip; absent: all    |
//
// GET (and HEAD) answer 200 `application/json`: an array of stores, each
// `{"address":{"city":…,"street":…,"zip":…},"name":…,"zip":…}` (keys sorted), in a fixed
// order; `[]` when no store has the zip. A zip that is not five digits answers 400
// `application/json` `{"code":"invalidZipCode","message":…}`. Other methods get 405.

extension Sandbox {
    /// A store as `/stores/` serves it.
    struct Store: Encodable {
        struct Address: Encodable {
            let street: String
            let city: String
            let zip: String
        }

        let name: String
        let zip: String
        let address: Address

        init(_ name: String, street: String, city: String, zip: String) {
            self.name = name
            self.zip = zip
            self.address = Address(street: street, city: city, zip: zip)
        }
    }

    /// The error document of `/stores/`.
    struct StoreError: Encodable {
        let code: String
        let message: String
    }

    /// Every store `/stores/` knows, in the order it lists them.
    static let stores: [Store] = [
        Store("Squirrel Hill", street: "5824 Forbes Ave", city: "Pittsburgh", zip: "15217"),
        Store("Greenfield", street: "4 Greenfield Ave", city: "Pittsburgh", zip: "15217"),
        Store("Shadyside", street: "5502 Walnut St", city: "Pittsburgh", zip: "15232"),
        Store("Bentonville", street: "702 SW 8th St", city: "Bentonville", zip: "72716"),
    ]

    static func storeLocator(_ request: SandboxRequest) -> SandboxResponse {
        guard ["GET", "HEAD"].contains(request.method) else { return methodNotAllowed(["GET", "HEAD"]) }
        let zip = request.queryValue("zip")
        if let zip, zip.utf8.count != 5 || !zip.utf8.allSatisfy(HTTPParser.isDigit) {
            return storeJSON(
                StoreError(code: "invalidZipCode", message: "zip must be five digits, not \"\(zip)\""), status: 400)
        }
        return storeJSON(stores.filter { zip == nil || $0.zip == zip })
    }

    private static func storeJSON(_ value: some Encodable, status: Int = 200) -> SandboxResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .json(try encoder.encode(value), status: status)
        } catch {
            return .error(500, "cannot encode stores: \(error)")
        }
    }
}
