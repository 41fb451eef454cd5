import CrashReport
import XCTest

/// Snapshot-style tests of the parsed model of every real report in the shared corpus. The
/// expected values were read off the files by hand (line numbers, counts, fields).
final class ClassicReportParserCorpusTests: XCTestCase {
    // MARK: Every file

    func testEveryReportParsesAndRoundTripsByteForByte() throws {
        let files = try Corpus.files()
        XCTAssertFalse(files.isEmpty, "the corpus directory holds no reports")
        for url in files {
            let bytes = try Corpus.bytes(url.lastPathComponent)
            let report = try ClassicReportParser.parse(bytes, path: url.path)
            XCTAssertEqual(report.bytes, bytes, url.lastPathComponent)
            XCTAssertEqual(report.lines.flatMap { bytes[$0] }, bytes, "lines must tile the input: \(url.lastPathComponent)")
            XCTAssertEqual(renderedUnchanged(report), bytes, "text output must equal the input: \(url.lastPathComponent)")
        }
    }

    /// Each `0xLOAD + OFFSET` frame says which image it is in and where: the parsed numbers must
    /// add up, and range matching must find the image that starts at LOAD.
    func testUnsymbolicatedFramesMatchTheImageTheyName() throws {
        for url in try Corpus.files() {
            let report = try Corpus.report(url.lastPathComponent)
            var checked = 0
            for thread in report.threads {
                for frame in thread.frames {
                    guard case .unsymbolicated(let load, let offset) = frame.form, load != 0 else { continue }
                    XCTAssertEqual(load &+ offset, frame.address, "\(url.lastPathComponent):\(frame.line + 1)")
                    guard let image = frame.image else { continue }
                    XCTAssertEqual(report.images[image].loadAddress, load, "\(url.lastPathComponent):\(frame.line + 1)")
                    checked += 1
                }
            }
            if url.lastPathComponent == "bruno.txt" { XCTAssertEqual(checked, 445) }
        }
    }

    // MARK: handcrafted.txt

