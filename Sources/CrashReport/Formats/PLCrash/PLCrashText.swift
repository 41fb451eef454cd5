import Platform

/// Writes a `.plcrash` report as the Apple-style text PLCrashReporter's
/// `PLCrashReportTextFormatter` makes of it:
///
///     Incident Identifier: 8C1B5D2E-0C1A-4E2B-9F3D-2A5B6C7D8E9F
///     CrashReporter Key:   TODO
///     Hardware Model:      iPhone15,2
///     Process:         App [1234]
///     Path:            /private/var/containers/Bundle/Application/.../App.app/App
///     Identifier:      com.example.App
///     Version:         1.0 (1)
///     Code Type:       ARM-64
///     Parent Process:  launchd [1]
///
///     Date/Time:       2023-10-17 16:03:12 +0000
///     OS Version:      iPhone OS 17.2 (21C62)
///     Report Version:  104
///
///     Exception Type:  SIGSEGV
///     Exception Codes: SEGV_MAPERR at 0x10
///     Crashed Thread:  0
///
///     Thread 0 Crashed:
///     0   App                                 0x0000000104a34204 0x104a30000 + 16900
///     1   libsystem_kernel.dylib              0x00000001c0a9a30e __pthread_kill + 8
///
///     Thread 0 crashed with ARM-64 Thread State:
///         pc: 0x0000000104a34204     fp: ...
///
///     Binary Images:
///            0x104a30000 -        0x104a37fff +App arm64  <4c4c44c355553144a19baf60d4f21f14> /.../App.app/App
///
/// An uncaught exception adds `Application Specific Information:` and a `Last Exception
/// Backtrace:` of frame lines. A frame the reporter named (`symbol`) prints `NAME + OFFSET`
/// (the name's leading `_` dropped, the offset from the symbol's start), the others
/// `0xBASE + OFFSET` of the image whose range holds the pc. Text from the report goes through
/// `OutputEscaping`, so that every value stays on its line.
enum PLCrashText {
    static func write(_ report: Plcrash_CrashReport) -> [UInt8] {
        var writer = ClassicTextWriter(fieldStyle: .init(valueColumn: 17, skipsEmptyValues: false, countsEscapedKey: false))
        let (codeType, lp64) = self.codeType(report)
        let images = ImagesByAddress(report.binaryImages)
        let process = report.processInfo
        let unknown = "???"
        writer.line("Incident Identifier: " + (report.reportInfo.uuid.count == 16 ? uuidString([UInt8](report.reportInfo.uuid)) : unknown))
        writer.line("CrashReporter Key:   TODO")
        writer.line("Hardware Model:      " + (report.machineInfo.hasModel ? text(report.machineInfo.model) : unknown))
        let hasProcess = report.hasProcessInfo
        let processName = hasProcess && process.hasProcessName ? text(process.processName) : unknown
        let processPath = hasProcess && process.hasProcessPath ? text(process.processPath) : unknown
        let parentName = hasProcess && process.hasParentProcessName ? text(process.parentProcessName) : unknown
        writer.line("Process:         \(processName) [\(hasProcess ? String(process.processID) : unknown)]")
        writer.line("Path:            " + processPath)
        writer.line("Identifier:      " + text(report.applicationInfo.identifier))
        let version = text(report.applicationInfo.version)
        writer.line("Version:         " + (report.applicationInfo.hasMarketingVersion
            ? "\(text(report.applicationInfo.marketingVersion)) (\(version))" : version))
        writer.line("Code Type:       " + codeType)
        writer.line("Parent Process:  \(parentName) [\(hasProcess ? String(process.parentProcessID) : unknown)]")
        writer.line("")
        let system = report.systemInfo
        writer.line("Date/Time:       " + (system.timestamp > 0 ? date(seconds: system.timestamp) : "(null)"))
        writer.line("OS Version:      \(osName(system)) \(text(system.osVersion)) (\(system.hasOsBuild ? text(system.osBuild) : unknown))")
        writer.line("Report Version:  104")
        writer.line("")
        writer.line("Exception Type:  " + text(report.signal.name))
        writer.line("Exception Codes: \(text(report.signal.code)) at 0x\(String(report.signal.address, radix: 16))")
        if let crashed = report.threads.first(where: \.crashed) { writer.line("Crashed Thread:  \(crashed.threadNumber)") }
        writer.line("")
        if report.hasException {
            writer.line("Application Specific Information:")
            writer.line("*** Terminating app due to uncaught exception '\(text(report.exception.name))', "
                        + "reason: '\(text(report.exception.reason))'")
            writer.line("")
            if !report.exception.frames.isEmpty {
                writer.line("Last Exception Backtrace:")
                for (i, frame) in report.exception.frames.enumerated() { writeFrame(frame, i, report, images, lp64, &writer) }
                writer.line("")
            }
        }
        for thread in report.threads {
            writer.line("Thread \(thread.threadNumber)" + (thread.crashed ? " Crashed:" : ":"))
            for (i, frame) in thread.frames.enumerated() { writeFrame(frame, i, report, images, lp64, &writer) }
            writer.line("")
        }
        if let crashed = report.threads.first(where: \.crashed) {
            writer.line("Thread \(crashed.threadNumber) crashed with \(codeType) Thread State:")
            var line = ""
            for (column, register) in crashed.registers.enumerated() {
                var name = text(register.name)
                if report.machineInfo.processor.encoding == .mach,
                   report.machineInfo.processor.type & 0x00FF_FFFF == 12, name == "r12" { name = "ip" }
                line += String(repeating: " ", count: max(0, 6 - name.count)) + name + ": 0x"
                    + hex(register.value, lp64 ? 16 : 8) + " "
                if column % 4 == 3 {
                    writer.line(line)
                    line = ""
                }
            }
            if !line.isEmpty { writer.line(line) }
            writer.line("")
        }
        writer.line("Binary Images:")
        for image in images.sorted {
            let end = image.baseAddress &+ (max(1, image.size) - 1)
            let name = text(image.name)
            let designator = hasProcess && process.hasProcessPath && image.name == process.processPath ? "+" : " "
            let uuid = image.hasUuid ? [UInt8](image.uuid).map { hex(UInt64($0), 2) }.joined() : unknown
            let width = lp64 ? 18 : 10
            writer.line(alternateHex(image.baseAddress, width) + " - " + alternateHex(end, width) + " " + designator
                        + Path.lastComponent(name) + " " + architecture(image) + "  <\(uuid)> " + name)
        }
        return writer.text
    }

