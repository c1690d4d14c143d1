import Foundation

/// A client of one HTTP API, described by a profile of named resources (endpoints).
///
/// Subclass it, override ``serviceName`` (and ``defaultSession()`` to share processors,
/// authentications or interceptors, such as an ``AuthenticationInterceptor``), bundle a profile named after the service (`github.plist` or `github.json`),
/// then request resources by name:
///
/// ```swift
/// final class GitHubService: HTTPService, @unchecked Sendable {
///     override class var serviceName: String { "github" }
///     override class func defaultSession() -> HTTPSession {
///         let session = HTTPSession()
///         session.requestProcessors = [HTTPJSONProcessor()]
///         session.responseProcessors = [HTTPJSONProcessor()]
///         return session
///     }
/// }
///
/// let github = try GitHubService()
/// try github.requestResource("search", uriValues: ["q": "jewzruxin", "sort": "updated"]) { cycle, error in
///     …
/// }
/// ```
///
/// See ``Profile`` for the profile's keys and ``verifyProfile(_:)`` to check one.
///
/// The service remembers the cycles it creates with an identifier, **weakly**: such a cycle can be
/// found again (``CycleForResourceOption/reuse``, ``CycleForResourceOption/replace``,
/// ``cycle(withIdentifier:)``) for as long as something keeps it alive — the caller, or the session
/// while the cycle runs. The service never keeps a finished cycle alive on its own, so it leaks
/// nothing however many identifiers are used.
///
/// Thread safety: every member can be used from any thread. A subclass restates
/// `@unchecked Sendable` (the compiler asks for it) and guards any mutable state of its own.
open class HTTPService: @unchecked Sendable {
    // `@unchecked` because the class is open: all mutable state (the profile, base URL included, and
    // the cycles by identifier) is in `state`, guarded by its `Locked`; everything else is `let`.

    /// How ``cycle(forResource:identifier:option:uriValues:requestObject:solicited:)`` treats a
    /// cycle the service already holds under the same identifier.
    public enum CycleForResourceOption: Sendable, Hashable {
        /// Always create a new cycle (the identifier, if any, then names the new one).
        case create
        /// Return the cycle held under the identifier, if any, as it is; else create one.
        case reuse
        /// Cancel the cycle held under the identifier explicitly (its completion handler is not
        /// called), if any, and create a new one.
        case replace
    }

    private struct WeakCycle {
        weak var cycle: HTTPCycle?
    }

    private struct State {
        var profile: Profile
        var cycles: [String: WeakCycle] = [:]
    }

    /// The lock that guards every mutable property of the service.
    private let state: Locked<State>

    /// The session the service's cycles run on.
    public let session: HTTPSession

    // MARK: Overridable

    /// The name of the service, used to find its profile in a bundle (`<serviceName>.plist` or
    /// `<serviceName>.json`).
    ///
    /// Override it. The default is the name of the class (`"GitHubService"` for `GitHubService`).
    open class var serviceName: String { String(describing: self) }

    /// The session a service uses when none is given to its initialiser.
    ///
    /// Override it to share processors, authentications, interceptors or a configuration among the
    /// service's cycles. The default is a new `HTTPSession()`.
    open class func defaultSession() -> HTTPSession { HTTPSession() }

    /// Called right after the service creates a cycle, before it is returned or started.
    ///
    /// Override it to customise the cycles of some resources (other processors, a timeout…). The
    /// default does nothing. It is not called for a cycle that is reused. Don't start `cycle` here.
    ///
    /// It runs outside the service's lock (so it may use the service), after the cycle is registered
    /// under its identifier: a `.reuse` call made at the same moment on another thread may get the
    /// cycle before the hook has returned.
    /// - Parameters:
    ///   - cycle: The new cycle, with its URL, method, request object, identifier and `solicited`
    ///     already set.
    ///   - resourceName: The name of the resource it requests.
    open func cycleDidCreate(_ cycle: HTTPCycle, resourceName: String) {}

    // MARK: Initialisers

    /// Creates a service from a typed profile.
    /// - Parameters:
    ///   - profile: The profile.
    ///   - session: The session to run on; `nil` uses ``defaultSession()``.
    public init(profile: Profile, session: HTTPSession? = nil) {
        self.state = Locked(State(profile: profile))
        self.session = session ?? Self.defaultSession()
    }

    /// Creates a service from a profile in its dictionary form.
    /// - Throws: ``HTTPServiceError/invalidProfile(_:)`` listing every problem of the profile.
    public convenience init(profile: [String: Any], session: HTTPSession? = nil) throws {
        self.init(profile: try Profile(profile), session: session)
    }

