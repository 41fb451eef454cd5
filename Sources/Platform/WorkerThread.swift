#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own running one closure, joined with ``join()``.
///
/// For workers that wait on a ``Condition`` for long stretches: a block on Dispatch's global
/// queue that blocks that way holds one of its few threads, and Dispatch does not know to
/// start another, so two such workers could end up taking turns on one thread.
public final class WorkerThread: @unchecked Sendable {
    private var thread: pthread_t?

    /// Starts `body` on a new thread; nil when no thread can be made.
    public init?(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body))
        var made = pthread_t()
        let status = pthread_create(&made, nil, { argument in
            guard let argument else { return nil }
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            box.body()
            return nil
        }, box.toOpaque())
        guard status == 0 else {
            box.release()
            return nil
        }
        thread = made
    }

    /// Waits for the closure to return.
    public func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

extension WorkerThread {
    /// `first()` on this thread and `second()` on a thread of its own at once when `together`
    /// (else, or when no thread can be made, one after the other, `first` first), and both
    /// answers. `second` must not touch what `first` changes.
    public static func both<First, Second>(together: Bool, _ first: () -> First,
                                           _ second: @escaping @Sendable () -> Second) -> (First, Second) {
        let answer = Answer<Second>()
        let worker = together ? WorkerThread { answer.value = second() } : nil
        let firstAnswer = first()
        if let worker { worker.join() } else { answer.value = second() }
        return (firstAnswer, answer.value!)
    }

    /// What the second closure of ``both(together:_:_:)`` gave, read after it is joined.
    private final class Answer<Value>: @unchecked Sendable {
        var value: Value?
    }
}
