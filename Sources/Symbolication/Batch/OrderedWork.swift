#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Platform

/// Runs `work(i)` for `0..<count` on several threads and hands the results to the caller in
/// index order, each as soon as it and all before it are done: reports are printed as they
/// finish, in input order.
///
/// Workers run ahead of the caller by one item each, and by up to eight each while the
/// results waiting for the caller weigh (`weight`: a report's output bytes) less than
/// `budget` — so a slow early report does not make the others pile up in memory: while it
/// runs, the finished results waiting for it stay under the budget (or one per other worker),
/// and the memory of a batch is that of its largest reports in flight, not of the whole
/// batch. Running ahead by more than one keeps workers from waiting on the caller and on each
/// other at every item (a condition wait and wake per report). When the caller stops (the
/// reader of the output went away), no new item is started; items already running finish
/// before `forEachInOrder` returns, so none is left half done.
final class OrderedWork<Result>: @unchecked Sendable {
    private let count: Int
    private let workers: Int
    private let work: (Int) -> Result
    private let weight: (Result) -> Int
    private let budget: Int
    private let condition = Condition()
    private var results: [Result?]
    private var weights: [Int]
    private var next = 0
    private var consumed = 0
    private var stopped = false
    /// The weight of the results finished and not yet handed to the caller.
    private var waiting = 0
    private let window: Int

    /// `work(i)` for `0..<count` on `workers` threads; `weight` of a result counts against
    /// `budget` while it waits for the caller.
    init(count: Int, workers: Int, weight: @escaping (Result) -> Int = { _ in 0 }, budget: Int = 0,
         work: @escaping (Int) -> Result) {
        self.count = count
        self.workers = max(1, min(workers, count))
        self.work = work
        self.weight = weight
        self.budget = budget
        self.results = Array(repeating: nil, count: count)
        self.weights = Array(repeating: 0, count: count)
        self.window = self.workers * 8
    }

    /// Whether a worker may start item `next` now.
    private var mayStart: Bool {
        next < consumed + workers || (next < consumed + window && waiting < budget)
    }

    /// Calls `body` with each index and result in order; `body` returns false to stop.
    func forEachInOrder(_ body: (Int, Result) -> Bool) {
        guard count > 0 else { return }
        if workers == 1 {
            for i in 0..<count where !body(i, work(i)) { return }
            return
        }
        // Threads of their own: the workers wait on the condition, which would stall
        // Dispatch's pool (see ``WorkerThread``). Where none can be made, Dispatch runs them.
        let group = DispatchGroup()
        var threads: [WorkerThread] = []
        for _ in 0..<workers {
            if let thread = WorkerThread({ [self] in runWorker() }) {
                threads.append(thread)
            } else {
                DispatchQueue.global().async(group: group) { [self] in runWorker() }
            }
        }
        for i in 0..<count {
            condition.lock()
            while results[i] == nil { condition.wait() }
            let result = results[i]!
            results[i] = nil
            waiting -= weights[i]
            consumed = i + 1
            condition.broadcast()
            condition.unlock()
            if !body(i, result) {
                condition.lock()
                stopped = true
                condition.broadcast()
                condition.unlock()
                break
            }
        }
        for thread in threads { thread.join() }
        group.wait()
    }

    private func runWorker() {
        while true {
            condition.lock()
            while !stopped && next < count && !mayStart { condition.wait() }
            guard !stopped, next < count else {
                condition.unlock()
                return
            }
            let i = next
            next += 1
            condition.unlock()
            let result = work(i)
            let heavy = weight(result)
            condition.lock()
            results[i] = result
            weights[i] = heavy
            waiting += heavy
            condition.broadcast()
            condition.unlock()
        }
    }
}
