import CrashReport
import DebugInfo
import Foundation
import Platform
@testable import Symbolication
import TestSupport
import XCTest

/// The symbolicator on the fixture reports: its address arithmetic against the addresses
/// the fixture script computed on its own, and its answers against llvm-symbolizer.
final class SymbolicatorTests: XCTestCase {
    struct Expectation {
        var thread: Int
        var frame: Int
        var address: UInt64
        var debugFile: String
        var lookup: UInt64
    }

    private func fixtures() throws -> URL {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        return fixtures
    }

    private func expectations(_ report: URL) throws -> [Expectation] {
        let tsv = report.deletingPathExtension().appendingPathExtension("expect.tsv")
        return try String(contentsOf: tsv, encoding: .utf8).split(separator: "\n").map { line in
            let f = line.split(separator: "\t").map(String.init)
            return Expectation(thread: Int(f[0])!, frame: Int(f[1])!, address: UInt64(f[2].dropFirst(2), radix: 16)!,
                               debugFile: f[3], lookup: UInt64(f[4].dropFirst(2), radix: 16)!)
        }
    }

    private func reports() throws -> [URL] {
        let directory = try fixtures().appendingPathComponent("reports")
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "crash" }.sorted { $0.path < $1.path }
    }

    private func locate(_ thread: Int, _ frame: Int, in report: CrashReport) -> (Int, Int)? {
        for (t, candidate) in report.threads.enumerated() where candidate.kind == .thread(thread) {
            if let f = candidate.frames.firstIndex(where: { $0.index == frame }) { return (t, f) }
        }
        return nil
    }

    /// A report lists every loaded image; only the debug files of images that frames point
    /// into are indexed, while every matched image still names its debug file.
    /// Hand-checked paths: the system's folders and runtime libraries, by bytes (a name that
    /// is not UTF-8 is compared as the file system spells it).
    func testSystemPathsAndRuntimeLibraries() {
        for path in ["/System/Library/Frameworks/UIKit.framework/UIKit", "/usr/lib/libobjc.A.dylib", "/lib/x86_64-linux-gnu/libc.so.6",
                     "/opt/swift/usr/lib/swift/linux/libswiftCore.so", "[vdso]",
                     // Android's system image, APEX modules, partitions, ART's compiled and JIT code.
                     "/system/lib64/libc.so", "/apex/com.android.art/lib64/libart.so", "/vendor/lib64/libgralloc.so",
                     "/system/framework/arm64/boot.oat", "/data/dalvik-cache/arm64/system@framework@boot.oat",
                     "/memfd:jit-cache (deleted)", "[anon:dalvik-jit-code-cache]"] {
            XCTAssertTrue(Symbolicator.isSystemPath(path), path)
        }
        for path in ["/private/var/containers/Bundle/Application/X/App.app/App", "/srv/app/bin/server", "/usr", "/lib",
                     "/data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so", "/data/local/tmp/tool",
                     "/Library/Application Support/x", FileName.decode([0x2f, 0xff, 0x75, 0x73, 0x72, 0x2f])] {
            XCTAssertFalse(Symbolicator.isSystemPath(path), path)
        }
        for name in ["libc.so.6", "libstdc++.so.6", "ld-linux-x86-64.so.2", "libswiftCore.so", "libclang_rt.asan-x86_64.so"] {
            XCTAssertTrue(Symbolicator.isSystemLibraryName(name), name)
        }
        for name in ["server", "libgreeter.so", "/lib/libc.so.6", "libcrypto.so.3"] {
            XCTAssertFalse(Symbolicator.isSystemLibraryName(name), name)
        }
    }

    /// A module's file name, by which a file named with `-d` is matched to a module the log
    /// gives no build-id for: an Android library inside its APK is the library's.
    func testModuleFileNames() {
        XCTAssertEqual(Symbolicator.moduleFileName("/srv/app/bin/server"), "server")
        XCTAssertEqual(Symbolicator.moduleFileName("race"), "race")
        XCTAssertEqual(Symbolicator.moduleFileName("/data/app/~~x==/com.example-y==/base.apk!libcrashy.so"), "libcrashy.so")
        XCTAssertEqual(Symbolicator.moduleFileName("/data/app/com.example-1/base.apk"), "base.apk")
        XCTAssertEqual(Symbolicator.moduleFileName("/tmp/odd!"), "odd!")
        XCTAssertEqual(Symbolicator.moduleFileName("/tmp/a!b/prog"), "prog")
    }

    func testOnlyImagesWithFramesAreIndexed() throws {
        let fixtures = try fixtures()
        let url = fixtures.appendingPathComponent("reports/App-arm64.crash")
        var report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
        let greeter = try XCTUnwrap(report.images.firstIndex { $0.name.hasPrefix("libGreeter") })
        let app = try XCTUnwrap(report.images.firstIndex { $0.name == "App" })
        for t in report.threads.indices { report.threads[t].frames.removeAll { $0.image == greeter } }
        XCTAssertTrue(report.threads.contains { $0.frames.contains { $0.image == app } })

        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [fixtures.appendingPathComponent("macho").path], diagnostics: diagnostics)
        let built = Lock()
        var indexed: [String] = []
        let symbolicator = Symbolicator(locator: locator, diagnostics: diagnostics) { file in
            built.withLock { indexed.append(file.path) }
            return try SymbolIndex.build(file)
        }
        let result = symbolicator.symbolicate(report)
        XCTAssertEqual(indexed.count, 1, "\(indexed)")
        XCTAssertTrue(indexed.first?.hasSuffix("/App-arm64") == true, "\(indexed)")
        XCTAssertNotNil(result.debugFiles[greeter], "the matched image still names its debug file")
        XCTAssertFalse(result.frames.isEmpty)
    }

    /// Frames at the same address resolve to one shared array of source frames: a report that
    /// repeats a backtrace many times does not hold a copy of its resolution per frame.
    func testFramesAtTheSameAddressShareTheirSourceFrames() throws {
        let fixtures = try fixtures()
        let url = fixtures.appendingPathComponent("reports/App-arm64.crash")
        var report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
        report.threads.append(report.threads[0])
        let copy = report.threads.count - 1
        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [fixtures.appendingPathComponent("macho").path], diagnostics: diagnostics)
        let result = Symbolicator(locator: locator, diagnostics: diagnostics) { try SymbolIndex.build($0) }
            .symbolicate(report)
        var compared = 0
        for f in report.threads[0].frames.indices {
            guard let first = result.frames[FrameKey(thread: 0, frame: f)] else { continue }
            let second = try XCTUnwrap(result.frames[FrameKey(thread: copy, frame: f)], "frame \(f)")
            XCTAssertEqual(first, second)
            XCTAssertEqual(first.withUnsafeBufferPointer { $0.baseAddress }, second.withUnsafeBufferPointer { $0.baseAddress },
                           "frame \(f) holds its own copy")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 0)
    }

    /// Sharing does not depend on which slots of the table of results the addresses' hashes
    /// pick (Swift seeds its hashes per process): in a report of hundreds of distinct addresses,
    /// each listed twice (one thread of them, then the same thread again), every second frame
    /// shares the first one's array. Hundreds of addresses in a table of a few thousand slots
    /// always have some whose hashes meet, whatever the seed.
    func testFramesAtTheSameAddressShareTheirSourceFramesWhateverTheirHashes() throws {
        let fixtures = try fixtures()
        let url = fixtures.appendingPathComponent("reports/App-arm64.crash")
        var report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
        let app = try XCTUnwrap(report.images.firstIndex { $0.name == "App" })
        let appFrames = report.threads.flatMap(\.frames).filter { $0.image == app }
        let template = try XCTUnwrap(appFrames.first)
        // Every other byte between the lowest and the highest address of the app's frames:
        // addresses inside the app's functions, each looked up on its own.
        let low = try XCTUnwrap(appFrames.map(\.address).min()), high = try XCTUnwrap(appFrames.map(\.address).max())
        var thread = report.threads[0]
        thread.frames = FrameList(stride(from: low, through: high, by: 2).enumerated().map { i, address in
            var frame = template
            frame.index = i
            frame.address = address
            return frame
        })
        report.threads = [thread, thread]
        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [fixtures.appendingPathComponent("macho").path], diagnostics: diagnostics)
        let result = Symbolicator(locator: locator, diagnostics: diagnostics) { try SymbolIndex.build($0) }
            .symbolicate(report)
        var compared = 0
        for f in thread.frames.indices {
            guard let first = result.frames[FrameKey(thread: 0, frame: f)] else { continue }
            let second = try XCTUnwrap(result.frames[FrameKey(thread: 1, frame: f)], "frame \(f)")
            XCTAssertEqual(first, second)
            XCTAssertEqual(first.withUnsafeBufferPointer { $0.baseAddress }, second.withUnsafeBufferPointer { $0.baseAddress },
                           "frame \(f) at 0x\(String(thread.frames[f].address, radix: 16)) holds its own copy")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 300, "frames resolved of \(thread.frames.count)")
    }

    /// A report of tens of thousands of distinct addresses, many more than the lookups kept for
    /// sharing, is symbolicated, each frame as it would be alone: the addresses past those kept
    /// are looked up each time they come.
    func testReportOfManyDistinctAddressesIsSymbolicated() throws {
        let fixtures = try fixtures()
        let url = fixtures.appendingPathComponent("reports/App-arm64.crash")
        var report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
        let app = try XCTUnwrap(report.images.firstIndex { $0.name == "App" })
        let template = try XCTUnwrap(report.threads.flatMap(\.frames).first { $0.image == app })
        // Every byte from the image's start on, the image made large enough to hold them:
        // addresses in its functions, and past them, each a lookup of its own.
        let start = report.images[app].loadAddress
        let count = 40_000
        XCTAssertGreaterThan(count, 4 * Symbolicator.sharedLookups)
        report.images[app].endAddress = start + UInt64(count)
        var thread = report.threads[0]
        thread.frames = FrameList((0..<count).map { i in
            var frame = template
            frame.index = i
            frame.address = start + UInt64(i)
            return frame
        })
        report.threads = [thread, thread]
        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [fixtures.appendingPathComponent("macho").path], diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, diagnostics: diagnostics) { try SymbolIndex.build($0) }
        let result = symbolicator.symbolicate(report)
        var resolved = 0
        for f in stride(from: 0, to: count, by: 97) {
            // The frame alone, in a report of its own, resolves alike (0: the faulting PC, looked
            // up at its address; the others at their call site).
            var alone = report
            var single = thread
            single.frames = f == 0 ? [thread.frames[0]] : [thread.frames[f - 1], thread.frames[f]]
            alone.threads = [single]
            let expected = symbolicator.symbolicate(alone).frames[FrameKey(thread: 0, frame: f == 0 ? 0 : 1)]
            XCTAssertEqual(result.frames[FrameKey(thread: 0, frame: f)], expected, "frame \(f)")
            XCTAssertEqual(result.frames[FrameKey(thread: 1, frame: f)], expected, "frame \(f), second thread")
            if expected != nil { resolved += 1 }
        }
        XCTAssertGreaterThan(resolved, 10)
    }

    func testAddressArithmeticMatchesTheFixtureScript() throws {
        let fixtures = try fixtures()
        var checked = 0
        for url in try reports() {
            let report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
            for e in try expectations(url) {
                let (t, f) = try XCTUnwrap(locate(e.thread, e.frame, in: report), "\(url.lastPathComponent) \(e.thread)/\(e.frame)")
                let frame = report.threads[t].frames[f]
                XCTAssertEqual(frame.address, e.address)
                let image = report.images[try XCTUnwrap(frame.image)]
                let files = try DebugFile.identify(path: fixtures.appendingPathComponent(e.debugFile).path)
                let file = try XCTUnwrap(files.first { $0.identifier == image.uuid }, "no slice with \(image.uuid ?? "-")")
                let architecture = Symbolicator.architecture(of: image, in: report, debugFile: file)
                let addresses = try XCTUnwrap(Symbolicator.addresses(of: frame, at: f, in: report.threads[t], image: image,
                                                                     debugFile: file, architecture: architecture))
                XCTAssertEqual(addresses.lookup, e.lookup,
                               "\(url.lastPathComponent) thread \(e.thread) frame \(e.frame): lookup 0x\(String(addresses.lookup, radix: 16))")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 20)
    }

    func testResolvedFramesAgreeWithLLVMSymbolizer() throws {
        let fixtures = try fixtures()
        guard let symbolizer = TestPaths.llvmSymbolizer else { throw XCTSkip("llvm-symbolizer is not installed") }
        let diagnostics = Diagnostics { _ in }
        let locator = DebugFileLocator(paths: [fixtures.appendingPathComponent("macho").path], diagnostics: diagnostics)
        let symbolicator = Symbolicator(locator: locator, options: .init(demangle: false), diagnostics: diagnostics)
        var compared = 0
        for url in try reports() {
            let report = try ClassicReportParser.parse(Array(try Data(contentsOf: url)), path: url.path)
            let result = symbolicator.symbolicate(report)
            let expected = try expectations(url)
            for e in expected {
                let (t, f) = try XCTUnwrap(locate(e.thread, e.frame, in: report))
                let image = report.images[report.threads[t].frames[f].image!]
                let oracle = try llvmSymbolizer(symbolizer, fixtures.appendingPathComponent(e.debugFile).path,
                                                arch: Symbolicator.architecture(of: image, in: report, debugFile: nil)?.name ?? "arm64",
                                                address: e.lookup)
                let ours = (result.frames[FrameKey(thread: t, frame: f)] ?? []).map {
                    "\($0.function) \($0.file ?? ""):\($0.line ?? 0)\($0.inlined ? " [inlined]" : "")"
                }
                XCTAssertEqual(ours, oracle, "\(url.lastPathComponent) thread \(e.thread) frame \(e.frame)")
                compared += 1
            }
            // Frames of images without a debug file stay unresolved.
            let resolvedKeys = Set(expected.compactMap { e in locate(e.thread, e.frame, in: report).map { FrameKey(thread: $0.0, frame: $0.1) } })
            for key in result.frames.keys { XCTAssertTrue(resolvedKeys.contains(key), "unexpected resolution at \(key)") }
            XCTAssertFalse(result.debugFiles.isEmpty)
        }
        XCTAssertGreaterThan(compared, 20)
    }

    private func llvmSymbolizer(_ tool: String, _ object: String, arch: String, address: UInt64) throws -> [String] {
        let result = try runProcess(tool, ["--obj=\(object)", "--default-arch=\(arch)", "--inlines", "--functions=linkage",
                                           "--no-demangle", "--output-style=JSON", "0x" + String(address, radix: 16)])
        // Addresses on the command line give a JSON array of one object per address.
        let objects = try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]
        let symbols = objects?.first?["Symbol"] as? [[String: Any]] ?? []
        return symbols.enumerated().map { i, s in
            "\(s["FunctionName"] as? String ?? "") \(s["FileName"] as? String ?? ""):\(s["Line"] as? Int ?? 0)"
                + (i < symbols.count - 1 ? " [inlined]" : "")
        }
    }

    func testReturnAddressesAreLookedUpAtTheirCallSite() throws {
        func thread(_ kind: BacktraceKind) -> Backtrace { Backtrace(kind: kind) }
        let image = BinaryImage(loadAddress: 0x1_0400_0000, endAddress: 0x1_0400_ffff, name: "App")
        func lookup(_ address: UInt64, _ position: Int, _ arch: String, kind: BacktraceKind = .thread(0), vmaddr: UInt64 = 0x1_0000_0000) -> UInt64? {
            let file = DebugFile(path: "/x", format: .machO, architecture: Architecture(name: arch), identifier: "00",
                                 textVMAddress: vmaddr, sliceOffset: 0, sliceSize: 0, hasDWARF: true)
            let frame = Frame(index: position, imageName: "App", address: address, form: .unknown, line: 0, restStart: nil)
            return Symbolicator.addresses(of: frame, at: position, in: thread(kind), image: image,
                                          debugFile: file, architecture: Architecture(name: arch))?.lookup
        }
        // Faulting PC: as is, rebased.
        XCTAssertEqual(lookup(0x1_0400_1234, 0, "arm64"), 0x1_0000_1234)
        XCTAssertEqual(lookup(0x1_0400_1235, 0, "x86_64", vmaddr: 0), 0x1235)
        // arm64: align down to 4, then back one instruction.
        XCTAssertEqual(lookup(0x1_0400_1234, 1, "arm64"), 0x1_0000_1230)
        XCTAssertEqual(lookup(0x1_0400_1236, 3, "arm64e"), 0x1_0000_1230)
        // x86: one byte back.
        XCTAssertEqual(lookup(0x1_0400_1234, 1, "x86_64"), 0x1_0000_1233)
        XCTAssertEqual(lookup(0x1_0400_1234, 1, "i386"), 0x1_0000_1233)
        // Thumb: clear bit 0, back two bytes; an odd first frame is a return address too.
        XCTAssertEqual(lookup(0x1_0400_1235, 1, "armv7"), 0x1_0000_1232)
        XCTAssertEqual(lookup(0x1_0400_1235, 0, "armv7s"), 0x1_0000_1232)
        XCTAssertEqual(lookup(0x1_0400_1234, 0, "armv7"), 0x1_0000_1234)
        // Exception backtraces hold return addresses only.
        XCTAssertEqual(lookup(0x1_0400_1234, 0, "arm64", kind: .lastExceptionBacktrace), 0x1_0000_1230)
        // Below the image: not looked up.
        XCTAssertNil(lookup(0x1_0300_0000, 1, "arm64"))
    }

    func testCodeTypes() {
        XCTAssertEqual(Symbolicator.architecture(ofCodeType: "ARM-64 (Native)"), .arm64)
        XCTAssertEqual(Symbolicator.architecture(ofCodeType: "X86-64 (Native)"), .x86_64)
        XCTAssertEqual(Symbolicator.architecture(ofCodeType: "ARM")?.name, "armv7")
        XCTAssertEqual(Symbolicator.architecture(ofCodeType: "X86")?.name, "i386")
        XCTAssertNil(Symbolicator.architecture(ofCodeType: "PowerPC"))
    }
}