    /// `%-4ld%-35S 0x%0*llx SYMBOL`: a frame line; past frame 999 the number is followed by a
    /// blank all the same (PLCrashReporter's would run into the image's name, and no reader
    /// could tell them apart).
    private static func writeFrame(_ frame: Plcrash_Thread.StackFrame, _ index: Int, _ report: Plcrash_CrashReport,
                                   _ images: ImagesByAddress, _ lp64: Bool, _ writer: inout ClassicTextWriter) {
        let pc = frame.pc
        let image = images.image(containing: pc)
        let imageName = image.map { Path.lastComponent(text($0.name)) } ?? "???"
        var symbol: String
        if frame.hasSymbol {
            var name = text(frame.symbol.name)
            let apple: Set<Plcrash_SystemInfo.OperatingSystem> = [.macOsX, .iphoneOs, .iphoneSimulator]
            if name.hasPrefix("_"), name.count > 1, apple.contains(report.systemInfo.operatingSystem) {
                name.removeFirst()
            }
            symbol = "\(name) + \(Int64(bitPattern: pc &- frame.symbol.startAddress))"
        } else {
            let base = image?.baseAddress ?? 0
            symbol = "0x\(String(base, radix: 16)) + \(Int64(bitPattern: pc &- base))"
        }
        let number = String(index)
        let line = number + String(repeating: " ", count: max(1, 4 - number.count))
            + imageName + String(repeating: " ", count: max(0, 35 - imageName.count))
            + " 0x" + hex(pc, lp64 ? 16 : 8) + " " + symbol
        writer.line(line)
    }