    /// Creates a service from a profile file, property list or JSON (by extension, else by content).
    /// - Throws: ``HTTPServiceError/unreadableProfile(_:reason:)`` or
    ///   ``HTTPServiceError/invalidProfile(_:)``.
    public convenience init(profileURL: URL, session: HTTPSession? = nil) throws {
        try self.init(profile: Self.readProfileDictionary(at: profileURL), session: session)
    }

    /// Creates a service from the profile named after ``serviceName`` in a bundle:
    /// `<serviceName>.plist`, else `<serviceName>.json`.
    /// - Parameters:
    ///   - bundle: Where the profile is; the main bundle by default.
    ///   - subdirectory: The folder of the bundle's resources it is in, if any.
    ///   - session: The session to run on; `nil` uses ``defaultSession()``.
    /// - Throws: ``HTTPServiceError/profileNotFound(serviceName:bundlePath:subdirectory:)``, or an
    ///   error of ``init(profileURL:session:)``.
    public convenience init(bundle: Bundle = .main, subdirectory: String? = nil, session: HTTPSession? = nil) throws {
        let name = Self.serviceName
        guard let url = bundle.url(forResource: name, withExtension: "plist", subdirectory: subdirectory)
            ?? bundle.url(forResource: name, withExtension: "json", subdirectory: subdirectory)
        else {
            throw HTTPServiceError.profileNotFound(serviceName: name, bundlePath: bundle.bundlePath, subdirectory: subdirectory)
        }
        try self.init(profileURL: url, session: session)
    }

    // MARK: Profile and base URL

    /// The profile. Setting it (a typed profile is always valid) replaces the resources and the
    /// base URL; cycles already created are not changed. See ``setProfile(_:)`` for the dictionary form.
    public var profile: Profile {
        get { state.withLock { $0.profile } }
        set { state.withLock { $0.profile = newValue } }
    }

    /// Replaces the profile with one in its dictionary form, if it is valid.
    /// - Throws: ``HTTPServiceError/invalidProfile(_:)`` listing every problem; the profile is then
    ///   unchanged.
    public func setProfile(_ profile: [String: Any]) throws {
        let profile = try Profile(profile)
        self.profile = profile
    }

    /// The URL the expanded templates are joined to; switch it at run time to talk to another
    /// environment (`"http://127.0.0.1:8000"`). It starts as the profile's `BaseURL`.
    ///
    /// Joining adds or removes a slash as needed (`http://h/` + `/a` and `http://h` + `a` both give
    /// `http://h/a`), and a template that expands to an absolute URL is used as it is.
    public var baseURL: String {
        get { state.withLock { $0.profile.baseURL } }
        set { state.withLock { $0.profile.baseURL = newValue } }
    }

    /// The cycle the service holds under `identifier`, if it is still alive.
    public func cycle(withIdentifier identifier: String) -> HTTPCycle? {
        state.withLock { $0.cycles[identifier]?.cycle }
    }

    // MARK: Cycles

    /// A cycle for a resource of the profile, not started.
    ///
    /// The resource's template is expanded with `uriValues`, joined to ``baseURL`` and checked like
    /// the URL of a convenience method such as
    /// ``HTTPCycle/get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``.
    /// A new cycle gets the resource's method, `requestObject`, `identifier` and `solicited`, then
    /// ``cycleDidCreate(_:resourceName:)`` is called.
    ///
    /// - Parameters:
    ///   - name: The name of the resource.
    ///   - identifier: A name for the cycle; with an identifier the service remembers the cycle (weakly)
    ///     so that `.reuse` and `.replace` can find it.
    ///   - option: What to do with a cycle already held under `identifier`; without an identifier,
    ///     every option creates a new cycle.
    ///   - uriValues: The values of the template's variables.
    ///   - requestObject: The model the request processors turn into the body.
    ///   - solicited: Whether the user asked for this request directly.
    /// - Returns: The new cycle, or with `.reuse` the existing one, unchanged (its URL, request
    ///   object… are those it was created with).
    /// - Throws: ``HTTPServiceError/unknownResource(_:)``, the `URITemplateError` of an expansion, or
    ///   ``HTTPError/invalidURL(_:reason:)``. Nothing is cancelled when it throws.
    public func cycle(
        forResource name: String, identifier: String? = nil, option: CycleForResourceOption = .create,
        uriValues: [String: any Sendable] = [:], requestObject: (any Sendable)? = nil, solicited: Bool = false
    ) throws -> HTTPCycle {
        try makeCycle(name, identifier, option, uriValues, requestObject, solicited).cycle
    }

