// A Swift program that traps in a generic function called through a closure, for the
// runtime's "Current stack trace:" (SWIFT_BACKTRACE=enable=no): every frame of this program
// is printed as `<unavailable> + OFFSET`.
struct Inventory<Item> {
    var items: [Item]

    @inline(never)
    func item(at position: Int) -> Item {
        items[position]
    }
}

@inline(never)
func total(_ inventory: Inventory<Int>, positions: [Int]) -> Int {
    positions.map { inventory.item(at: $0) }.reduce(0, +)
}

let inventory = Inventory(items: [3, 5, 8])
print(total(inventory, positions: [0, 1, CommandLine.arguments.count + 4]))
