@testable import CrashReport
import XCTest

/// `FrameList` keeps most frames in a 16-byte record and gives every frame back as it was
/// stored: each kind of frame the parsers make, every value past what a record holds, frames
/// whose names come from another table, changes in place, insertions and removals, and copies
/// that change apart.
final class FrameListTests: XCTestCase {
    /// Frames of every form and flag, some of which fit a record and some of which do not.
    private func sampleFrames(_ text: FrameText) -> [Frame] {
        var frames: [Frame] = []
        func add(_ form: FrameForm, imageName: String? = "App", address: UInt64 = 0x104a34204, image: Int? = 0,
                 line: Int = 10, restStart: Int? = 40, imageOffset: UInt64? = nil, returnAddress: Bool? = nil,
                 inlined: Bool = false, index: Int? = nil, loggedName: String? = nil, unknownAddress: Bool = false) {
            var frame = Frame(index: index ?? frames.count, imageName: imageName, address: address, form: form, image: image,
                              line: line, restStart: restStart, imageOffset: imageOffset, returnAddress: returnAddress,
                              inlined: inlined, text: text)
            if let loggedName { frame.loggedName = loggedName }
            frame.addressUnknown = unknownAddress
            frames.append(frame)
        }
        add(.unsymbolicated(loadAddress: 0x104a30000, offset: 0x4204))
        add(.unsymbolicated(loadAddress: 0x104a30000, offset: 0x9999))                    // load ≠ address − offset
        add(.unsymbolicated(loadAddress: 0, offset: 0x1_0000_0000 + 5), address: 0x1_0000_0005) // offset past 32 bits
        add(.symbol(name: "-[UIApplication _run] + x", offset: 356), imageName: "UIKitCore", image: 3)
        add(.symbolicated(name: "main", offset: 16, file: "main.swift", line: 12))
        add(.symbolicated(name: "inlined()", offset: nil, file: "a.swift", line: 3), inlined: true)
        add(.imageOffset(offset: 0x1234), imageOffset: 0x1234)
        add(.imageOffset(offset: 0x1234), imageOffset: 0x5678)                               // two different offsets
        add(.unknown, imageName: nil, image: nil, imageOffset: 0x35417, returnAddress: false, loggedName: "gsignal")
        add(.unknown, imageOffset: 0x1_0000_0000)                                            // image offset past 32 bits
        add(.unknown, imageName: nil, address: 0, image: nil, restStart: nil, unknownAddress: true)
        add(.addressOnly, imageName: nil, image: nil, restStart: nil, returnAddress: true)
        add(.symbol(name: "f", offset: 2), index: 77)                                        // number not its place
        add(.symbol(name: "g", offset: 2), line: Int(UInt32.max) + 3, restStart: 1 << 20)   // past 32 and 16 bits
        add(.symbol(name: "h", offset: 0), restStart: 0xFFFE)
        add(.unknown, image: Int(Int32.max))
        return frames
    }

    func testEveryFrameComesBackAsItWasStored() {
        let frames = sampleFrames(FrameText())
        let list = FrameList(frames)
        XCTAssertEqual(list.count, frames.count)
        for (k, frame) in frames.enumerated() {
            XCTAssertEqual(list[k], frame, "frame \(k)")
            XCTAssertEqual(list[k].form, frame.form, "frame \(k)")
            XCTAssertEqual(list[k].loggedName, frame.loggedName, "frame \(k)")
            XCTAssertEqual(list[k].imageOffset, frame.imageOffset, "frame \(k)")
            XCTAssertEqual(list[k].index, frame.index, "frame \(k)")
        }
        XCTAssertEqual(Array(list), frames)
    }

    /// The frames a parser makes of plain lines fit records; only the others are kept whole.
    func testCommonFramesFitARecord() {
        XCTAssertEqual(FrameList.recordSize, 16)
        XCTAssertEqual(FrameList.headerSize, 24, "a report of many short backtraces pays it once for each")
        let frames = sampleFrames(FrameText())
        let list = FrameList(frames)
        // Kept whole: load ≠ address − offset, offset past 32 bits, two symbolicated forms, two
        // different offsets, image offset past 32 bits, a line past 32 bits, a place in the
        // line past 8 bits, an image index past 14 bits. A number not its place is kept beside
        // the records.
        XCTAssertEqual(list.framesKeptWhole, 9)
        XCTAssertTrue(list.keepsLines, "the frames are all on one line")
        XCTAssertTrue(list.keepsIndexes, "a frame is numbered 77")
    }