    /// The report's code type, from the first image with a Mach type, else the legacy
    /// architecture; and whether it is 64-bit.
    private static func codeType(_ report: Plcrash_CrashReport) -> (String, Bool) {
        for image in report.binaryImages where image.hasCodeType && image.codeType.encoding == .mach {
            switch image.codeType.type {
            case 12: return ("ARM", false)
            case 0x0100_000C: return ("ARM-64", true)
            case 7: return ("X86", false)
            case 0x0100_0007: return ("X86-64", true)
            case 18: return ("PPC", false)
            default: continue
            }
        }
        switch report.systemInfo.architecture {
        case .armv6, .armv7: return ("ARM", false)
        case .x8632: return ("X86", false)
        case .x8664: return ("X86-64", true)
        case .ppc: return ("PPC", false)
        default: return ("Unknown (\(report.systemInfo.architecture.rawValue))", true)
        }
    }

    /// The architecture the image line names.
    private static func architecture(_ image: Plcrash_BinaryImage) -> String {
        guard image.hasCodeType, image.codeType.encoding == .mach else { return "???" }
        let subtype = image.codeType.subtype & 0x00FF_FFFF
        switch image.codeType.type {
        case 12: return [6: "armv6", 9: "armv7", 11: "armv7s"][subtype] ?? "arm-unknown"
        case 0x0100_000C: return [0: "arm64", 1: "armv8", 2: "arm64e"][subtype] ?? "arm64-unknown"
        case 7: return "i386"
        case 0x0100_0007: return "x86_64"
        case 18: return "powerpc"
        default: return "???"
        }
    }

    private static func osName(_ system: Plcrash_SystemInfo) -> String {
        switch system.operatingSystem {
        case .macOsX, .iphoneSimulator: return "Mac OS X"
        case .iphoneOs: return "iPhone OS"
        case .appleTvos: return "Apple tvOS"
        default: return "Unknown (\(system.operatingSystem.rawValue))"
        }
    }

    private static func text(_ data: some Collection<UInt8>) -> String {
        String(protobufText: data)
    }

    private static func hex(_ value: UInt64, _ width: Int) -> String {
        paddedHex(value, width)
    }

    /// `%#*llx`: `0x` and the digits, right-aligned to `width`; `0` alone for zero.
    private static func alternateHex(_ value: UInt64, _ width: Int) -> String {
        let digits = value == 0 ? "0" : "0x" + String(value, radix: 16)
        return String(repeating: " ", count: max(0, width - digits.count)) + digits
    }

    /// 16 bytes as `CFUUIDCreateString` writes them: uppercase, with dashes.
    private static func uuidString(_ bytes: [UInt8]) -> String {
        var out = ""
        for (i, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(i) { out += "-" }
            out += paddedHex(UInt64(byte), 2).uppercased()
        }
        return out
    }

    /// Seconds since 1970 as `NSDate` describes them: `2023-10-17 16:03:12 +0000`.
    private static func date(seconds: Int64) -> String {
        let stamp = KSCrashTranslator.date(microseconds: UInt64(seconds) &* 1_000_000)
        // "2023-10-17 16:03:12.000000 +0000" without the fraction.
        guard let dot = stamp.firstIndex(of: "."), let space = stamp[dot...].firstIndex(of: " ") else { return stamp }
        return String(stamp[..<dot]) + String(stamp[space...])
    }
}

/// A report's images by base address, to find the image of a pc in logarithmic time (a report
/// of many images and frames takes time in proportion to its size).
private struct ImagesByAddress {
    /// The images, by base address (the order of `Binary Images:`, stable for equal bases).
    let sorted: [Plcrash_BinaryImage]

    init(_ images: [Plcrash_BinaryImage]) {
        sorted = images.enumerated().sorted { ($0.element.baseAddress, $0.offset) < ($1.element.baseAddress, $1.offset) }
            .map(\.element)
    }

    /// The image with the highest base at or below `pc`, when its range holds `pc`.
    func image(containing pc: UInt64) -> Plcrash_BinaryImage? {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].baseAddress <= pc { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let image = sorted[low - 1]
        return pc &- image.baseAddress < image.size ? image : nil
    }
}
