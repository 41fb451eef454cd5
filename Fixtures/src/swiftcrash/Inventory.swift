// Generic code and closures between the entry point and the crash.

struct Shelf<Item> {
    var items: [Item]

    @inline(never)
    func weigh(_ weight: (Item) -> Int) -> Int {
        var total = 0
        for item in items { total += weight(item) }
        return total
    }
}

@inline(__always)
func element(_ values: [Int], _ index: Int) -> Int {
    values[index]
}

@inline(never)
func lastButOne(_ values: [Int]) -> Int {
    element(values, values.count + 1)
}

@inline(never)
func crashInGenericCode() {
    let shelf = Shelf(items: [[1, 2], [3, 4]])
    let total = shelf.weigh { pair in lastButOne(pair) }
    print(total)
}