    /// Creates (or with `.reuse` finds) a cycle for a resource and starts it.
    ///
    /// The arguments are those of
    /// ``cycle(forResource:identifier:option:uriValues:requestObject:solicited:)``. With `.reuse`:
    /// - a cycle still running is **not** started again and no second request is sent: the running
    ///   cycle's own completion handler reports its outcome, and `completionHandler` is called at
    ///   once (on the cycle's handler queue) with ``HTTPError/alreadyRunning``;
    /// - a finished or cancelled cycle is started again, with `completionHandler`.
    ///
    /// With `.replace`, the cycle held under the identifier is cancelled explicitly (its handler is not
    /// called) and a new one is sent.
    /// - Parameters:
    ///   - name: The resource's name in the profile.
    ///   - identifier: Finds the cycle again for `.reuse` and `.replace`; `nil` for none.
    ///   - option: `.create` (default), `.reuse` or `.replace`.
    ///   - uriValues: The values the resource's URI template is expanded with.
    ///   - requestObject: The model the request processors turn into the body.
    ///   - solicited: Whether the user asked for this request directly.
    ///   - completionHandler: Runs on the cycle's handler queue (the session's delegate queue
    ///     by default) when the run ends.
    /// - Returns: The started (or running) cycle.
    /// - Throws: What ``cycle(forResource:identifier:option:uriValues:requestObject:solicited:)``
    ///   throws, before anything is sent.
    @discardableResult
    public func requestResource(
        _ name: String, identifier: String? = nil, option: CycleForResourceOption = .create,
        uriValues: [String: any Sendable] = [:], requestObject: (any Sendable)? = nil, solicited: Bool = false,
        completionHandler: @escaping HTTPCycle.CompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try makeCycle(name, identifier, option, uriValues, requestObject, solicited).cycle
        // `start` leaves a running cycle alone and gives `completionHandler` `alreadyRunning`.
        cycle.start(completionHandler)
        return cycle
    }

    /// Creates (or with `.reuse` finds) a cycle for a resource, starts it and returns it once it
    /// has finished.
    ///
    /// The arguments and options are those of
    /// ``requestResource(_:identifier:option:uriValues:requestObject:solicited:completionHandler:)``.
    /// With `.reuse` and a cycle still running, nothing is sent and this throws
    /// ``HTTPError/alreadyRunning`` at once (it does not wait for the running cycle). Cancelling the
    /// calling task cancels the cycle; a cycle cancelled any way (`.replace` included) while awaited
    /// throws `CancellationError`.
    /// - Returns: The finished cycle, its ``HTTPCycle/response`` filled.
    /// - Throws: What ``cycle(forResource:identifier:option:uriValues:requestObject:solicited:)``
    ///   throws, the error the run ended with, or `CancellationError`.
    @discardableResult
    public func requestResource(
        _ name: String, identifier: String? = nil, option: CycleForResourceOption = .create,
        uriValues: [String: any Sendable] = [:], requestObject: (any Sendable)? = nil, solicited: Bool = false
    ) async throws -> HTTPCycle {
        try Task.checkCancellation()
        let cycle = try makeCycle(name, identifier, option, uriValues, requestObject, solicited).cycle
        try await cycle.start()
        return cycle
    }

    // MARK: Internals

    /// The URL string of a base URL and an expanded template, joined by the rule `WebService` shares
    /// (see `URLJoining`).
    static func join(_ base: String, _ path: String) -> String {
        URLJoining.join(base, path)
    }

    private func makeCycle(
        _ name: String, _ identifier: String?, _ option: CycleForResourceOption,
        _ uriValues: [String: any Sendable], _ requestObject: (any Sendable)?, _ solicited: Bool
    ) throws -> (cycle: HTTPCycle, created: Bool) {
        let (profile, existing) = state.withLock { s -> (Profile, HTTPCycle?) in
            let existing = identifier.flatMap { s.cycles[$0]?.cycle }
            return (s.profile, existing)
        }
        if option == .reuse, let existing {
            return (existing, false)
        }
        guard let resource = profile.resource(named: name) else { throw HTTPServiceError.unknownResource(name) }
        let expanded = try resource.uriTemplate.expand(uriValues)
        let urlString = Self.join(profile.baseURL, expanded)
        let url = try HTTPCycle.validatedURL(urlString, given: urlString)
        let cycle = HTTPCycle(requestURL: url, requestMethod: resource.method, session: session)
        cycle.configure { settings in
            settings.request.object = requestObject
            settings.identifier = identifier ?? ""
            settings.solicited = solicited
        }
        var toCancel: HTTPCycle?
        var winner: HTTPCycle?
        if let identifier {
            state.withLock { s in
                s.cycles = s.cycles.filter { $0.value.cycle != nil }
                let current = s.cycles[identifier]?.cycle
                if option == .reuse, let current {
                    // Another thread registered one since the lookup above: reuse it.
                    winner = current
                    return
                }
                if option == .replace { toCancel = current }
                s.cycles[identifier] = WeakCycle(cycle: cycle)
            }
        }
        if let winner { return (winner, false) }
        toCancel?.cancel(explicitly: true)
        cycleDidCreate(cycle, resourceName: name)
        return (cycle, true)
    }
}
