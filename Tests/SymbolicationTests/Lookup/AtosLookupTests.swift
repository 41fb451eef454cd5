@testable import Symbolication
import DebugInfo
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

/// A batch of addresses is answered as the same addresses one by one, byte for byte, though
/// it is looked up in address order: over real debug files from clang, gcc and dsymutil, with
/// and without inlined frames and a load address, addresses repeated, unsorted, and outside
/// every function.
final class AtosBatchTests: XCTestCase {
    func testABatchIsAnsweredAsItsAddressesOneByOne() throws {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        var random = SplitMix64(seed: 0xA705_BA7C)
        var compared = 0
        for object in ["macho/App-arm64.dSYM", "macho/App-arm64-dwarf5.dSYM", "elf/app-gcc-dwarf4", "elf/app-clang-dwarf5"] {
            let path = fixtures.appendingPathComponent(object).path
            for (inlined, loaded) in [(false, false), (true, false), (true, true)] {
                let options = AtosLookup.Options(objectPath: path, loadAddress: loaded ? 0x7f00_0000_0000 : nil,
                                                 inlinedFrames: inlined)
                let lookup = try AtosLookup(options: options)
                let base = loaded ? 0x7f00_0000_0000 : try textAddress(path)
                // Spread over the code and past it, some below it, each fifth one a repeat.
                var addresses: [UInt64] = []
                for k in 0..<3000 {
                    if k % 5 == 4, let earlier = addresses.randomElement(using: &random) {
                        addresses.append(earlier)
                    } else {
                        addresses.append(base &+ random.next() % 0x2_0000 &- 0x100)
                    }
                }
                var oneByOne: [UInt8] = []
                for address in addresses { lookup.appendLines(for: address, to: &oneByOne) }
                var batch: [UInt8] = Array("kept\n".utf8)
                lookup.appendLines(for: addresses, to: &batch)
                XCTAssertEqual(batch, Array("kept\n".utf8) + oneByOne, "\(object), inlined \(inlined), loaded \(loaded)")
                let named = String(decoding: oneByOne, as: UTF8.self).split(separator: "\n").filter { $0.contains(" (in ") }
                XCTAssertGreaterThan(named.count, 100, "fixture problem: few addresses of \(object) are in functions")
                compared += addresses.count
            }
            // Nothing, and one address, through the batch too.
            let lookup = try AtosLookup(options: .init(objectPath: path))
            var out: [UInt8] = []
            lookup.appendLines(for: [], to: &out)
            XCTAssertEqual(out, [])
            var one: [UInt8] = []
            lookup.appendLines(for: 0x1234, to: &one)
            lookup.appendLines(for: [0x1234], to: &out)
            XCTAssertEqual(out, one)
        }
        XCTAssertEqual(compared, 36_000)
    }

    /// The lowest address of the file's code: `__TEXT`'s or the first executable segment's.
    private func textAddress(_ path: String) throws -> UInt64 {
        var file = path
        if DebugFileLocator.isBundle(path), let first = DebugFileLocator.bundleFiles(path).first { file = first }
        let slice = try XCTUnwrap(DebugFile.identify(path: file).first)
        return slice.textVMAddress
    }
}