    func testNamesFromAnotherTableAreKept() {
        var list = FrameList()
        for k in 0..<20 {
            // Each frame with a table of its own, as a test or a translator may make them.
            list.append(Frame(index: k, imageName: "Image\(k % 3)", address: UInt64(0x1000 + k), form: .symbol(name: "f\(k)", offset: 4),
                              line: k, restStart: 12, text: FrameText()))
        }
        for k in 0..<20 {
            XCTAssertEqual(list[k].imageName, "Image\(k % 3)")
            XCTAssertEqual(list[k].form, .symbol(name: "f\(k)", offset: 4))
        }
    }

    func testChangesInPlaceAndCopiesApart() {
        let text = FrameText()
        var list = FrameList(sampleFrames(text))
        let copy = list
        for k in list.indices {
            list[k].image = 5
            list[k].returnAddress = true
            list[k].form = .symbol(name: "changed\(k)", offset: UInt64(k))
        }
        // A frame kept whole and changed again takes its old slot, not a new one.
        let kept = list.framesKeptWhole
        list[1].form = .symbolicated(name: "x", offset: 1, file: "f.c", line: 2)
        list[1].form = .symbolicated(name: "y", offset: 1, file: "f.c", line: 2)
        XCTAssertLessThanOrEqual(list.framesKeptWhole, kept + 1)
        for k in list.indices where k != 1 {
            XCTAssertEqual(list[k].image, 5)
            XCTAssertEqual(list[k].returnAddress, true)
            XCTAssertEqual(list[k].form, .symbol(name: "changed\(k)", offset: UInt64(k)))
        }
        XCTAssertEqual(list[1].form, .symbolicated(name: "y", offset: 1, file: "f.c", line: 2))
        XCTAssertEqual(Array(copy), sampleFrames(FrameText()), "the copy is as it was")
    }

    /// A record names its frame's names and image by a 16-bit key of the report's table: past
    /// 65,535 distinct keys, frames are kept whole, each as it was.
    func testFramesPastTheLastKeyAreKeptWhole() {
        let text = FrameText()
        var list = FrameList()
        var frames: [Frame] = []
        for k in 0..<70_000 {
            let frame = Frame(index: k, imageName: "Image\(k % 7)", address: UInt64(0x1000 + k),
                              form: .symbol(name: "f\(k)", offset: 4), image: k % 5, line: k, restStart: 12, text: text)
            frames.append(frame)
            list.append(frame)
        }
        XCTAssertEqual(list.framesKeptWhole, 70_000 - 65_535)
        XCTAssertEqual(Array(list), frames)
        // Keys already held still fit a record.
        list.append(Frame(index: 70_000, imageName: "Image0", address: 7, form: .symbol(name: "f0", offset: 9), image: 0,
                          line: 70_000, restStart: 12, text: text))
        XCTAssertEqual(list.framesKeptWhole, 70_000 - 65_535)
        XCTAssertEqual(list.last?.form, .symbol(name: "f0", offset: 9))
    }

    func testInsertionsAndRemovalsKeepEachFramesNumber() {
        let frames = sampleFrames(FrameText())
        var list = FrameList(frames)
        var expected = frames
        let extra = Frame(index: 3, imageName: "X", address: 9, form: .unknown, line: 1, restStart: 2)
        list.insert(extra, at: 2)
        expected.insert(extra, at: 2)
        XCTAssertEqual(Array(list), expected)
        list.remove(at: 0)
        expected.remove(at: 0)
        list.removeSubrange(3..<6)
        expected.removeSubrange(3..<6)
        XCTAssertEqual(Array(list), expected)
        list.removeAll()
        XCTAssertTrue(list.isEmpty)
        list.append(contentsOf: frames)
        XCTAssertEqual(Array(list), frames)
    }

