import Foundation

/// Decides from a response's status and `Content-Type` whether to take its body, and discards it.
///
/// The base of every handler the library ships (hotpotato's `BBHTTPSelectiveDiscarder`): subclasses
/// call `super.prepare(for:)` to apply the same rules before doing their own work.
///
/// - ``acceptableResponses``: the statuses taken; 200, 201, 202 and 203 by default; empty takes any.
/// - ``acceptableContentTypes``: the media types taken, compared without parameters and ignoring
///   case; empty (the default) takes any. A pattern may use `*` for the type or the subtype
///   (`image/*`, `*/*`) or for the part of the subtype before a suffix (`application/*+json`).
///   When a list is set, a response without a `Content-Type` is refused.
///
/// A refused response ends the cycle with a ``ContentHandlerError`` that keeps the status, headers
/// and body. Used alone, the discarder keeps no content and no state of its own beyond the response
/// it last saw (kept behind a lock), so ``shared`` serves any number of cycles at once.
///
/// Its settings are behind a lock: changing them while cycles use the handler (``shared`` serves
/// many) is safe, and applies to the next response each cycle prepares for.
// @unchecked: open for subclassing; its own state (settings, the response) is behind `state`, the
// class-level defaults behind `settings`; the engine makes a subclass's calls one at a time (see
// ``ContentHandler``).
open class SelectiveDiscarder: ContentHandler, @unchecked Sendable {
    /// A discarder with the default settings, for cycles whose body is of no interest.
    public static let shared = SelectiveDiscarder()

    /// The statuses whose body is taken; empty takes any.
    public var acceptableResponses: Set<Int> {
        get { state.withLock { $0.acceptableResponses } }
        set { state.withLock { $0.acceptableResponses = newValue } }
    }
    /// The media types whose body is taken (`application/json`, `image/*`); empty takes any.
    public var acceptableContentTypes: [String] {
        get { state.withLock { $0.acceptableContentTypes } }
        set { state.withLock { $0.acceptableContentTypes = newValue } }
    }
    /// The response being handled, set by ``prepare(for:)``; its data is empty.
    public var response: HTTPResponse? { state.withLock { $0.response } }

    private struct State {
        var acceptableResponses: Set<Int>
        var acceptableContentTypes: [String]
        var response: HTTPResponse?
    }

    private let state: Locked<State>

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - acceptableResponses: The statuses taken; `nil` uses the class's
    ///     ``defaultAcceptableResponses``.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class's
    ///     ``defaultAcceptableContentTypes``.
    public init(acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil) {
        self.state = Locked(State(
            acceptableResponses: acceptableResponses ?? Self.defaultAcceptableResponses,
            acceptableContentTypes: acceptableContentTypes ?? Self.defaultAcceptableContentTypes))
    }

    // MARK: Class-level defaults

    /// Class-level settings by class; a class without one inherits its nearest ancestor's.
    private static let settings = Locked<[ObjectIdentifier: Setting]>([:])

    private struct Setting {
        let type: AnyClass
        /// Whether a class is this one or one of its subclasses.
        let covers: @Sendable (AnyClass) -> Bool
        var responses: Set<Int>?
        var contentTypes: [String]?
    }

    /// The statuses new handlers of this class take: 200, 201, 202 and 203 unless set.
    ///
    /// Setting it on a class affects handlers created afterwards of that class and of its subclasses
    /// that have no setting of their own.
    public class var defaultAcceptableResponses: Set<Int> {
        get { inheritedSetting(\.responses) ?? [200, 201, 202, 203] }
        set { updateSetting { $0.responses = newValue } }
    }

    /// The media types new handlers of this class take; empty takes any.
    ///
    /// Until it is set, a class takes its ``initialAcceptableContentTypes``. Setting it on a class
    /// affects handlers created afterwards of that class and of its subclasses that have no setting
    /// of their own.
    public class var defaultAcceptableContentTypes: [String] {
        get { inheritedSetting(\.contentTypes) ?? initialAcceptableContentTypes }
        set { updateSetting { $0.contentTypes = newValue } }
    }

    /// The media types a class takes while ``defaultAcceptableContentTypes`` is not set: any
    /// (an empty list); ``JSONParser`` and ``ImageDecoder`` name their own.
    open class var initialAcceptableContentTypes: [String] { [] }

