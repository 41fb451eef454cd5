import CrashReport
import Platform

/// The rules for a crashed thread whose stack is destroyed: stack smashing (`__stack_chk_fail`),
/// a jump into a page that holds no code (frame 0 at an address no image holds, or at the
/// faulting address itself), or an unwinder that gave up (a thread of 0–1 frames). Such
/// crashes have no app frame, or only garbage, where a signature is usually read, so without
/// these rules they all fall into one group per exception reason.
///
/// What remains tells them apart, in this order (the first that names an app function wins,
/// and only its innermost function is kept: the frames below damage are not trusted to be the
/// same from one crash to the next, and an inline chain differs between debug and release
/// builds):
/// 1. the first app frame below the damage that resolves (skipped functions left out);
/// 2. the registers that still point into app code: pc, then lr (x30) — from the report's
///    thread state (`Thread N crashed with ARM Thread State (64-bit):`, the `.ips`
///    `threadState` as the translator writes it);
/// 3. the faulting address, when an app image holds it;
/// 4. nothing: the signature says `stack destroyed` and the exception type and reason.
public enum DestroyedStack {
    /// Names addresses that are not frames (registers, the faulting address): for each
    /// `(address, isReturnAddress)`, the innermost function there, or nil. Grouping passes one
    /// that asks the run's symbolicator (``SymbolicatorNamer``).
    public typealias Namer = (_ report: CrashReport, _ addresses: [(address: UInt64, isReturn: Bool)]) -> [String?]

    /// Kinds whose crashed thread did not crash by itself (a kill, a resource limit): their
    /// thread is whatever it was doing, however few its frames.
    static let kindsNotCrashed: Set<String> = ["killed", "resource"]

    /// Functions whose frame means the stack below it was smashed.
    static let smashReporters: Set<String> = ["__stack_chk_fail", "___stack_chk_fail", "__stack_chk_fail_local"]

    /// How the stack of `frames` (a crashed thread's, as ``SignatureReader`` reads it) is
    /// damaged: the index of the first frame below the damage (frames before it are garbage
    /// or the smashing report), or nil when the stack is whole. `frameCount` is the thread's
    /// frame count in the report, `fault` the faulting address.
    static func firstFrameBelowDamage(_ frames: [ExampleFrame], frameCount: Int, fault: UInt64?) -> Int? {
        guard let top = frames.firstIndex(where: { !$0.handler }) else { return frameCount <= 1 ? frames.count : nil }
        if let smash = frames[top...].prefix(16).firstIndex(where: { frame in
            frame.function.map { smashReporters.contains(FunctionName.normalized($0)) } ?? false
        }) {
            return smash + 1
        }
        let first = frames[top]
        if !first.placed || (fault.map { $0 != 0 && $0 == first.address } ?? false) {
            var below = top + 1
            while below < frames.count, frames[below].number == first.number { below += 1 }
            return below
        }
        let counted = Set(frames[top...].map(\.number)).count
        return counted <= 1 ? top : nil
    }

    /// The registers of the state block of thread `number` (`Thread 0 crashed with ARM Thread
    /// State (64-bit):`), by name (`pc`, `lr`, `fp`, `x0`..., `rip`, `rbp`...): read from the
    /// lines after the last backtrace, up to the image list. Empty when the block is of
    /// another thread (a watchdog's report names the main thread's registers).
    public static func registers(of report: CrashReport, thread number: Int?) -> [String: UInt64] {
        var start = 0
        for thread in report.threads {
            if let line = thread.headerLine { start = max(start, line) }
        }
        var registers: [String: UInt64] = [:]
        var inBlock = false
        var k = start
        while k < report.lines.count, k < start + 100_000 {
            let range = report.lines[k]
            k += 1
            let line = String(decoding: report.bytes[range], as: UTF8.self)
            if line.hasPrefix("Binary Images") { break }
            if !inBlock {
                if line.hasPrefix("Thread "), line.contains(" crashed with "), line.contains("Thread State") {
                    let said = Int(line.dropFirst("Thread ".count).prefix(while: { $0.isASCII && $0.isNumber }))
                    guard number == nil || said == number else { return [:] }
                    inBlock = true
                }
                continue
            }
            if line.trimmingAll(of: " \t\r\n").isEmpty { break }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
            for (i, word) in words.enumerated() where word.hasSuffix(":") && i + 1 < words.count {
                let value = words[i + 1]
                guard value.hasPrefix("0x"), let number = UInt64(value.dropFirst(2), radix: 16) else { continue }
                registers[String(word.dropLast())] = number
            }
        }
        return registers
    }

    /// The faulting address: `KERN_INVALID_ADDRESS at 0x…` in the exception subtype or codes,
    /// else the `far` (arm64) or `cr2` (x86_64) register.
    public static func faultAddress(of report: CrashReport, registers: [String: UInt64]) -> UInt64? {
        for key in ["Exception Subtype", "Exception Codes"] {
            guard let value = SignatureReader.header(report, key), let at = value.firstRange(of: " at 0x") else { continue }
            let digits = value[at.upperBound...].prefix(while: \.isHexDigit)
            if let address = UInt64(digits, radix: 16) { return address }
        }
        if let far = registers["far"], far != 0 { return far }
        if let cr2 = registers["cr2"], cr2 != 0 { return cr2 }
        return nil
    }
}

extension String {
    /// The string without the given leading and trailing characters.
    func trimmingAll(of set: String) -> String {
        var text = Substring(self)
        while let c = text.first, set.contains(c) { text = text.dropFirst() }
        while let c = text.last, set.contains(c) { text = text.dropLast() }
        return String(text)
    }
}
