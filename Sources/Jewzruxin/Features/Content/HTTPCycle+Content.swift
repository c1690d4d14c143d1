import Foundation

extension HTTPCycle {
    /// What receives the response body and makes ``HTTPResponse/content`` from it; `nil` (the
    /// default) keeps the body in memory as ``HTTPResponse/data``, whatever the status and type.
    ///
    /// ```swift
    /// let cycle = HTTPCycle(requestURL: url)
    /// cycle.contentHandler = JSONParser()
    /// try await cycle.start()
    /// let zip = (cycle.response.content as? JSON)?["store.address.zip"]
    /// ```
    ///
    /// A handler with acceptance rules (every one the library ships has them: 200–203 by default)
    /// ends the cycle with a ``ContentHandlerError`` when the response doesn't meet them; a status
    /// the session treats as a failure still ends it with ``HTTPError/statusCodeSeemsToHaveErred(_:)``.
    /// ``HTTPResponse/data`` holds the body when the handler is an ``Accumulator``. Ignored while a
    /// ``downloadFileHandler`` is set. Changes apply to the next attempt.
    public var contentHandler: (any ContentHandler)? {
        get { locked.withLock { $0.contentHandler } }
        set { locked.withLock { $0.contentHandler = newValue } }
    }
}
