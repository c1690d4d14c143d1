import Foundation

/// The worked examples in `Resources/auth/digest-basic-vectors.json` (see the README
/// next to it).
struct AuthVectors: Decodable {
    /// A Basic example: `user:password` encodes to `header`.
    struct Basic: Decodable, Sendable, CustomStringConvertible {
        let rfc: String
        let user: String
        let password: String
        let header: String
        let challenge: String?

        var description: String { rfc }
    }

    /// A Digest example: the inputs and the `response` they produce.
    struct Digest: Decodable, Sendable, CustomStringConvertible {
        let rfc: String
        let algorithm: String
        let username: String
        let password: String
        let realm: String
        let method: String
        let uri: String
        let nonce: String
        let opaque: String?
        let challengeQOP: String?
        let qop: String?
        let nc: String?
        let cnonce: String?
        let response: String?
        let userhash: Bool?

        var description: String { "\(rfc) \(algorithm)" }

        enum CodingKeys: String, CodingKey {
            case rfc, algorithm, username, password, realm, method, uri, nonce, opaque, qop, nc, cnonce
            case response, userhash
            case challengeQOP = "challenge_qop"
        }

        /// The `WWW-Authenticate` value the example's server sent. RFC 2069 examples
        /// (no qop) predate the `algorithm` parameter, so it is left out there.
        var challengeHeader: String {
            var parts = ["realm=\"\(realm)\""]
            if let challengeQOP { parts.append("qop=\"\(challengeQOP)\"") }
            if qop != nil { parts.append("algorithm=\(algorithm)") }
            parts.append("nonce=\"\(nonce)\"")
            if let opaque { parts.append("opaque=\"\(opaque)\"") }
            return "Digest " + parts.joined(separator: ", ")
        }
    }

    let basic: [Basic]
    let digest: [Digest]

    /// A problem loading the vectors file.
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads and decodes the vectors file from the test bundle.
    static func load() throws -> AuthVectors {
        guard let url = Bundle.module.url(forResource: "Resources/auth/digest-basic-vectors", withExtension: "json")
        else { throw LoadError(description: "Resources/auth/digest-basic-vectors.json is missing from the bundle") }
        return try JSONDecoder().decode(AuthVectors.self, from: Data(contentsOf: url))
    }

    /// The algorithm of the RFC 7616 §3.9.2 example, which these tests skip: its
    /// printed values are SHA-512 truncated to 256 bits rather than FIPS SHA-512/256
    /// (erratum 4897), and SHA-512-256 is optional in RFC 7616 and not implemented.
    static let skippedAlgorithm = "SHA-512-256"

    /// The Digest examples every implementation here must reproduce.
    static func supportedDigest() throws -> [Digest] {
        try load().digest.filter { $0.algorithm != skippedAlgorithm }
    }

    /// The Basic examples.
    static func basicExamples() throws -> [Basic] {
        try load().basic
    }
}
