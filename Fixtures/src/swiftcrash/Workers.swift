// A crash on a thread of the program's own, and one in an async task.
#if canImport(Glibc)
import Glibc
#endif

@inline(never)
func divide(_ total: Int, among workers: Int) -> Int {
    total / workers
}

@inline(never)
func crashOnSecondThread() {
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { _ in
        let workers = Int(getpid() & 0) // 0, unknown to the optimizer
        print(divide(100, among: workers))
        return nil
    }, nil)
    guard started == 0 else { return }
    pthread_join(thread, nil)
}

@inline(never)
func checkedIndex(_ values: [Int], _ offset: Int) async -> Int {
    await Task.yield()
    return values[values.count + offset]
}

@inline(never)
func loadRecord(_ offset: Int) async -> Int {
    let values = [1, 2, 3]
    let found = await checkedIndex(values, offset)
    return found + 1
}

@inline(never)
func crashInTask() async {
    let task = Task { await loadRecord(Int(getpid() & 0) + 2) }
    print(await task.value)
}
