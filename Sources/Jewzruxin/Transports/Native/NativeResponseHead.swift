import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response head the native transport parsed, for ``HTTPResponse``: the status, URL and headers
/// are read from it directly, and the `HTTPURLResponse` behind ``HTTPResponse/core`` is made only
/// when something asks for it.
///
/// FoundationNetworking's `HTTPURLResponse` initialiser canonicalises every field name and parses
/// `Content-Type` and `Content-Disposition`: about a tenth of the native transport's CPU per request,
/// for a value most requests never read.
final class NativeResponseHead: Sendable {
    /// The URL the response came from.
    let url: URL
    /// The status line and fields, names as the server spelled them (tokens: ASCII only).
    let head: ResponseHead
    /// The Foundation form, once made (`.some(nil)` if Foundation refused to make it).
    private let foundation = Locked<HTTPURLResponse??>(nil)

    init(url: URL, head: ResponseHead) {
        self.url = url
        self.head = head
    }

    /// The values of the fields named `field`, matched case-insensitively, joined with `", "` in
    /// the order received: the value `core` gives for that name, since the transport joins
    /// repeated fields under their first spelling before making it.
    func value(forHTTPHeaderField field: String) -> String? {
        var joined: String?
        for (name, value) in head.fields where ResponseHead.equalIgnoringASCIICase(name, field) {
            joined = joined.map { $0 + ", " + value } ?? value
        }
        return joined
    }

    /// The `HTTPURLResponse` of this head, made on first use.
    var foundationResponse: HTTPURLResponse? {
        foundation.withLock { made in
            if let made { return made }
            let response = HTTPURLResponse(
                url: url, statusCode: head.status, httpVersion: head.minor == 1 ? "HTTP/1.1" : "HTTP/1.\(head.minor)",
                headerFields: head.joinedFields)
            made = .some(response)
            return response
        }
    }
}
