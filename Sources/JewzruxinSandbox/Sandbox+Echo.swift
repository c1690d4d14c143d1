import Foundation
import JewzruxinPrimitives

// `/echo/` builds a response from its query:
//
// | Parameter | Default | Meaning                                                                   |
// |-----------|---------|---------------------------------------------------------------------------|
// | code      | 200     | status, 100...599 (1xx, 204 and 304 carry no body; 1xx then closes)       |
// | content   | empty   | the body text                                                             |
// | encoding  | utf-8   | charset label; body = content in that charset, `charset=<label as given>` |
// | header    | none    | repeatable `Name:Value`, added in order; Content-Type replaces the default |
// |           |         | one, `Content-Type:` (empty value) removes it                             |
// | delay     | 0       | seconds (fractional, capped at 30) to wait before responding              |

extension Sandbox {
    /// Header names the sandbox manages itself and `/echo/` therefore refuses.
    static let echoReservedHeaders = ["Content-Length", "Transfer-Encoding", "Connection"]

    static func echo(_ request: SandboxRequest) throws(ParameterError) -> SandboxResponse {
        let code = try integer(request, "code", default: 200, in: 100...599)
        let content = request.queryValue("content") ?? ""
        let body: Data
        let contentType: String
        if let label = request.queryValue("encoding") {
            switch CharsetEncoder.encode(content, label: label) {
            case let .success(data):
                body = data
            case let .failure(failure):
                throw ParameterError(failure.message)
            }
            guard !label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ParameterError("encoding must not contain control characters")
            }
            contentType = "text/plain; charset=\(label)"
        } else {
            body = Data(content.utf8)
            contentType = "text/plain; charset=utf-8"
        }

        let extraHeaders = try echoHeaders(request.queryValues("header"))
        var headers: SandboxHeaders = [:]
        if !extraHeaders.contains("Content-Type") {
            headers.add("Content-Type", contentType)
        }
        for field in extraHeaders {
            if SandboxHeaders.matches(field.name, "Content-Type"), field.value.isEmpty { continue }
            headers.add(field.name, field.value)
        }

        var response = SandboxResponse(status: Int(code), headers: headers, body: .data(body))
        response.delay = try seconds(request, "delay", default: 0)
        return response
    }

    /// Parses the `header=Name:Value` parameters, in order.
    static func echoHeaders(_ specifications: [String]) throws(ParameterError) -> SandboxHeaders {
        var headers: SandboxHeaders = [:]
        for specification in specifications {
            guard let colon = specification.firstIndex(of: ":") else {
                throw ParameterError("header must look like Name:Value")
            }
            let name = specification[..<colon].trimmingCharacters(in: .whitespaces)
            let value = specification[specification.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPHeaderSyntax.isTokenByte) else {
                throw ParameterError("header name \"\(name)\" is not a valid field name")
            }
            guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw ParameterError("header value for \(name) contains control characters")
            }
            guard !echoReservedHeaders.contains(where: { SandboxHeaders.matches($0, name) }) else {
                throw ParameterError("header \(name) is set by the sandbox itself (see /drop/ for bad framing)")
            }
            headers.add(name, value)
        }
        return headers
    }
}
