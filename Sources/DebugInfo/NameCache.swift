import Platform

/// Demangled names by a key of the caller's (a string's offset in its table), shared by the
/// threads of a run: a batch of reports meets the same functions over and over, and
/// demangling a C++ or Swift name costs more than the rest of its lookup. Sixteen stripes,
/// each behind its own lock, so threads seldom wait on each other.
final class NameCache: Sendable {
    private final class Stripe: @unchecked Sendable {
        let lock = Lock()
        var names: [UInt64: String] = [:]
    }

    private let stripes = (0..<16).map { _ in Stripe() }

    /// The name stored under `key`, made by `make` the first time.
    func demangled(_ key: UInt64, _ make: () -> String) -> String {
        let stripe = stripes[Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 60)]
        if let known = stripe.lock.withLock({ stripe.names[key] }) { return known }
        let name = make()
        stripe.lock.withLock { stripe.names[key] = name }
        return name
    }
}
