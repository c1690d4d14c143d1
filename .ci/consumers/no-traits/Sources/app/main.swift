import Jewzruxin
import JewzruxinSandbox

let sandbox = try Sandbox.start()
defer { sandbox.stop() }
let cycle = try await HTTPCycle.get(sandbox.baseURL.absoluteString + "/hello/")
print(cycle.response.statusCode ?? 0, cycle.response.text ?? "")