    func testGrowingAndShrinkingKeepTheFrames() {
        let text = FrameText()
        var list = FrameList()
        var frames: [Frame] = []
        for k in 0..<10_000 {
            let frame = Frame(index: k, imageName: "App", address: UInt64(0x1000 + 4 * k), form: .unsymbolicated(loadAddress: 0x1000, offset: UInt64(4 * k)),
                              image: 0, line: k + 3, restStart: 50, text: text)
            frames.append(frame)
            list.append(frame)
        }
        XCTAssertGreaterThan(list.capacity, list.count)
        list.shrinkToFit()
        XCTAssertLessThanOrEqual(list.capacity, list.count + list.count / 32)
        for count in [2, 3, 20, 21, 40] {
            var short = FrameList(frames.prefix(count))
            short.append(frames[count])
            short.shrinkToFit()
            XCTAssertLessThanOrEqual(short.capacity, count + 2, "a backtrace of \(count + 1) frames keeps no room to grow")
            XCTAssertEqual(Array(short), Array(frames.prefix(count + 1)))
        }
        XCTAssertEqual(list.framesKeptWhole, 0)
        XCTAssertFalse(list.keepsLines, "one frame a line: the first line says them all")
        XCTAssertEqual(Array(list), frames)
        XCTAssertEqual(list, FrameList(frames))
        // A frame off its line makes the list keep every line from then on, each as it was.
        var moved = list
        moved[5_000].line = 3
        frames[5_000].line = 3
        XCTAssertTrue(moved.keepsLines)
        XCTAssertEqual(Array(moved), frames)
        var other = list
        other[9_999].address = 1
        XCTAssertNotEqual(list, other)
    }

    /// A list grows by half of what it asked for, never of what the allocator gave (which
    /// rounds a block up by what it has free, and differs from run to run): its room and what
    /// its report's budget is charged for it are the same in every run. Past 128 KiB a block
    /// is mapped in whole pages, or not, as glibc's threshold moved.
    func testTheRoomIsWhatTheListAskedFor() {
        let text = FrameText(budgetFor: 0)
        var list = FrameList()
        var room = 0
        for k in 0..<400_000 {
            list.append(Frame(index: k, imageName: "App", address: UInt64(0x1000 + 4 * k),
                              form: .unsymbolicated(loadAddress: 0x1000, offset: UInt64(4 * k)), image: 0, line: k, restStart: 50, text: text))
            if list.capacity != room {
                XCTAssertEqual(list.capacity, Swift.max(16, room + room / 2), "after \(k + 1) frames")
                room = list.capacity
            }
        }
        XCTAssertEqual(text.charged, room * FrameList.recordSize + 64)
        // Numbers that are not their places, kept beside the records: charged by a room that doubles.
        let numbered = FrameText(budgetFor: 0)
        var zeros = FrameList()
        for k in 0..<100_000 {
            zeros.append(Frame(index: 0, imageName: "App", address: UInt64(0x1000 + 4 * k),
                               form: .unsymbolicated(loadAddress: 0x1000, offset: UInt64(4 * k)), image: 0, line: k, restStart: 50, text: numbered))
        }
        var indexRoom = 2
        while indexRoom < 100_000 { indexRoom = Swift.max(16, 2 * indexRoom) }
        XCTAssertEqual(numbered.charged, zeros.capacity * FrameList.recordSize + 64 + indexRoom * 4)
    }

    /// The frames of plain classic and sanitizer lines, as the parsers make them, all fit records.
    func testParsedFramesOfPlainLinesFitRecords() throws {
        let classic = (0..<3).map { t in
            "Thread \(t):\n" + (0..<12).map { "\($0)   App   0x\(String(0x104a34000 + $0 * 4, radix: 16)) 0x104a30000 + \(16384 + $0 * 4)\n" }.joined()
                + "12  UIKitCore   0x00000001a8f428d4 -[UIApplication _run] + 356\n\n"
        }.joined() + "Binary Images:\n0x104a30000 - 0x104a3ffff App arm64  <6b0a6a3f1bde3c4a9e2d5f0a1b2c3d4e> /App\n"
        let sanitizer = "==1==ERROR: AddressSanitizer: SEGV\n"
            + (0..<12).map { "    #\($0) 0x\(String(0x401000 + $0 * 4, radix: 16)) in f\($0) (/srv/app+0x\(String(0x1000 + $0 * 4, radix: 16)))\n" }.joined()
        for text in [classic, sanitizer] {
            let report = try ReportParser.parse(Array(text.utf8), path: "plain")
            XCTAssertFalse(report.threads.isEmpty)
            for thread in report.threads {
                XCTAssertEqual(thread.frames.framesKeptWhole, 0, "\(thread.frames)")
                XCTAssertFalse(thread.frames.keepsLines)
            }
        }
    }
}
