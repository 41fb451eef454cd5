import Platform

/// Demangled names by a key of the caller's (a string's offset in its table), shared by the
/// threads of a run: a batch of reports meets the same functions over and over, and
/// demangling a C++ or Swift name costs more than the rest of its lookup. Sixteen stripes,
/// each behind its own lock, so threads seldom wait on each other.
final class NameCache: Sendable {
    private final class Stripe: @unchecked Sendable {
        let lock = Lock()
        var names: [Key: String] = [:]
    }

    private let stripes = (0..<16).map { _ in Stripe() }

    /// A name is stored per style: one report asks for full names, another for the Swift
    /// runtime's simplified ones, of the same symbol.
    private struct Key: Hashable {
        var key: UInt64
        var style: NameStyle
    }

    /// The name stored under `key` in `style`, made by `make` the first time.
    func demangled(_ key: UInt64, _ style: NameStyle = .full, _ make: () -> String) -> String {
        let stripe = stripes[Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 60)]
        let stored = Key(key: key, style: style)
        if let known = stripe.lock.withLock({ stripe.names[stored] }) { return known }
        let name = make()
        stripe.lock.withLock { stripe.names[stored] = name }
        return name
    }
}
