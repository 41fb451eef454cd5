#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Platform

/// Runs `work(i)` for `0..<count` on several threads and hands the results to the caller's
/// `body` in index order, each as soon as it and all before it are done: reports are printed
/// as they finish, in input order.
///
/// The caller's thread is one of the workers. The worker that finishes the result next in
/// order hands it over, and every result after it that is ready, while the others go on
/// working; so nobody waits for a result, and a batch of a thousand small reports costs no
/// thread switch per report (a thread that only hands results over must be woken for each).
/// `body` is called by one thread at a time, in order, each call seeing what the calls
/// before it did.
///
/// Workers run ahead of the results handed over by one item each, and by up to eight each
/// while the results waiting to be handed over weigh (`weight`: a report's output bytes) less
/// than `budget` — so a slow early report does not make the others pile up in memory: while
/// it runs, the finished results waiting for it stay under the budget (or one per other
/// worker), and the memory of a batch is that of its largest reports in flight, not of the
/// whole batch. When `body` returns false (the reader of the output went away), no new item
/// is started and no result is handed over any more; items already running finish before
/// `forEachInOrder` returns, so none is left half done.
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
    /// The weight of the results finished and not yet handed over.
    private var waiting = 0
    private let window: Int
    /// Whether a worker is handing results over (`body` runs on one thread at a time).
    private var delivering = false
    /// How many workers wait for room: the condition is signalled only when there are some.
    private var workersWaiting = 0
    /// The caller's `body`, while `forEachInOrder` runs.
    private var deliver: ((Int, Result) -> Bool)?

    /// `work(i)` for `0..<count` on `workers` threads; `weight` of a result counts against
    /// `budget` while it waits to be handed over.
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
        withoutActuallyEscaping(body) { body in
            deliver = body
            // Threads of their own besides the caller's: the workers wait on the condition,
            // which would stall Dispatch's pool (see ``WorkerThread``). Where none can be
            // made, Dispatch runs them.
            let group = DispatchGroup()
            var threads: [WorkerThread] = []
            for _ in 1..<workers {
                if let thread = WorkerThread({ [self] in runWorker() }) {
                    threads.append(thread)
                } else {
                    DispatchQueue.global().async(group: group) { [self] in runWorker() }
                }
            }
            runWorker()
            for thread in threads { thread.join() }
            group.wait()
            deliver = nil
        }
    }

    private func runWorker() {
        condition.lock()
        while true {
            while !stopped && next < count && !mayStart {
                workersWaiting += 1
                condition.wait()
                workersWaiting -= 1
            }
            guard !stopped, next < count else { break }
            let i = next
            next += 1
            condition.unlock()
            let result = work(i)
            let heavy = weight(result)
            condition.lock()
            results[i] = result
            weights[i] = heavy
            waiting += heavy
            if !delivering { deliverReady() }
        }
        condition.unlock()
    }

    /// Hands over the results ready in order, from `consumed` on; called and returning with
    /// the lock held, which it lets go while `body` runs.
    private func deliverReady() {
        delivering = true
        while !stopped, consumed < count, let result = results[consumed] {
            let i = consumed
            results[i] = nil
            waiting -= weights[i]
            consumed = i + 1
            if workersWaiting > 0 { condition.broadcast() }
            condition.unlock()
            let goOn = deliver!(i, result)
            condition.lock()
            if !goOn {
                stopped = true
                condition.broadcast()
            }
        }
        delivering = false
    }
}
