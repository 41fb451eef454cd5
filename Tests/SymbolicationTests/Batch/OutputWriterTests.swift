#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Platform
import TestSupport
@testable import Symbolication
import XCTest

/// `OutputWriter.write(spans:of:)` writes what writing each span in turn writes, after what
/// was buffered before it: spans repeated, side by side, empty, more than one `writev` takes.
final class OutputWriterTests: XCTestCase {
    func testSpansAreWrittenInTheirOrderAfterWhatWasBuffered() throws {
        var template = Array("/tmp/output-writer-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let path = String(cString: template)
        defer { unlink(path) }

        var random = SplitMix64(seed: 0x707)
        let text = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var spans: [Range<Int>] = []
        for k in 0..<2_500 {
            let length = k % 7 == 0 ? 0 : Int(random.next() % 200)
            let start = k % 3 == 0 && !spans.isEmpty ? spans[spans.count - 1].upperBound  // side by side
                : Int(random.next() % UInt64(text.count - 200))
            spans.append(start..<min(start + length, text.count))
            if k % 11 == 0 { spans.append(spans[Int(random.next() % UInt64(spans.count))]) }  // again
        }
        var expected = Array("before\n".utf8)
        for span in spans { expected += text[span] }
        expected += Array("after\n".utf8)

        let output = OutputWriter(fd: fd, name: path)
        output.write("before\n")
        text.withUnsafeBufferPointer { output.write(spans: spans, of: $0) }
        output.write("after\n")
        XCTAssertTrue(output.finish(diagnostics: Diagnostics()))
        close(fd)
        XCTAssertTrue(try System.readFile(path) == expected, "the file differs from the spans written in turn")
    }

    func testAWriterThatFailedWritesNoSpans() {
        let output = OutputWriter(fd: -1, name: "nowhere")
        let text = Array("text".utf8)
        text.withUnsafeBufferPointer { output.write(spans: [0..<4], of: $0) }
        XCTAssertTrue(output.closed)
        XCTAssertNotNil(output.failure)
    }
}
