import Platform
import XCTest

/// Worker threads run at once, each on a thread of its own: eight workers that each wait
/// until all eight have arrived all finish, which a pool that runs blocked workers in turn
/// could never do.
final class WorkerThreadTests: XCTestCase {
    private final class Barrier: @unchecked Sendable {
        let condition = Condition()
        var arrived = 0
        var finished = 0
    }

    func testWorkersWaitingForEachOtherAllFinish() {
        let barrier = Barrier(), count = 8
        let threads = (0..<count).compactMap { _ in
            WorkerThread {
                barrier.condition.lock()
                barrier.arrived += 1
                barrier.condition.broadcast()
                while barrier.arrived < count { barrier.condition.wait() }
                barrier.finished += 1
                barrier.condition.unlock()
            }
        }
        XCTAssertEqual(threads.count, count)
        for thread in threads { thread.join() }
        XCTAssertEqual(barrier.finished, count)
    }
}
