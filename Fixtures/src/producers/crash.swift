// Swift of the shapes crash reports meet: a class method that traps, a generic, a closure.
final class CRLCrashSwift {
    @inline(never) func crash(_ values: [Int], at index: Int) -> Int {
        return values[index] &+ 1
    }
}

struct Pipeline<Element: Comparable> {
    var items: [Element]
    @inline(never) func largest(by transform: (Element) -> Int) -> Int {
        return items.map(transform).reduce(0) { Swift.max($0, $1) }
    }
}
