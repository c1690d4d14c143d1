import Foundation
@testable import Jewzruxin

/// A session on a curl transport with one loop thread, so that its transfers share one multi
/// handle and its idle easy handles.
func oneLoopCurlSession() -> HTTPSession {
    var options = CurlTransport.Options()
    options.maximumLoops = 1
    return HTTPSession(configuration: .ephemeral, delegateQueue: OperationQueue(), transport: .curl(options))
}
