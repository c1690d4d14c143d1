import Foundation

/// An error an ``HTTPService`` throws before any request is sent.
public enum HTTPServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The profile is not valid; the array lists every problem, as ``HTTPService/verifyProfile(_:)``
    /// reports them.
    case invalidProfile([String])
    /// No resource of the profile has this name.
    case unknownResource(String)
    /// Neither `<serviceName>.plist` nor `<serviceName>.json` was found in the bundle.
    case profileNotFound(serviceName: String, bundlePath: String, subdirectory: String?)
    /// The profile file could not be read or parsed as a property list or JSON dictionary.
    case unreadableProfile(URL, reason: String)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidProfile(let problems):
            return "invalid service profile: " + problems.joined(separator: "; ")
        case .unknownResource(let name):
            return "the service has no resource named \"\(name)\""
        case .profileNotFound(let serviceName, let bundlePath, let subdirectory):
            let place = subdirectory.map { "\(bundlePath)/\($0)" } ?? bundlePath
            return "no profile \"\(serviceName).plist\" or \"\(serviceName).json\" in \(place)"
        case .unreadableProfile(let url, let reason):
            return "cannot read the service profile \(url.path): \(reason)"
        }
    }
}
