import Foundation
import Testing
@testable import Jewzruxin

/// How the engine's handler calls reach a session's delegate queue (`DelegateDelivery`).
@Suite("Delegate queue delivery")
struct DelegateDeliveryTests {
    private func serialQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// Waits until `queue` has run everything added so far.
    private func drained(_ queue: OperationQueue) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.addBarrierBlock { continuation.resume() }
        }
    }

    @Test("calls run on the delegate queue, one at a time, in the order they came")
    func order() async {
        let queue = serialQueue()
        let delivery = DelegateDelivery(queue: queue)
        let seen = Locked<(order: [Int], running: Int, overlapped: Bool, offQueue: Int)>(([], 0, false, 0))
        let total = 1_000
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<total {
                delivery.enqueue {
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

    @Test("calls that come while the serial queue is busy share one operation")
    func waitingCallsShareAnOperation() async {
        let queue = serialQueue()
        queue.isSuspended = true
        let delivery = DelegateDelivery(queue: queue)
        let count = Locked(0)
        for _ in 0..<100 { delivery.enqueue { count.withLock { $0 += 1 } } }
        #expect(queue.operationCount == 1)
        queue.isSuspended = false
        // One operation ran them all: nothing was added after it, so the barrier follows them.
        await drained(queue)
        #expect(count.withLock { $0 } == 100)
    }

    @Test("a call made by a running call waits for the queue's other work: it goes in the next operation")
    func laterCallsGoInTheNextOperation() async {
        let queue = serialQueue()
        let delivery = DelegateDelivery(queue: queue)
        let order = Locked<[String]>([])
        delivery.enqueue {
            order.withLock { $0.append("first") }
            delivery.enqueue { order.withLock { $0.append("nested") } }
            queue.addOperation { order.withLock { $0.append("other work") } }
        }
        // Twice: the nested call's operation is added when the first operation ends.
        await drained(queue)
        await drained(queue)
        #expect(order.withLock { $0 } == ["first", "other work", "nested"])
    }

    @Test("on a concurrent delegate queue each call is an operation of its own")
    func concurrentQueue() async {
        let queue = OperationQueue()
        queue.isSuspended = true
        let delivery = DelegateDelivery(queue: queue)
        let count = Locked(0)
        for _ in 0..<3 { delivery.enqueue { count.withLock { $0 += 1 } } }
        #expect(queue.operationCount == 3)
        queue.isSuspended = false
        await drained(queue)
        #expect(count.withLock { $0 } == 3)
    }
}
