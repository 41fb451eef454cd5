@testable import Symbolication
import TestSupport
import XCTest

/// The address forms `symbolicate atos` takes, as atos takes them: hexadecimal, with or
/// without `0x`, at most 16 digits.
final class AtosLookupTests: XCTestCase {
    func testAddressesAreHexadecimalWithOrWithoutThePrefix() {
        let accepted: [(String, UInt64)] = [
            ("0x1000", 0x1000), ("0X1000", 0x1000), ("1000", 0x1000), ("0", 0), ("0x0", 0),
            ("DeadBeef", 0xdead_beef), ("0xffffffffffffffff", .max), ("ffffffffffffffff", .max), ("0x0000000000000001", 1),
        ]
        for (text, value) in accepted { XCTAssertEqual(AtosLookup.parseAddress(text), value, text) }
        let refused = ["", "0x", "0X", "x10", "0x1g", "g", "0x10000000000000000", "10000000000000000", "+10", "-1", "0x-1",
                       " 10", "10 ", "0x 10", "１０", "0xé", "0z1"]
        for text in refused { XCTAssertNil(AtosLookup.parseAddress(text), text) }
        // Every 16-digit value round-trips, in either case.
        var generator = SplitMix64(seed: 3)
        for _ in 0..<1000 {
            let value = generator.next()
            let digits = String(value, radix: 16)
            XCTAssertEqual(AtosLookup.parseAddress(digits.uppercased()), value)
            XCTAssertEqual(AtosLookup.parseAddress("0x" + String(repeating: "0", count: 16 - digits.count) + digits), value)
        }
    }
}
