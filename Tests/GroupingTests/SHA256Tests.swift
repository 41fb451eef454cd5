import Foundation
import Grouping
import TestSupport
import XCTest

/// The digest against coreutils' `sha256sum`, over lengths around the block and padding
/// boundaries and random bytes.
final class SHA256Tests: XCTestCase {
    func testDigestsAgreeWithSha256sum() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else {
            throw XCTSkip("sha256sum is not installed: the oracle is missing")
        }
        var random = SplitMix64(seed: 12)
        let lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4099]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let result = try runProcess("/usr/bin/sha256sum", [], input: Data(bytes))
            let expected = String(result.stdoutText.prefix(64))
            let got = SHA256.digest(bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            XCTAssertEqual(got, expected, "\(length) random bytes")
        }
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