    func testHandcrafted() throws {
        let report = try Corpus.report("handcrafted.txt")
        XCTAssertEqual(report.lines.count, 57)
        XCTAssertEqual(report.bytes.last, UInt8(ascii: "b"), "the file has no final newline")

        XCTAssertEqual(report.header.count, 16)
        XCTAssertEqual(report.header.first?.key, "Incident Identifier")
        XCTAssertEqual(report.header.first?.value, "5C32DF84-31A0-43E7-87D0-239F7F594940")
        XCTAssertEqual(report.header.first { $0.key == "Process" }?.value, "YetAnotherMac [49028]")
        XCTAssertEqual(report.header.last?.key, "Application Specific Information")
        XCTAssertEqual(report.header.last?.value, "objc_msgSend() selector name: respondsToSelector:")
        XCTAssertEqual(report.codeType, "X86-64")
        // "Crashed Thread: 5", although the report has no thread 5 and marks thread 1 "Crashed".
        XCTAssertEqual(report.crashedThread, 5)

        XCTAssertEqual(report.threads.count, 2)
        let main = report.threads[0]
        XCTAssertEqual(main.kind, .thread(0))
        XCTAssertNil(main.name)
        XCTAssertFalse(main.crashed)
        XCTAssertEqual(main.headerLine, 22)
        XCTAssertEqual(main.frames.count, 14)

        XCTAssertEqual(main.frames[0], Frame(
            index: 0, imageName: "libsystem_kernel.dylib", address: 0x7fff61bc6c2a,
            form: .unsymbolicated(loadAddress: 0x7fff61bc6000, offset: 3114), image: nil,
            line: 23, restStart: 59))
        XCTAssertEqual(restText(report, main.frames[0]), "0x7fff61bc6000 + 3114")
        XCTAssertEqual(main.frames[10].index, 10)
        XCTAssertEqual(main.frames[10].address, 0x108b7092b)
        XCTAssertEqual(main.frames[10].form, .unsymbolicated(loadAddress: 0x10864e000, offset: 5384491))
        XCTAssertEqual(main.frames[10].image, 0)
        XCTAssertEqual(main.frames[11].form, .symbol(name: "a_function_here", offset: 64))
        XCTAssertEqual(main.frames[11].image, 0)
        XCTAssertEqual(main.frames[12].form, .symbol(name: "start", offset: 0))
        XCTAssertNil(main.frames[12].image, "libdyld.dylib is not in the image list")
        // "YetanotherMac" (sic) at 0xea004: outside every range, and no image has that name.
        XCTAssertEqual(main.frames[13], Frame(
            index: 13, imageName: "YetanotherMac", address: 0xea004,
            form: .symbolicated(name: "main", offset: nil, file: "main.m", line: 16), image: nil,
            line: 36, restStart: 59))

        let crashed = report.threads[1]
        XCTAssertEqual(crashed.kind, .thread(1))
        XCTAssertEqual(crashed.name, "Test Thread Name")
        XCTAssertTrue(crashed.crashed)
        XCTAssertEqual(crashed.headerLine, 38)
        XCTAssertEqual(crashed.frames.count, 3)
        XCTAssertEqual(crashed.frames[2], Frame(
            index: 2, imageName: "???", address: 0x54485244,
            form: .unsymbolicated(loadAddress: 0, offset: 0), image: nil, line: 41, restStart: 59))

        XCTAssertEqual(report.images.count, 5)
        XCTAssertEqual(report.images[0], BinaryImage(
            loadAddress: 0x10864e000, endAddress: 0x10ee0ffff, name: "YetAnotherMac", arch: "x86_64",
            uuid: "2d903291397d3d14bfca52c7fb8c5e00",
            path: "/Users/bruno/Documents/Unreal Projects/YetAnotherMac/MacNoEditor/YetAnotherMac.app/Contents/MacOS/YetAnotherMac",
            isApp: true, line: 52))
        XCTAssertEqual(report.images[4].name, "libPxFoundationPROFILE.dylib")
        XCTAssertEqual(report.images[4].loadAddress, 0x1131fa000)
        XCTAssertEqual(report.images[4].endAddress, 0x113200fff)
        XCTAssertEqual(report.images[4].uuid, "890f0997f90435449af7cf011f09a06e")
        XCTAssertFalse(report.images[4].isApp)
        XCTAssertEqual(report.images[4].line, 56)
        XCTAssertEqual(report.images[4].path?.hasSuffix("/ThirdParty/PhysX3/Mac/libPxFoundationPROFILE.dylib"), true)
    }

    // MARK: bruno.txt

    func testBruno() throws {
        let report = try Corpus.report("bruno.txt")
        XCTAssertEqual(report.lines.count, 861)
        XCTAssertEqual(report.header.count, 15)
        XCTAssertEqual(report.header.last?.key, "Crashed Thread")
        XCTAssertEqual(report.codeType, "X86-64")
        XCTAssertEqual(report.crashedThread, 5)

        XCTAssertEqual(report.threads.count, 55, "Thread 0 ... Thread 54; the register block is not a thread")
        XCTAssertEqual(report.threads.map(\.kind), (0...54).map { .thread($0) })
        XCTAssertEqual(report.threads.filter(\.crashed).map(\.kind), [.thread(5)])
        XCTAssertEqual(report.threads.reduce(0) { $0 + $1.frames.count }, 452)
        XCTAssertEqual(report.threads[0].frames.count, 13)
        XCTAssertEqual(report.threads[3].frames.count, 2)
        XCTAssertEqual(report.threads[34].frames.count, 18)
        XCTAssertEqual(report.threads[54].frames.count, 11)

        let crashed = report.threads[5]
        XCTAssertEqual(crashed.headerLine, 52)
        XCTAssertEqual(crashed.frames.count, 19)
        XCTAssertEqual(crashed.frames[0].imageName, "YetAnotherMac")
        XCTAssertEqual(crashed.frames[0].address, 0x1090a0132)
        XCTAssertEqual(crashed.frames[0].form, .unsymbolicated(loadAddress: 0x10864e000, offset: 10821938))
        XCTAssertEqual(crashed.frames[0].image, 0)
        XCTAssertEqual(crashed.frames[15].imageName, "Foundation")
        XCTAssertEqual(crashed.frames[15].address, 0x7fff36d4a234)
        XCTAssertEqual(crashed.frames[15].image, 86, "Foundation is on line 676, the 87th image")
        XCTAssertEqual(crashed.frames[18].index, 18)
        XCTAssertEqual(crashed.frames[18].form, .unsymbolicated(loadAddress: 0x7fff61c7d000, offset: 9253))

        XCTAssertEqual(report.threads[0].frames[12].image, 244, "libdyld.dylib is on line 834")
        let unknown = report.threads[24].frames[2]
        XCTAssertEqual(unknown.imageName, "???")
        XCTAssertEqual(unknown.address, 0x70001989cba0)
        XCTAssertNil(unknown.image)

        XCTAssertEqual(report.images.count, 272)
        XCTAssertEqual(report.images[0].name, "YetAnotherMac")
        XCTAssertEqual(report.images[0].arch, "x86_64", "the version in parentheses is not the arch")
        XCTAssertTrue(report.images[0].isApp)
        XCTAssertEqual(report.images.filter(\.isApp).count, 1)
        XCTAssertEqual(report.images[86], BinaryImage(
            loadAddress: 0x7fff36d38000, endAddress: 0x7fff37106fff, name: "Foundation", arch: "x86_64",
            uuid: "0ccaf9aff7af317498d46c188b1079cc",
            path: "/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation", isApp: false, line: 675))
        XCTAssertEqual(report.images[271], BinaryImage(
            loadAddress: 0x7fff61cb4000, endAddress: 0x7fff61ce4fff, name: "libxpc.dylib", arch: "x86_64",
            uuid: "0a8747d133aa37e1b97aba9b95fe4e8c", path: "/usr/lib/system/libxpc.dylib", isApp: false,
            line: 860))
    }

