// The README's first screen, as the program it is: `swift run quickstart` runs it and prints what
// its comments say. The README test checks the two agree word for word, and runs it.
// README example begin
import Foundation
import Jewzruxin
import JewzruxinSandbox

// The examples' server: a real HTTP/1.1 server on 127.0.0.1, on a free port, in this process.
let sandbox = try Sandbox.start()
defer { sandbox.stop() }
let base = sandbox.baseURL.absoluteString

// GET: await the finished cycle, its response.
let hello = try await HTTPCycle.get(base + "/hello/")
print(hello.response.statusCode ?? 0, hello.response.text ?? "") // 200 Hello World

// Decode JSON into a Decodable.
struct Store: Decodable { let name: String; let zip: String }
let found = try await HTTPCycle.get(base + "/stores/", parameters: ["zip": "15217"])
let stores = try JSONDecoder().decode([Store].self, from: found.response.data)
print(stores.map(\.name)) // ["Squirrel Hill", "Greenfield"]

// POST a JSON body, with headers: make the cycle, set its request, start it.
struct NewStore: Encodable { let name: String }
let create = HTTPCycle(requestURL: sandbox.baseURL.appendingPathComponent("/inspect/"), requestMethod: .post)
create.request.setValue("application/json", forHTTPHeaderField: "Content-Type")
create.request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
create.request.data = try JSONEncoder().encode(NewStore(name: "Shadyside"))
try await create.start()
struct Received: Decodable { let method: String; let body: String } // what /inspect/ saw
let received = try JSONDecoder().decode(Received.self, from: create.response.data)
print(received.method, received.body) // POST {"name":"Shadyside"}

// Handle an error: a status of 400 or more throws, the response (and its body) kept;
// no response at all (a refused connection, a timeout) throws the transport's error.
do {
    try await HTTPCycle.get(base + "/stores/", parameters: ["zip": "abc"])
} catch HTTPError.statusCodeSeemsToHaveErred(let response) {
    print(response.statusCode ?? 0) // 400
} catch {
    print("no response:", error)
}

// Cancel: cancelling the task cancels its request (cycle.cancel() does it without a task).
let slow = Task { try await HTTPCycle.get(base + "/echo/", parameters: ["delay": "30"]) }
slow.cancel()
do {
    _ = try await slow.value
} catch is CancellationError {
    print("cancelled") // cancelled
}
// README example end
