// The README's first example, as the program it is: `swift run quickstart` prints
// "200 dummy" and "Hello World". The README test checks the two agree word for word, and runs it.
// README example begin
import Jewzruxin
import JewzruxinSandbox

// A real HTTP/1.1 server on 127.0.0.1, on a free port, in this process.
let sandbox = try Sandbox.start()
defer { sandbox.stop() }

// Await the response...
let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/echo/", parameters: ["content": "dummy"])
print(cycle.response.statusCode ?? 0, cycle.response.text ?? "") // 200 dummy

// ...or have a handler called with it. Handlers run on the session's delegate queue, the main
// queue unless you give the session another: an app's run loop runs it; this program lets it run
// while it awaits the handler's end.
await withCheckedContinuation { (handled: CheckedContinuation<Void, Never>) in
    HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/hello/")).start { cycle, error in
        print(error.map { "\($0)" } ?? cycle.response.text ?? "") // Hello World
        handled.resume()
    }
}
// README example end
