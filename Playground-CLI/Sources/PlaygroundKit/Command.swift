import Foundation
import Jewzruxin

/// One playground command, parsed from the words of an input line.
///
/// See ``init(words:)`` for the syntax, and ``CommandHelp`` for what each command does.
enum Command: Sendable, Hashable {
    /// `GET|HEAD|DELETE|POST|PUT|PATCH target [items] [--json]`: send a request.
    case request(method: HTTPMethod, target: String, items: [RequestItem], json: Bool)
    /// `header Name: value`: send a header with every request.
    case setHeader(name: String, value: String)
    /// `header`: list the session headers.
    case listHeaders
    /// `header Name:` or `unheader Name`: stop sending a header.
    case removeHeader(String)
    /// `cookies`: list the cookies the servers set.
    case listCookies
    /// `cookies clear`: forget them.
    case clearCookies
    /// `auth user password`: answer Basic and Digest challenges.
    case setAuth(username: String, password: String)
    /// `auth off`: stop answering challenges.
    case clearAuth
    /// `auth`: say whether credentials are set.
    case showAuth
    /// `base [URL] http://…`, `base [URL] sandbox`, or `base [URL]` alone (`nil`) to print it.
    case base(String?)
    /// `timeout SECONDS`, `timeout off|default`, or `timeout` alone: the idle timeout of requests.
    case timeout(TimeoutChange)
    /// `transport native`, `transport curl`, `transport urlsession`, or `transport` alone (`nil`) to print it.
    case transport(String?)
    /// `headers`: the last response's headers.
    case showResponseHeaders
    /// `text`: the last response's body as text.
    case showText
    /// `json [key.path]`: the last response's body as JSON, or the value at a key path.
    case showJSON(keyPath: String?)
    /// `curl`: the last request as a curl command.
    case showCurl
    /// `metrics`: the last exchange's protocol, addresses, times and sizes.
    case showMetrics
    /// `timing on`, `timing off`, or `timing` alone (`nil`) to print it: a line of timings after
    /// each request.
    case timing(Bool?)
    /// `save FILE`: the last response's body to a file.
    case save(path: String)
    /// `download target FILE`: stream a body to a file, with progress.
    case download(target: String, path: String)
    /// `download --resume`: go on with the last download that failed or was interrupted.
    case resumeDownload
    /// `template TEMPLATE [items]`: expand an RFC 6570 URI template.
    case template(String, items: [RequestItem])
    /// `service FILE`: load an `HTTPService` profile.
    case loadService(path: String)
    /// `call NAME [items] [--json]`: request a resource of the loaded service.
    case call(resource: String, items: [RequestItem], json: Bool)
    /// `help [COMMAND]`.
    case help(String?)
    /// `history`: the lines entered so far.
    case history
    /// `quit` or `exit`.
    case quit

    /// What a `timeout` command does.
    enum TimeoutChange: Sendable, Hashable {
        /// `timeout`: print it.
        case show
        /// `timeout SECONDS`: wait at most this long for any progress of a request.
        case set(TimeInterval)
        /// `timeout off` or `timeout default`: back to the playground's default.
        case reset
    }

    /// The longest `timeout` accepted, in seconds: a day.
    static let longestTimeout: TimeInterval = 86_400

    /// The methods that send their `key=value` items as query parameters.
    static let bodylessMethods: Set<HTTPMethod> = [.get, .head, .delete]
    /// The methods that send their `key=value` items as a form (or JSON) body.
    static let bodyMethods: Set<HTTPMethod> = [.post, .put, .patch]
}
