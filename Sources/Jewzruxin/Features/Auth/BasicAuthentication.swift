import Foundation
import JewzruxinAuth

/// Answers HTTP Basic (RFC 7617) and Digest (RFC 7616: MD5, SHA-256 and their `-sess` forms,
/// `qop=auth`, RFC 2069 without `qop`) challenges with a user name and password.
///
/// ```swift
/// let auth = BasicAuthentication(username: "test", password: "12345")
/// try HTTPCycle.get(url, authentications: [auth]) { cycle, error in
///     cycle.response.text // "Hello World"
/// }
/// ```
///
/// When a 401 offers several challenges, a usable Digest one is preferred over Basic, as it never
/// sends the password itself. Works on Linux for every form of challenge, including Digest and a
/// Basic challenge without a realm, for which URLSession raises no challenge at all (L8).
public final class BasicAuthentication: Authentication, @unchecked Sendable {
    /// The user name.
    public let username: String
    /// The password.
    public let password: String

    /// Creates an authentication that answers with these credentials.
    ///
    /// - Parameters:
    ///   - username: The user name (for Basic, it can't contain a colon).
    ///   - password: The password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// A Digest answer when the response offers a usable Digest challenge, otherwise a Basic one
    /// when it offers Basic, otherwise `nil`.
    public override func authorization(
        for response: HTTPResponse, request: HTTPRequest, previousFailureCount: Int
    ) -> String? {
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate"),
              let url = request.url
        else { return nil }
        let challenges = AuthenticationChallenge.parse(header)
        if let digest = DigestChallenge.preferred(in: challenges) {
            let credentials = DigestCredentials(username: username, password: password)
            let body = request.data.map { Array($0) } ?? []
            if let answer = credentials.authorization(
                for: digest, method: request.method.rawValue, uri: Self.requestTarget(of: url), entityBody: body) {
                return answer.headerValue
            }
        }
        if challenges.contains(where: { $0.hasScheme("Basic") }) {
            return BasicCredentials.basicAuthorization(username: username, password: password)
        }
        return nil
    }

    /// The request target as it goes on the request line: the percent-encoded path (with its
    /// trailing slash, which `URL.path` drops on Linux) and query.
    static func requestTarget(of url: URL) -> String {
        let string = url.absoluteString
        var rest = Substring(string)
        if let schemeEnd = rest.range(of: "://") {
            rest = rest[schemeEnd.upperBound...]
            rest = rest[(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)...]
        }
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        if rest.isEmpty { return "/" }
        return rest.first == "?" ? "/" + rest : String(rest)
    }
}
