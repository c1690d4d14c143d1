import Foundation
import JewzruxinPrimitives

// Bearer tokens, per key, for clients that refresh an expired token (an authentication
// interceptor):
//
// | Path              | Parameters        | Answer                                                      |
// |-------------------|-------------------|-------------------------------------------------------------|
// | /bearer/          | key               | 200 `Hello <token>` for `Authorization: Bearer <token>` when |
// |                   |                   | token is the key's current one; otherwise 401 with          |
// |                   |                   | `WWW-Authenticate: Bearer realm="sandbox", error="invalid_token"` |
// | /bearer/refresh/  | key, fail (0),    | issues the key's next token, `<key>.<n>` for refresh n, as  |
// |                   | delay (0 s)       | JSON {"access_token", "token_type": "Bearer", "expires_in"}; |
// |                   |                   | the tokens before it become stale. `fail=1`: 500, no token  |
// |                   |                   | issued (still counted). `delay`: seconds before answering   |
//
// Any method. A key has no valid token until its first refresh, so every token a client
// starts with is stale. `Sandbox.bearerRefreshCount(forKey:)` and
// `Sandbox.bearerRejectionCount(forKey:)` count refreshes and 401s.

extension Sandbox {
    /// How long an issued token says it lasts (`expires_in`), in seconds.
    static let bearerLifetime = 3600

    /// Adds `/bearer/` and `/bearer/refresh/`, sharing the sandbox's ``BearerTokens``.
    static func registerBearerEndpoints(on core: ServerCore) {
        let tokens = core.bearerTokens
        core.addRoute("/bearer") { bearer($0, tokens: tokens) }
        core.addRoute("/bearer/refresh", guarded { request throws(ParameterError) in
            try bearerRefresh(request, tokens: tokens)
        })
    }

    static func bearer(_ request: SandboxRequest, tokens: BearerTokens) -> SandboxResponse {
        let key = request.queryValue("key") ?? ""
        let prefix = "Bearer "
        let token = request.headers["Authorization"].flatMap { header in
            header.hasPrefix(prefix) ? String(header.dropFirst(prefix.count)) : nil
        }
        guard tokens.accepts(token, for: key), let token else {
            return unauthorized(challenge: "Bearer realm=\"\(authRealm)\", error=\"invalid_token\"")
        }
        return .text("Hello \(token)")
    }

    static func bearerRefresh(_ request: SandboxRequest, tokens: BearerTokens) throws(ParameterError) -> SandboxResponse {
        let key = request.queryValue("key") ?? ""
        let fails = try flag(request, "fail")
        let delay = try seconds(request, "delay", default: 0)
        var response: SandboxResponse
        if let token = tokens.refresh(key, failing: fails) {
            let body = "{\"access_token\":\"\(token)\",\"token_type\":\"Bearer\",\"expires_in\":\(bearerLifetime)}"
            response = .json(Data(body.utf8))
        } else {
            response = .error(500, "refresh refused")
        }
        response.delay = delay
        return response
    }
}

/// The current bearer token of each key, and what `/bearer/` endpoints counted.
final class BearerTokens: Sendable {
    private struct Entry {
        var token: String?
        var refreshes = 0
        var rejections = 0
    }

    private let entries = Locked([String: Entry]())

    /// Whether `token` is the current one of `key` (none is when `token` is `nil`); a refusal is
    /// counted.
    func accepts(_ token: String?, for key: String) -> Bool {
        entries.withLock { entries in
            let accepted = token != nil && entries[key]?.token == token
            if !accepted { entries[key, default: Entry()].rejections += 1 }
            return accepted
        }
    }

    /// Counts a refresh of `key` and issues its next token, unless `failing`.
    func refresh(_ key: String, failing: Bool) -> String? {
        entries.withLock { entries in
            var entry = entries[key, default: Entry()]
            entry.refreshes += 1
            if !failing { entry.token = key.isEmpty ? "\(entry.refreshes)" : "\(key).\(entry.refreshes)" }
            entries[key] = entry
            return failing ? nil : entry.token
        }
    }

    func refreshCount(for key: String) -> Int { entries.withLock { $0[key]?.refreshes ?? 0 } }
    func rejectionCount(for key: String) -> Int { entries.withLock { $0[key]?.rejections ?? 0 } }
}
