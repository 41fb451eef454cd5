// A small Swift program for the DWARF fixtures: generics, protocols, closures, a class
// hierarchy and forced inlining, so the debug information has Swift's shapes.

protocol Shape {
    func area() -> Double
}

struct Rectangle: Shape {
    var width: Double
    var height: Double
    func area() -> Double { width * height }
}

struct Circle: Shape {
    var radius: Double
    func area() -> Double { 3.141592653589793 * square(radius) }
}

@inline(__always)
func square(_ value: Double) -> Double { value * value }

@inline(__always)
func clamp<T: Comparable>(_ value: T, _ low: T, _ high: T) -> T {
    min(max(value, low), high)
}

final class Inventory {
    private(set) var shapes: [any Shape] = []

    @inline(never)
    func add(_ shape: any Shape) {
        shapes.append(shape)
    }

    @inline(never)
    func totalArea(limit: Double) -> Double {
        shapes.reduce(0) { total, shape in clamp(total + shape.area(), 0, limit) }
    }
}

@inline(never)
func summarize<S: Sequence>(_ values: S, scale: Int) -> Int where S.Element == Double {
    values.map { Int($0) * scale }.filter { $0 % 3 != 0 }.reduce(0, +)
}

enum Failure: Error { case empty, tooLarge(Double) }

@inline(never)
func check(_ inventory: Inventory) throws -> Double {
    guard !inventory.shapes.isEmpty else { throw Failure.empty }
    let area = inventory.totalArea(limit: 1e6)
    if area > 1e5 { throw Failure.tooLarge(area) }
    return area
}

let inventory = Inventory()
for i in 0..<Int(CommandLine.arguments.count + 5) {
    inventory.add(i % 2 == 0 ? Rectangle(width: Double(i), height: 2) : Circle(radius: Double(i)))
}
let total = (try? check(inventory)) ?? -1
print(summarize(inventory.shapes.map { $0.area() }, scale: 3), total)
