import Foundation
import Jewzruxin
import JewzruxinFluent

// The store locator of the Swallow README (seed 004), written as its extension examples are, in
// today's Swift; the sandbox's `/stores/` endpoint serves it.

/// A store, as the sandbox's `/stores/` serves it.
struct StoreModel: Decodable, Sendable, Equatable {
    struct Address: Decodable, Sendable, Equatable {
        let street: String
        let city: String
        let zip: String
    }

    let name: String
    let zip: String
    let address: Address

    /// A store made from its JSON by hand, as the seed's `parseJSONAsStoreModels` does.
    init?(json: JSON) {
        guard let name = json["name"]?.stringValue, let zip = json["zip"]?.stringValue,
              let street = json["address.street"]?.stringValue, let city = json["address.city"]?.stringValue,
              let addressZip = json["address.zip"]?.stringValue
        else { return nil }
        self.name = name
        self.zip = zip
        self.address = Address(street: street, city: city, zip: addressZip)
    }

    /// The stores of a JSON array, or `nil` when it isn't one of stores only.
    static func models(from json: JSON) -> [StoreModel]? {
        guard let array = json.arrayValue else { return nil }
        let models = array.compactMap(StoreModel.init(json:))
        return models.count == array.count ? models : nil
    }
}

// `StoreError`, `responseAsStoresModels(_:)` and `searchStores(zipCode:)` are the fluent Getting
// Started article's, in `DocCExamples.swift`.

/// The error document `/stores/` answers a bad zip with.
struct APIError: Decodable, Sendable, Equatable {
    let code: String
    let message: String
}

// MARK: - Store Locator Services

extension ServiceTask {
    typealias StoreServiceSuccess = @Sendable ([StoreModel]) -> Void

    /// The same, as the seed's "Error Handling" section writes it.
    func responseAsStoreModels(_ handler: @escaping StoreServiceSuccess) -> Self {
        responseJSON { json in
            if let models = self.parseJSONAsStoreModels(json) {
                handler(models)
            } else {
                self.throwError(self.modelParseError())
            }
        }
    }

    /// The name the seed's last extension example uses.
    func responseStoreModels(_ handler: @escaping StoreServiceSuccess) -> Self {
        responseAsStoresModels(handler)
    }

    func parseJSONAsStoreModels(_ json: JSON) -> [StoreModel]? {
        StoreModel.models(from: json)
    }

    func modelParseError() -> any Error {
        StoreError.modelSerializationFailure
    }
}

extension WebService {
    func fetchStores(zipCode: String) -> ServiceTask {
        searchStores(zipCode: zipCode)
    }
}

/// The stores the sandbox has for zip 15217, in its order.
let storesIn15217 = [
    StoreModel(json: ["name": "Squirrel Hill", "zip": "15217",
                      "address": ["street": "5824 Forbes Ave", "city": "Pittsburgh", "zip": "15217"]]),
    StoreModel(json: ["name": "Greenfield", "zip": "15217",
                      "address": ["street": "4 Greenfield Ave", "city": "Pittsburgh", "zip": "15217"]]),
].compactMap { $0 }
