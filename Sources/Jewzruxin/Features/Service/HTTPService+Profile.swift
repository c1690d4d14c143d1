import Foundation

extension HTTPService {
    /// What a service talks to: a base URL and named resources (endpoints), each a URI template and
    /// a method.
    ///
    /// The dictionary form, as stored in a property list or JSON file, is:
    ///
    /// Key           | Type   | Required | Default
    /// --------------|--------|----------|--------
    /// `BaseURL`     | String | no       | `""`
    /// `Resources`   | Array  | yes      | –
    ///
    /// and for each dictionary of `Resources`:
    ///
    /// Key           | Type   | Required | Default
    /// --------------|--------|----------|--------
    /// `Name`        | String | yes      | –
    /// `URITemplate` | String | yes      | –
    /// `Method`      | String | no       | `"GET"`
    ///
    /// Other keys are ignored. Names must be unique, templates must parse, and `Resources` must not
    /// be empty.
    public struct Profile: Sendable, Hashable {
        /// One endpoint of a service.
        public struct Resource: Sendable, Hashable {
            /// The name requests refer to the resource by.
            public var name: String
            /// The template that, expanded, is joined to the base URL.
            public var uriTemplate: URITemplate
            /// The request method.
            public var method: HTTPMethod

            /// Creates a resource.
            public init(name: String, uriTemplate: URITemplate, method: HTTPMethod = .get) {
                self.name = name
                self.uriTemplate = uriTemplate
                self.method = method
            }
        }

        /// The URL the expanded templates are joined to; may be empty when templates are absolute.
        public var baseURL: String
        /// The resources, in profile order.
        public private(set) var resources: [Resource]

        /// Creates a profile from typed values.
        /// - Throws: ``HTTPServiceError/invalidProfile(_:)`` when `resources` is empty or repeats a name.
        public init(baseURL: String = "", resources: [Resource]) throws(HTTPServiceError) {
            var problems: [String] = []
            if resources.isEmpty { problems.append("\"Resources\" is empty") }
            var seen: [String: Int] = [:]
            for (index, resource) in resources.enumerated() {
                if let first = seen[resource.name] {
                    problems.append("Resources[\(index)] repeats the name \"\(resource.name)\" of Resources[\(first)]")
                } else {
                    seen[resource.name] = index
                }
            }
            guard problems.isEmpty else { throw .invalidProfile(problems) }
            self.baseURL = baseURL
            self.resources = resources
        }

        /// Creates a profile from its dictionary form.
        /// - Throws: ``HTTPServiceError/invalidProfile(_:)`` listing every problem.
        public init(_ dictionary: [String: Any]) throws(HTTPServiceError) {
            let (profile, problems) = Profile.parse(dictionary)
            guard let profile, problems.isEmpty else { throw .invalidProfile(problems) }
            self = profile
        }

        /// The resource named `name`, if any.
        public func resource(named name: String) -> Resource? {
            resources.first { $0.name == name }
        }

        /// The dictionary form of the profile (the keys of a profile file).
        public var dictionary: [String: Any] {
            [
                "BaseURL": baseURL,
                "Resources": resources.map { resource -> [String: Any] in
                    ["Name": resource.name, "URITemplate": resource.uriTemplate.description, "Method": resource.method.rawValue]
                },
            ]
        }

        /// Parses the dictionary form: the profile when there is no problem, and every problem found.
        static func parse(_ dictionary: [String: Any]) -> (Profile?, [String]) {
            var problems: [String] = []
            var baseURL = ""
            if let value = dictionary["BaseURL"] {
                if let string = value as? String {
                    baseURL = string
                } else {
                    problems.append("\"BaseURL\" must be a string, not \(kind(of: value))")
                }
            }
            var resources: [Resource] = []
            switch dictionary["Resources"] {
            case nil:
                problems.append("the required key \"Resources\" is missing")
            case let array as [Any]:
                if array.isEmpty { problems.append("\"Resources\" is empty") }
                var seen: [String: Int] = [:]
                for (index, item) in array.enumerated() {
                    let place = "Resources[\(index)]"
                    guard let item = item as? [String: Any] else {
                        problems.append("\(place) must be a dictionary, not \(kind(of: item))")
                        continue
                    }
                    if let resource = parseResource(item, place: place, seen: &seen, index: index, problems: &problems) {
                        resources.append(resource)
                    }
                }
            case let value?:
                problems.append("\"Resources\" must be an array, not \(kind(of: value))")
            }
            guard problems.isEmpty else { return (nil, problems) }
            return (Profile(checkedBaseURL: baseURL, resources: resources), [])
        }

