import Foundation
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

    /// `both` runs its two closures at once when asked, and hands back both answers; asked not
    /// to, it runs them one after the other, the first first.
    func testBothRunsItsTwoClosuresAtOnceOrInTurn() {
        let barrier = Barrier()
        // The first waits for the second: in turn, it would wait in vain (up to its 10 s).
        let (sawSecond, second) = WorkerThread.both(together: true, { () -> Bool in
            for _ in 0..<10_000 {
                barrier.condition.lock()
                let arrived = barrier.arrived
                barrier.condition.unlock()
                if arrived == 1 { return true }
                usleep(1_000)
            }
            return false
        }, { () -> String in
            barrier.condition.lock()
            barrier.arrived = 1
            barrier.condition.broadcast()
            barrier.condition.unlock()
            return "second"
        })
        XCTAssertTrue(sawSecond, "the second closure did not run while the first waited")
        XCTAssertEqual(second, "second")

        let order = Barrier()
        let (a, b) = WorkerThread.both(together: false, { () -> Int in
            order.arrived += 1
            return order.arrived
        }, { () -> Int in
            order.arrived += 10
            return order.arrived
        })
        XCTAssertEqual([a, b], [1, 11])
    }
}
