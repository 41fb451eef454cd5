import Foundation
import TestSupport
import XCTest

/// The dyld shared caches Fixtures/build.sh makes (Fixtures/build/dyld).
public enum DyldCacheFixtures {
    /// `Fixtures/build/dyld/RELATIVE`, or a skip that says why it is absent.
    public static func path(_ relative: String) throws -> String {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let path = fixtures.appendingPathComponent("dyld").appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("\(path) is absent: Fixtures/build.sh (make fixtures) builds the dyld caches")
        }
        return path
    }
}