    // MARK: XCDYouTubeKit-54.txt

    func testXCDYouTubeKit() throws {
        let report = try Corpus.report("XCDYouTubeKit-54.txt")
        XCTAssertEqual(report.lines.count, 396)
        XCTAssertEqual(report.header.count, 14)
        XCTAssertEqual(report.header.first?.key, "Hardware Model")
        XCTAssertEqual(report.header.first?.value, "MacBookPro5,3")
        XCTAssertEqual(report.header.first { $0.key == "Framework Version" }?.value, "1.0")
        XCTAssertEqual(report.crashedThread, 0)

        XCTAssertEqual(report.threads.count, 18)
        XCTAssertEqual(report.threads.reduce(0) { $0 + $1.frames.count }, 113)
        let crashed = report.threads[0]
        XCTAssertEqual(crashed.kind, .thread(0))
        XCTAssertTrue(crashed.crashed)
        XCTAssertEqual(crashed.headerLine, 14)
        XCTAssertEqual(crashed.frames.count, 27)
        XCTAssertEqual(report.threads[14].frames.count, 10)
        XCTAssertEqual(report.threads.filter(\.crashed).count, 1)

        // Frames name images by bundle id, like the image list.
        XCTAssertEqual(crashed.frames[0].imageName, "com.apple.JavaScriptCore")
        XCTAssertEqual(crashed.frames[0].form, .symbol(name: "JSValueIsString", offset: 155))
        XCTAssertEqual(crashed.frames[0].image, 239, "com.apple.JavaScriptCore is on line 392")
        XCTAssertEqual(report.images[239].name, "com.apple.JavaScriptCore")
        XCTAssertEqual(crashed.frames[1].form, .symbol(name: "-[XCDYouTubePlayerScript unscrambleSignature:]", offset: 285))
        XCTAssertEqual(crashed.frames[1].image, 1)
        XCTAssertEqual(crashed.frames[6].form, .symbol(
            name: "__65-[NSURLConnectionInternal _withConnectionAndDelegate:onlyActive:]_block_invoke_0", offset: 28))
        XCTAssertEqual(crashed.frames[26].imageName, "libdyld.dylib")
        XCTAssertEqual(crashed.frames[26].image, 72, "libdyld.dylib is on line 225")
        XCTAssertEqual(report.threads[14].frames[4].form, .symbol(name: "-[NSRunLoop(NSRunLoop) runMode:beforeDate:]", offset: 268))
        XCTAssertEqual(report.threads[14].frames[6], Frame(
            index: 6, imageName: "com.AlphaSoft.iTubeDownloader", address: 0x10181bc10,
            form: .unsymbolicated(loadAddress: 0x1017ff000, offset: 117776), image: 0, line: 123, restStart: 59))

        XCTAssertEqual(report.images.count, 244)
        XCTAssertEqual(report.images[0], BinaryImage(
            loadAddress: 0x1017ff000, endAddress: 0x101885fff, name: "com.AlphaSoft.iTubeDownloader", arch: "x86_64",
            uuid: "7b639009221f3815a7a3657098146f8a",
            path: "/Users/rogercoody/Desktop/iTubeDownloader.app/Contents/MacOS/iTubeDownloader", isApp: true, line: 152))
        XCTAssertEqual(report.images[1].name, "ch.pitaya.xcdyoutubekit")
        XCTAssertEqual(report.images[1].uuid, "3113691768683472b768eb12d00e37e9")
        XCTAssertFalse(report.images[1].isApp)
        XCTAssertEqual(report.images[18].name, "cl_kernels")
        XCTAssertEqual(report.images[18].path, "cl_kernels")
        XCTAssertEqual(report.images[18].uuid, "0f9973643d3246f0868ea51a6476c487")
        XCTAssertEqual(report.images.filter(\.isApp).count, 1)
    }

