import Foundation
import Jewzruxin

// `template`, `service` and `call`: URI templates and HTTPService profiles.
extension Playground {
    /// Expands an RFC 6570 template with the command's items and prints the result.
    func expand(_ template: String, _ items: [RequestItem]) throws(PlaygroundError) {
        let values = try Self.templateValues(items)
        do {
            console.line(try URITemplate(template).expand(values))
        } catch {
            throw PlaygroundError("\(error)")
        }
    }

    /// The values of a template's variables: `key=value` is a string, a repeated key a list,
    /// `key:=[...]` a list, `key:={...}` an associative array, `key:=null` undefined.
    ///
    /// - Parameter items: The items; `key==value` is refused.
    /// - Returns: The values by name.
    /// - Throws: ``PlaygroundError`` for `key==value` or a nested JSON value.
    static func templateValues(_ items: [RequestItem]) throws(PlaygroundError) -> [String: any Sendable] {
        var values: [String: any Sendable] = [:]
        for item in items {
            switch item {
            case .query:
                throw PlaygroundError("\(item): key==value is for requests; a template takes key=value")
            case .file:
                throw PlaygroundError("\(item): key@file is for requests; a template takes key=value")
            case .field(let name, let value):
                switch values[name] {
                case let list as [String]: values[name] = list + [value]
                case let single as String: values[name] = [single, value]
                default: values[name] = value
                }
            case .json(let name, let value):
                values[name] = try templateValue(value, item: item)
            }
        }
        return values
    }

    private static func templateValue(_ value: JSON, item: RequestItem) throws(PlaygroundError) -> (any Sendable)? {
        switch value {
        case .null: return nil
        case .array(let array):
            var list: [String] = []
            for element in array {
                guard let text = scalarText(element) else { throw nested(item) }
                list.append(text)
            }
            return list
        case .object(let object):
            var pairs: [String: String] = [:]
            for (key, element) in object {
                guard let text = scalarText(element) else { throw nested(item) }
                pairs[key] = text
            }
            return pairs
        default:
            return scalarText(value)
        }
    }

    private static func scalarText(_ value: JSON) -> String? {
        switch value {
        case .string(let string): return string
        case .int(let int): return String(int)
        case .double(let double): return double.description
        case .bool(let bool): return bool ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }

    private static func nested(_ item: RequestItem) -> PlaygroundError {
        PlaygroundError("\(item): a template value is a string, a list or an associative array of strings")
    }

    /// Loads an `HTTPService` profile and lists its resources.
    func loadService(_ path: String) throws(PlaygroundError) {
        let service: HTTPService
        do {
            service = try HTTPService(profileURL: fileURL(path), session: session)
        } catch {
            throw PlaygroundError("\(error)")
        }
        let profileBaseURL = service.baseURL
        loadedService = LoadedService(service: service, profileBaseURL: profileBaseURL)
        let resources = service.profile.resources
        console.line("loaded \(path): \(resources.count == 1 ? "1 resource" : "\(resources.count) resources"), base URL \(serviceBaseURL(profileBaseURL))")
        let nameWidth = resources.map(\.name.count).max() ?? 0
        let methodWidth = resources.map(\.method.rawValue.count).max() ?? 0
        for resource in resources {
            let name = resource.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let method = resource.method.rawValue.padding(toLength: methodWidth, withPad: " ", startingAt: 0)
            console.line("  \(name)  \(method)  \(resource.uriTemplate)")
        }
    }

    /// The base URL a service's resources are joined to: the profile's when it is absolute, else
    /// the profile's path joined to the playground's base URL.
    func serviceBaseURL(_ profileBaseURL: String) -> String {
        BaseURL.isAbsolute(profileBaseURL) ? profileBaseURL : BaseURL.join(baseURL, profileBaseURL)
    }

    /// Requests a resource of the loaded service.
    ///
    /// Items named after the template's variables expand it; the others are sent as a request
    /// command of the resource's method sends them (query or body).
    func call(_ name: String, _ items: [RequestItem], json: Bool) async throws(PlaygroundError) {
        guard var loaded = loadedService else { throw PlaygroundError("no service loaded: service FILE loads one") }
        if loaded.service.session !== session {
            // `transport` or `timeout` made a new session since the profile was loaded: run on it.
            loaded.service = HTTPService(profile: loaded.service.profile, session: session)
            loadedService = loaded
        }
        guard let resource = loaded.service.profile.resource(named: name) else {
            let names = loaded.service.profile.resources.map(\.name).joined(separator: ", ")
            throw PlaygroundError("\(HTTPServiceError.unknownResource(name)) (it has \(names))")
        }
        let variables = Set(resource.uriTemplate.variableNames)
        var templateItems: [RequestItem] = []
        var otherItems: [RequestItem] = []
        for item in items {
            if case .query = item { otherItems.append(item); continue }
            if variables.contains(item.name) { templateItems.append(item) } else { otherItems.append(item) }
        }
        let uriValues = try Self.templateValues(templateItems)
        let (body, query) = try RequestPlan.split(otherItems, method: resource.method, json: json)
        let plan = RequestPlan(method: resource.method, url: "", body: body)
        loaded.service.baseURL = serviceBaseURL(loaded.profileBaseURL)
        let cycle: HTTPCycle
        do {
            cycle = try loaded.service.cycle(forResource: name, uriValues: uriValues, requestObject: plan.requestObject)
        } catch {
            throw Self.describe(error, url: nil, method: resource.method)
        }
        if !query.isEmpty, let url = cycle.request.url {
            cycle.request.core.url = try Self.checkedURL(RequestPlan.merging(query, into: url.absoluteString))
        }
        cycle.requestProcessors = plan.requestProcessors
        cycle.uploadSource = plan.uploadSource
        try await sendAndPrint(cycle, label: "call \(name)")
    }
}
