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
/// Workers run at most `window` items ahead of the caller — one per worker — so a slow
/// early report does not make the others pile up in memory: while it runs, at most one
/// finished result per other worker waits for it, and the memory of a batch is that of its
/// largest reports in flight, not of the whole window. When the caller stops (the reader of the output went
/// away), no new item is started; items already running finish before `forEachInOrder`
/// returns, so none is left half done.
final class OrderedWork<Result>: @unchecked Sendable {
    private let count: Int
    private let workers: Int
    private let work: (Int) -> Result
    private let condition = Condition()
    private var results: [Result?]
    private var next = 0
    private var consumed = 0
    private var stopped = false
    private let window: Int

    init(count: Int, workers: Int, work: @escaping (Int) -> Result) {
        self.count = count
        self.workers = max(1, min(workers, count))
        self.work = work
        self.results = Array(repeating: nil, count: count)
        self.window = self.workers
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
            while !stopped && next < count && next >= consumed + window { condition.wait() }
            guard !stopped, next < count else {
                condition.unlock()
                return
            }
            let i = next
            next += 1
            condition.unlock()
            let result = work(i)
            condition.lock()
            results[i] = result
            condition.broadcast()
            condition.unlock()
        }
    }
}
