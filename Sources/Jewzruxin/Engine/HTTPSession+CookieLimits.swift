extension HTTPSession {
    /// How much a server may put in a session's cookie storage, and how much of it a request sends
    /// back (see ``Configuration/cookieLimits``): the bounds browsers and curl keep, so that no
    /// server can make every later request to it fail by filling the `Cookie` header.
    ///
    /// ```swift
    /// var configuration = HTTPSession.Configuration(.ephemeral)
    /// configuration.cookieLimits.maximumCookiesPerDomain = 180  // as Chrome
    /// let session = HTTPSession(configuration: configuration)
    /// ```
    ///
    /// Beyond these, the session's cookie jar refuses what RFC 6265bis says a user agent ignores,
    /// whatever the limits: a cookie with a control character (but a tab) in its `Set-Cookie`
    /// line; an attribute whose value is over 1,024 bytes is ignored (the cookie is then kept for
    /// its host alone, or for the path of the response, as if the server had not sent it); a
    /// `Secure` cookie set over plain http, and one from plain http that would replace a `Secure`
    /// one; a `Domain` that is a public suffix (`co.uk`, `github.io`), by the system's libpsl where
    /// it can be loaded (on Linux, wherever libcurl is), else only a single-label one (`com`).
    ///
    /// The limits apply to the cookies the session's transports store and send. Where the storage
    /// is shared by several sessions, each keeps its own limits when it stores.
    public struct CookieLimits: Sendable, Hashable {
        /// The most bytes of a cookie's name and value together: a larger cookie is not stored.
        /// 4,096 (RFC 6265bis, browsers, curl).
        public var maximumCookieSize = 4096
        /// The most cookies kept for one domain (a cookie's `Domain`, or its host when it has
        /// none): storing one more evicts that domain's expired cookies first, then those least
        /// recently sent or stored. 50, RFC 6265's least; Chrome keeps 180.
        public var maximumCookiesPerDomain = 50
        /// The most cookies kept in all, evicted the same way. 3,000, as browsers.
        public var maximumCookies = 3000
        /// The most bytes of the `Cookie` header's value a request sends: cookies that would go
        /// beyond it, in the order they are sent (the longest path first), are left out. 8,190,
        /// as curl; a request's own `Cookie` header is sent as it is.
        public var maximumHeaderSize = 8190
        /// The most cookies one request sends, the longest path first. 150, as curl.
        public var maximumCookiesPerRequest = 150

        /// The limits of browsers and curl, as documented on each property.
        public init() {}
    }
}
