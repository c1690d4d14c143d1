import Foundation
import Testing
@testable import Jewzruxin
import JewzruxinTestSupport

/// How the engine's handler calls reach a session's delegate queue (`HandlerLine`).
@Suite("Handler line: calls reach their queue in order")
struct HandlerLineTests {
    private func serialQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// Waits until `queue` has run everything added so far.
    private func drained(_ queue: OperationQueue) async {
        await withHandover { (continuation: Handover<Void, Never>) in
            queue.addBarrierBlock { continuation.resume() }
        }
    }

    @Test("calls run on the delegate queue, one at a time, in the order they came")
    func order() async {
        let queue = serialQueue()
        let line = HandlerLine(queue: queue)
        let seen = Locked<(order: [Int], running: Int, overlapped: Bool, offQueue: Int)>(([], 0, false, 0))
        let total = 1_000
        await withHandover { (continuation: Handover<Void, Never>) in
            for index in 0..<total {
                line.enqueue {
                    let onQueue = OperationQueue.current === queue
                    seen.withLock { s in
                        s.running += 1
                        if s.running > 1 { s.overlapped = true }
                        if !onQueue { s.offQueue += 1 }
                        s.order.append(index)
                    }
                    let count = seen.withLock { s in
                        s.running -= 1
                        return s.order.count
                    }
                    if count == total { continuation.resume() }
                }
            }
        }
        let result = seen.withLock { $0 }
        #expect(result.order.count == total)
        #expect(result.order == Array(0..<total), "the calls ran out of order")
        #expect(!result.overlapped)
        #expect(result.offQueue == 0)
    }

    /// A serial queue (1), and a concurrent one (the default count).
    static let queueKinds: [(maximumConcurrency: Int, calls: Int, operations: Int)] = [
        (1, 100, 1), (OperationQueue.defaultMaxConcurrentOperationCount, 3, 3),
    ]

    @Test("calls that come while a serial queue is busy share one operation; on a concurrent queue each is one",
          arguments: 0..<queueKinds.count)
    func waitingCallsShareAnOperation(kind: Int) async {
        let (maximumConcurrency, calls, operations) = Self.queueKinds[kind]
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = maximumConcurrency
        queue.isSuspended = true
        let line = HandlerLine(queue: queue)
        let count = Locked(0)
        for _ in 0..<calls { line.enqueue { count.withLock { $0 += 1 } } }
        #expect(queue.operationCount == operations)
        queue.isSuspended = false
        // The operations that ran the calls were all added before the barrier.
        await drained(queue)
        #expect(count.withLock { $0 } == calls)
    }

    @Test("a call made by a running call waits for the queue's other work: it goes in the next operation")
    func laterCallsGoInTheNextOperation() async {
        let queue = serialQueue()
        let line = HandlerLine(queue: queue)
        let order = Locked<[String]>([])
        line.enqueue {
            order.withLock { $0.append("first") }
            line.enqueue { order.withLock { $0.append("nested") } }
            queue.addOperation { order.withLock { $0.append("other work") } }
        }
        // Twice: the nested call's operation is added when the first operation ends.
        await drained(queue)
        await drained(queue)
        #expect(order.withLock { $0 } == ["first", "other work", "nested"])
    }

    @Test("on the main queue the calls run in order on the main dispatch queue", .usesMainQueue)
    func mainQueue() async {
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
        let line = HandlerLine(queue: OperationQueue.main)
        let seen = Locked<[Int]>([])
        let offMain = Locked(0)
        await withHandover { (continuation: Handover<Void, Never>) in
            for index in 0..<20 {
                line.enqueue {
                    if DispatchQueue.getSpecific(key: key) != "main" { offMain.withLock { $0 += 1 } }
                    if seen.withLock({ $0.append(index); return $0.count }) == 20 { continuation.resume() }
                }
            }
        }
        #expect(seen.withLock { $0 } == Array(0..<20))
        #expect(offMain.withLock { $0 } == 0)
    }
}
