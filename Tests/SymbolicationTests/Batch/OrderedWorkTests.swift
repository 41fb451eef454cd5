import Foundation
import Platform
@testable import Symbolication
import TestSupport
import XCTest

/// `OrderedWork`: results handed over in order, by one thread at a time, whatever the number
/// of workers and however long each item takes; a stop starts nothing new and leaves nothing
/// half done; results waiting to be handed over stay within their budget.
final class OrderedWorkTests: XCTestCase {
    /// State the items and the body share, behind a lock.
    private final class Record: @unchecked Sendable {
        let lock = Lock()
        var started = 0, finished = 0, inBody = 0, overlapping = 0
        var delivered: [Int] = []
    }

    /// Some microseconds of sleep, different for each item.
    private static func pause(_ i: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed &+ UInt64(i))
        usleep(UInt32(random.next() % 300))
    }

    func testResultsComeInOrderOneCallAtATime() {
        for workers in 1...4 {
            for count in [0, 1, 2, 3, 17, 400] {
                let record = Record()
                let work = OrderedWork(count: count, workers: workers) { i -> Int in
                    record.lock.withLock { record.started += 1 }
                    Self.pause(i, seed: UInt64(workers * 1000 + count))
                    record.lock.withLock { record.finished += 1 }
                    return i * 3
                }
                work.forEachInOrder { i, result in
                    record.lock.withLock {
                        if record.inBody > 0 { record.overlapping += 1 }
                        record.inBody += 1
                    }
                    if i % 5 == 0 { usleep(100) }  // a slow write now and then
                    XCTAssertEqual(result, i * 3)
                    record.lock.withLock {
                        record.delivered.append(i)
                        record.inBody -= 1
                    }
                    return true
                }
                let label = "\(workers) workers, \(count) items"
                XCTAssertEqual(record.delivered, Array(0..<count), label)
                XCTAssertEqual(record.overlapping, 0, "body ran on two threads at once: \(label)")
                XCTAssertEqual(record.started, count, label)
                XCTAssertEqual(record.finished, count, label)
            }
        }
    }

    /// A body that returns false at item 20: nothing after it is handed over, nothing new is
    /// started (at most the window ahead of it was), and what was started has finished.
    func testAStopStartsNothingNewAndLeavesNothingHalfDone() {
        for workers in 2...4 {
            let record = Record()
            let work = OrderedWork(count: 10_000, workers: workers) { i -> Int in
                record.lock.withLock { record.started += 1 }
                Self.pause(i, seed: 7)
                record.lock.withLock { record.finished += 1 }
                return i
            }
            work.forEachInOrder { i, _ in
                record.lock.withLock { record.delivered.append(i) }
                return i < 20
            }
            XCTAssertEqual(record.delivered, Array(0...20), "\(workers) workers")
            XCTAssertEqual(record.started, record.finished, "an item was left running: \(workers) workers")
            XCTAssertLessThanOrEqual(record.started, 21 + workers * 8, "items started after the stop: \(workers) workers")
        }
    }

    /// While item 0 takes long, the others finish and wait for it; their weight (1 each) stays
    /// within the budget (4), give or take one item per worker.
    func testResultsWaitingWithinTheirBudget() {
        for workers in 2...4 {
            let record = Record()
            var startedBeforeFirst = 0
            let work = OrderedWork(count: 200, workers: workers, weight: { _ in 1 }, budget: 4) { i -> Int in
                record.lock.withLock { record.started += 1 }
                if i == 0 { usleep(200_000) }
                return i
            }
            work.forEachInOrder { i, _ in
                if i == 0 { startedBeforeFirst = record.lock.withLock { record.started } }
                record.lock.withLock { record.delivered.append(i) }
                return true
            }
            XCTAssertEqual(record.delivered, Array(0..<200))
            XCTAssertGreaterThanOrEqual(startedBeforeFirst, workers, "the others should work while item 0 runs")
            XCTAssertLessThanOrEqual(startedBeforeFirst, 1 + 4 + workers, "\(workers) workers ran past the budget")
        }
    }
}