    /// Forgets every class-level setting, of this class and all others.
    public static func resetDefaults() {
        settings.withLock { $0.removeAll() }
    }

    private class func updateSetting(_ update: (inout Setting) -> Void) {
        // `as Any`: a bare `AnyClass is Self.Type` check is always false on Linux (Swift 6.3).
        let covers: @Sendable (AnyClass) -> Bool = { ($0 as Any) is Self.Type }
        settings.withLock { table in
            update(&table[ObjectIdentifier(self), default: Setting(type: self, covers: covers)])
        }
    }

    private class func inheritedSetting(_ field: KeyPath<Setting, Set<Int>?> & Sendable) -> Set<Int>? {
        settings.withLock { nearest(in: $0, having: field)?[keyPath: field] }
    }

    private class func inheritedSetting(_ field: KeyPath<Setting, [String]?> & Sendable) -> [String]? {
        settings.withLock { nearest(in: $0, having: field)?[keyPath: field] }
    }

    /// The setting of the nearest class, this one or an ancestor, that has `field` set.
    private class func nearest<Value>(in table: [ObjectIdentifier: Setting], having field: KeyPath<Setting, Value?>) -> Setting? {
        let candidates = table.values.filter { $0[keyPath: field] != nil && $0.covers(self) }
        // The nearest is the candidate that every other candidate covers.
        return candidates.first { candidate in candidates.allSatisfy { $0.covers(candidate.type) } }
    }

    // MARK: ContentHandler

    /// Refuses the response unless its status and type are acceptable.
    ///
    /// - Throws: ``ContentHandlerError`` with ``ContentHandlerError/Code/unacceptableStatus`` or
    ///   ``ContentHandlerError/Code/unacceptableContentType``.
    open func prepare(for response: HTTPResponse) throws {
        let (acceptableResponses, acceptableContentTypes) = state.withLock { s in
            s.response = response
            return (s.acceptableResponses, s.acceptableContentTypes)
        }
        let status = response.statusCode ?? 0
        guard acceptableResponses.isEmpty || acceptableResponses.contains(status) else {
            throw ContentHandlerError(
                .unacceptableStatus, reason: "status \(status) is not among the acceptable responses "
                    + acceptableResponses.sorted().map(String.init).joined(separator: ", "),
                response: response)
        }
        guard !acceptableContentTypes.isEmpty else { return }
        let header = response.value(forHTTPHeaderField: "Content-Type")
        guard let type = header.flatMap({ MediaType(contentTypeHeader: $0) }) else {
            throw ContentHandlerError(
                .unacceptableContentType,
                reason: header == nil ? "the response has no Content-Type" : "Content-Type \"\(header ?? "")\" is not valid",
                response: response)
        }
        guard acceptableContentTypes.contains(where: { Self.mediaType(type, matches: $0) }) else {
            throw ContentHandlerError(
                .unacceptableContentType, reason: "Content-Type \(type.essence) is not among the acceptable types "
                    + acceptableContentTypes.joined(separator: ", "),
                response: response)
        }
    }

    /// Discards the bytes.
    open func append(_ data: Data) throws {}

    /// No content: `nil`.
    open func parseContent() throws -> (any Sendable)? { nil }

    /// None: the bytes are discarded.
    open var receivedData: Data? { nil }

    /// Forgets the response.
    open func cleanup() {
        state.withLock { $0.response = nil }
    }

    /// Whether `type` matches `pattern`, such as `text/html`, `image/*`, `*/*` or `application/*+json`.
    ///
    /// Compared without parameters and ignoring case.
    public static func mediaType(_ type: MediaType, matches pattern: String) -> Bool {
        let essence = pattern.split(separator: ";", maxSplits: 1).first.map(String.init) ?? pattern
        let parts = essence.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return false }
        let (patternType, patternSubtype) = (parts[0], parts[1])
        guard patternType == "*" || patternType == type.type else { return false }
        if patternSubtype == "*" || patternSubtype == type.subtype { return true }
        if patternSubtype.hasPrefix("*+") {
            return type.subtype.hasSuffix(patternSubtype.dropFirst())
        }
        return false
    }
}
