@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

// What the tests of the index cache share, those of DebugInfoTests and those of IntegrationTests
// (over every fixture, the corpus and glibc's debug file): the addresses to ask an index about,
// the section table of an index file, and two indexes compared answer for answer.
// (`@testable`: the index's layout is internal to DebugInfo; test builds compile it for testing.)

public enum IndexSamples {
    /// Addresses to ask about: every symbol's start and a few bytes past it, random ones in
    /// the code and around it, and some no table knows.
    public static func sample(_ file: DebugFile, count: Int) throws -> [UInt64] {
        if file.format == .dyldCache {
            // An image of a dyld shared cache: addresses over its __TEXT and just outside it.
            let cache = try DyldSharedCache.opened(path: file.path)
            let image = cache.images[try XCTUnwrap(cache.imageIndex(uuid: file.identifier ?? ""))]
            var generator = SplitMix64(seed: image.textAddress)
            var addresses: [UInt64] = [0, UInt64.max, image.textAddress, image.textAddress &- 1, image.textAddress + image.textSize]
            while addresses.count < count { addresses.append(image.textAddress + generator.next() % max(image.textSize, 1)) }
            return addresses
        }
        let mapped = try MappedFile(path: file.path)
        let layout = try ObjectLayout(file, in: mapped)
        var addresses: [UInt64] = [0, 1, UInt64.max, UInt64.max - 1, file.textVMAddress]
        // Seeded by the file's identity, so every run samples the same addresses.
        let seed = (file.identifier ?? file.path).utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        var generator = SplitMix64(seed: seed ^ UInt64(file.sliceOffset))
        let symbols = SymbolTable(layout, of: file, in: mapped).symbols
        let step = max(1, symbols.count / max(1, count / 3))
        for symbol in stride(from: 0, to: symbols.count, by: step).map({ symbols[$0] }) {
            addresses += [symbol.address, symbol.address + 1, symbol.address + 7, symbol.address &- 1]
        }
        if let (start, size) = layout.codeSection, size > 0 {
            addresses += [start + size, start + size + 100, start &- 16]
            while addresses.count < count { addresses.append(start + generator.next() % size) }
        }
        return addresses
    }

    /// The section table of an index file: kind, offset and length in bytes.
    public static func sections(of bytes: [UInt8]) -> [(kind: UInt32, offset: Int, length: Int, entry: Int)] {
        bytes.withUnsafeBytes { raw in
            let count = Int(raw.load(fromByteOffset: 32, as: UInt32.self))
            return (0..<count).map { s in
                let at = IndexCacheFormat.fixedHeaderSize + s * IndexCacheFormat.sectionEntrySize
                let kind = raw.load(fromByteOffset: at, as: UInt32.self)
                let size = Int(raw.load(fromByteOffset: at + 4, as: UInt32.self))
                let offset = Int(raw.load(fromByteOffset: at + 8, as: UInt64.self))
                let count = Int(raw.load(fromByteOffset: at + 16, as: UInt64.self))
                return (kind, offset, size * count, at)
            }
        }
    }
}

/// Asserts that two indexes answer every question alike.
public func assertSameAnswers(_ stored: SymbolIndex, _ built: SymbolIndex, _ addresses: [UInt64],
                              _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
    var inlined = 0, mismatches = 0
    for (n, address) in addresses.enumerated() {
        let want = built.lookup(address, demangle: false)
        let got = stored.lookup(address, demangle: false)
        if got != want, mismatches < 5 {
            XCTFail("\(label) 0x\(String(address, radix: 16)): stored \(got), built \(want)", file: file, line: line)
        }
        if got != want { mismatches += 1 }
        if want.count > 1 { inlined += 1 }
        if n % 7 == 0 {
            XCTAssertEqual(stored.lookup(address), built.lookup(address), label, file: file, line: line)
            XCTAssertEqual(stored.symbolName(startingAt: address), built.symbolName(startingAt: address), label, file: file, line: line)
        }
    }
    XCTAssertEqual(stored.problem, built.problem, label, file: file, line: line)
    return inlined
}

/// The warnings a store gives, from any thread.
public final class Warnings: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []

    public init() {}

    public var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    public func add(_ line: String) {
        lock.lock()
        collected.append(line)
        lock.unlock()
    }
}