        private init(checkedBaseURL: String, resources: [Resource]) {
            self.baseURL = checkedBaseURL
            self.resources = resources
        }

        private static func parseResource(
            _ item: [String: Any], place: String, seen: inout [String: Int], index: Int, problems: inout [String]
        ) -> Resource? {
            var name: String?
            var place = place
            switch item["Name"] {
            case nil:
                problems.append("\(place) has no \"Name\"")
            case let string as String:
                if string.isEmpty {
                    problems.append("\(place) has an empty \"Name\"")
                } else if let first = seen[string] {
                    problems.append("\(place) repeats the name \"\(string)\" of Resources[\(first)]")
                } else {
                    seen[string] = index
                    name = string
                }
                place += " (\"\(string)\")"
            case let value?:
                problems.append("\(place) \"Name\" must be a string, not \(kind(of: value))")
            }
            var template: URITemplate?
            switch item["URITemplate"] {
            case nil:
                problems.append("\(place) has no \"URITemplate\"")
            case let string as String:
                do {
                    template = try URITemplate(string)
                } catch {
                    problems.append("\(place) \"URITemplate\" does not parse: \(error.description)")
                }
            case let value?:
                problems.append("\(place) \"URITemplate\" must be a string, not \(kind(of: value))")
            }
            var method = HTTPMethod.get
            var methodIsValid = true
            switch item["Method"] {
            case nil:
                break
            case let string as String:
                if isToken(string) {
                    method = HTTPMethod(rawValue: string)
                } else {
                    methodIsValid = false
                    problems.append("\(place) \"Method\" \"\(string)\" is not a valid HTTP method token")
                }
            case let value?:
                methodIsValid = false
                problems.append("\(place) \"Method\" must be a string, not \(kind(of: value))")
            }
            guard let name, let template, methodIsValid else { return nil }
            return Resource(name: name, uriTemplate: template, method: method)
        }

        /// Whether `string` is a non-empty RFC 9110 token.
        private static func isToken(_ string: String) -> Bool {
            let extra: Set<Character> = ["!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~"]
            return !string.isEmpty && string.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || extra.contains($0) }
        }

        /// A readable name for the kind of a property-list or JSON value.
        static func kind(of value: Any) -> String {
            switch value {
            case is String: return "a string"
            case is [Any]: return "an array"
            case is [String: Any]: return "a dictionary"
            case is Data: return "data"
            case is Date: return "a date"
            case is NSNull: return "null"
            case is Bool, is NSNumber, is Int, is Double: return "a number"
            default: return "a \(type(of: value))"
            }
        }
    }

    /// Every problem of a profile in its dictionary form, as readable messages; empty when it is valid.
    ///
    /// Checks that `Resources` is present, an array and not empty; that `BaseURL`, each `Name`,
    /// `URITemplate` and `Method` have the right type; that names are present, non-empty and unique;
    /// that methods are valid tokens; and that each template parses (with the parser's message).
    /// Verify profiles that come from unsafe sources (the web) before using them.
    public static func verifyProfile(_ profile: [String: Any]) -> [String] {
        Profile.parse(profile).1
    }

    /// Reads a profile dictionary from a property list or JSON file.
    ///
    /// The format is chosen by the extension (`.json`, `.plist`), else by the content: text starting
    /// with `{` is JSON, anything else is read as a property list (XML or binary).
    static func readProfileDictionary(at url: URL) throws(HTTPServiceError) -> [String: Any] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableProfile(url, reason: error.localizedDescription)
        }
        let isJSON: Bool
        switch url.pathExtension.lowercased() {
        case "json": isJSON = true
        case "plist": isJSON = false
        default: isJSON = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
        }
        let object: Any
        do {
            if isJSON {
                object = try JSONSerialization.jsonObject(with: data)
            } else {
                object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            }
        } catch {
            throw .unreadableProfile(url, reason: "not a valid \(isJSON ? "JSON" : "property list") file (\(error.localizedDescription))")
        }
        guard let dictionary = object as? [String: Any] else {
            throw .unreadableProfile(url, reason: "the top level is \(Profile.kind(of: object)), not a dictionary")
        }
        return dictionary
    }
}