    // MARK: spaces.txt

    func testSpaces() throws {
        let report = try Corpus.report("spaces.txt")
        XCTAssertEqual(report.lines.count, 37)
        XCTAssertTrue(report.header.isEmpty)
        XCTAssertNil(report.codeType)
        XCTAssertNil(report.crashedThread)

        XCTAssertEqual(report.threads.count, 1)
        let thread = report.threads[0]
        XCTAssertEqual(thread.kind, .thread(0))
        XCTAssertFalse(thread.crashed)
        XCTAssertEqual(thread.headerLine, 0)
        XCTAssertEqual(thread.frames.count, 17)
        XCTAssertEqual(thread.frames[0], Frame(
            index: 0, imageName: "App Namespace", address: 0x102268e70,
            form: .unsymbolicated(loadAddress: 0x10211c000, offset: 1363568), image: 0, line: 1, restStart: 59))
        XCTAssertEqual(thread.frames[15].imageName, "App Namespace")
        XCTAssertEqual(thread.frames[15].image, 0)
        XCTAssertEqual(thread.frames[13].imageName, "GraphicsServices")
        XCTAssertEqual(thread.frames[13].image, 9)
        XCTAssertEqual(thread.frames[16].imageName, "libdyld.dylib")
        XCTAssertEqual(thread.frames[16].image, 12)

        XCTAssertEqual(report.images.count, 17)
        XCTAssertEqual(report.images[0], BinaryImage(
            loadAddress: 0x10211c000, endAddress: 0x1024b3fff, name: "App Namespace", arch: "arm64",
            uuid: "debeff4e26534f38e59bc9de7b8daade",
            path: "/private/var/containers/Bundle/Application/012CABCB-BD5B-1234-AE44-3215BF57D1CD/App Namespace Some.app/App Namespace",
            isApp: false, line: 20))
        XCTAssertEqual(report.images[1].name, "libc++.1.dylib")
        XCTAssertEqual(report.images[1].path, "/usr/lib/libc++.1.dylib")
        XCTAssertEqual(report.images[12].name, "libdyld.dylib")
        XCTAssertEqual(report.images[16].name, "WebCore")
        XCTAssertEqual(report.images[16].line, 36)
    }

    // MARK: xcode16.txt

    func testXcode16HeaderOnly() throws {
        let report = try Corpus.report("xcode16.txt")
        XCTAssertEqual(report.lines.count, 16)
        XCTAssertEqual(report.header.count, 14)
        XCTAssertEqual(report.header.map(\.key), [
            "Incident Identifier", "CrashReporter Key", "Hardware Model", "Process", "Path", "Identifier",
            "Version", "Code Type", "Role", "Parent Process", "Coalition", "Date/Time", "Launch Time", "OS Version",
        ])
        XCTAssertEqual(report.header.first { $0.key == "Version" }?.value, "1 (3.0)")
        XCTAssertEqual(report.header.last?.value, "iPhone OS 13.3.1 (17D50)")
        XCTAssertEqual(report.codeType, "ARM-64 (Native)")
        XCTAssertNil(report.crashedThread)
        XCTAssertTrue(report.threads.isEmpty)
        XCTAssertTrue(report.images.isEmpty)
    }
}
