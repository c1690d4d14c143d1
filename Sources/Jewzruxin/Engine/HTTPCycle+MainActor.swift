import Foundation

/// Where handlers isolated to the main actor run: the main queue.
///
/// Pass ``mainActor`` where a handler's queue goes, and the handler is a `@MainActor` closure:
/// in a `@MainActor` type (a view model, a controller) it sets the type's properties directly,
/// in Swift 6 mode.
///
/// ```swift
/// @MainActor final class StoreList {
///     var status = ""
///     func load() throws {
///         try HTTPCycle.get("https://api.example.com/stores", on: .mainActor) { cycle, error in
///             self.status = error == nil ? "loaded" : "failed"
///         }
///     }
/// }
/// ```
///
/// The handler runs on the main queue whatever the session's delegate queue is, after the calls
/// the cycle made there before it. A program must let the main queue run (an app does;
/// a command-line tool calls `dispatchMain()` or awaits on the main actor).
public struct MainActorQueue: Sendable {
    /// The main queue, for handlers isolated to the main actor.
    public static let mainActor = MainActorQueue()
}

extension HTTPCycle {
    /// A completion handler isolated to the main actor: gets the cycle and `nil`, or the error the
    /// run ended with.
    public typealias MainActorCompletionHandler = @MainActor (HTTPCycle, (any Error)?) -> Void

    /// Sends the request; `completionHandler` runs on the main actor when the run ends.
    ///
    /// ```swift
    /// cycle.start(.mainActor) { cycle, error in self.label = cycle.response.text ?? "" }
    /// ```
    ///
    /// As ``start(_:)``, with the handler on the main queue whatever the cycle's handler queue.
    /// - Parameters:
    ///   - queue: ``MainActorQueue/mainActor``.
    ///   - completionHandler: Gets the cycle and `nil`, or the error the run ended with.
    public func start(_ queue: MainActorQueue, _ completionHandler: @escaping MainActorCompletionHandler) {
        // Delivered on the main queue (``Delivery/mainActor``), where the main actor runs.
        begin(Completion(delivery: .mainActor) { cycle, error in
            MainActor.assumeIsolated { completionHandler(cycle, error) }
        })
    }

    /// Sends a GET request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``,
    /// with `on:` ``MainActorQueue/mainActor``.
    @discardableResult
    public static func get(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.get, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a HEAD request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:on:completionHandler:)``.
    @discardableResult
    public static func head(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.head, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a DELETE request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``get(_:parameters:requestProcessors:responseProcessors:authentications:solicited:session:on:completionHandler:)``.
    @discardableResult
    public static func delete(
        _ urlString: String, parameters: [String: any Sendable]? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.delete, urlString, Options(parameters, nil, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a POST request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``post(_:parameters:requestObject:requestProcessors:responseProcessors:authentications:solicited:session:completionHandler:)``,
    /// with `on:` ``MainActorQueue/mainActor``.
    @discardableResult
    public static func post(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.post, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a PUT request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``post(_:parameters:requestObject:requestProcessors:responseProcessors:authentications:solicited:session:on:completionHandler:)``.
    @discardableResult
    public static func put(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.put, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    /// Sends a PATCH request; `completionHandler` runs on the main actor when the cycle ends.
    ///
    /// The arguments are those of ``post(_:parameters:requestObject:requestProcessors:responseProcessors:authentications:solicited:session:on:completionHandler:)``.
    @discardableResult
    public static func patch(
        _ urlString: String, parameters: [String: any Sendable]? = nil, requestObject: (any Sendable)? = nil,
        requestProcessors: [HTTPProcessor]? = nil, responseProcessors: [HTTPProcessor]? = nil,
        authentications: [any HTTPAuthenticator]? = nil, solicited: Bool = false, session: HTTPSession = .default,
        on queue: MainActorQueue, completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        try startOnMainActor(.patch, urlString, Options(parameters, requestObject, requestProcessors, responseProcessors, authentications, solicited, session), completionHandler)
    }

    private static func startOnMainActor(
        _ method: HTTPMethod, _ urlString: String, _ options: Options, _ completionHandler: @escaping MainActorCompletionHandler
    ) throws -> HTTPCycle {
        let cycle = try make(method, urlString, options)
        cycle.start(.mainActor, completionHandler)
        return cycle
    }
}
