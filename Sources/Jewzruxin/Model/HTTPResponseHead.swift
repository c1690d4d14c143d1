import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status line and header fields of a response, as a transport received them.
///
/// Any transport can hand one to ``HTTPTransferEvents/didReceive(_:)-(HTTPResponseHead)``: the
/// cycle's ``HTTPResponse`` then reads its status, URL and headers from it directly, and makes the
/// `HTTPURLResponse` behind ``HTTPResponse/core`` only when something asks for it.
/// FoundationNetworking's `HTTPURLResponse` initialiser canonicalises every field name and parses
/// `Content-Type` and `Content-Disposition`: about a tenth of a fast transport's CPU per request, for
/// a value most requests never read.
public final class HTTPResponseHead: Sendable {
    /// One header field, its name as the server spelled it.
    public struct Field: Sendable, Hashable {
        /// The field name (a token: ASCII only).
        public var name: String
        /// The field value, without the whitespace around it.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The URL the response came from.
    public let url: URL
    /// The status code.
    public let statusCode: Int
    /// The reason phrase of the status line (empty when the server sent none).
    public let reasonPhrase: String
    /// The protocol of the status line, `HTTP/1.1` for instance.
    public let httpVersion: String
    /// The fields in the order received, as `(name, value)`.
    let orderedFields: [(name: String, value: String)]
    /// A challenge in this head (a 401's) that the transport had credentials for and could not
    /// answer: the curl transport says so when libcurl couldn't run an NTLM or Negotiate handshake.
    let unansweredChallenge: UnansweredChallenge?
    /// The Foundation form, once made (`.some(nil)` if Foundation refused to make it).
    private let foundation = Locked<HTTPURLResponse??>(nil)

    /// Creates a head.
    ///
    /// - Parameters:
    ///   - url: The URL the response came from.
    ///   - statusCode: The status code.
    ///   - reasonPhrase: The reason phrase.
    ///   - httpVersion: The protocol, `HTTP/1.1` by default.
    ///   - fields: The header fields in the order received; a name may repeat.
    public convenience init(url: URL, statusCode: Int, reasonPhrase: String = "", httpVersion: String = "HTTP/1.1", fields: [Field]) {
        self.init(url: url, statusCode: statusCode, reasonPhrase: reasonPhrase, httpVersion: httpVersion,
                  orderedFields: fields.map { ($0.name, $0.value) })
    }

    init(
        url: URL, statusCode: Int, reasonPhrase: String, httpVersion: String, orderedFields: [(name: String, value: String)],
        unansweredChallenge: UnansweredChallenge? = nil
    ) {
        self.url = url
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.httpVersion = httpVersion
        self.orderedFields = orderedFields
        self.unansweredChallenge = unansweredChallenge
    }

    /// The header fields in the order received, names as the server spelled them.
    public var fields: [Field] { orderedFields.map { Field(name: $0.name, value: $0.value) } }

    /// The values of the fields named `field`, matched case-insensitively, joined with `", "` in
    /// the order received: the value ``HTTPResponse/core`` gives for that name, since repeated
    /// fields are joined under their first spelling when it is made.
    public func value(forHTTPHeaderField field: String) -> String? {
        var joined: String?
        for (name, value) in orderedFields where HTTPHeaderSyntax.equalIgnoringASCIICase(name, field) {
            joined = joined.map { $0 + ", " + value } ?? value
        }
        return joined
    }

    /// The `HTTPURLResponse` of this head, made on first use; `nil` if Foundation refuses it.
    public var foundationResponse: HTTPURLResponse? {
        foundation.withLock { made in
            if let made { return made }
            let response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: joinedFields)
            made = .some(response)
            return response
        }
    }

    /// The fields as one dictionary: repeated names (in any spelling) joined with ", " under the
    /// first spelling, as HTTP allows for list fields.
    var joinedFields: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(orderedFields.count)
        // The first spelling of each name; a short list, searched without allocating.
        var spellings: [String] = []
        for (name, value) in orderedFields {
            if let first = spellings.first(where: { HTTPHeaderSyntax.equalIgnoringASCIICase($0, name) }) {
                result[first, default: ""] += ", " + value
            } else {
                spellings.append(name)
                result[name] = value
            }
        }
        return result
    }
}
