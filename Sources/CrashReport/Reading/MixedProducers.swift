/// Logs that hold several producers' backtraces.
///
/// A build or test log keeps whatever the programs it ran printed: a swift-frontend crash
/// prints LLVM's stack dump and then the Swift runtime's backtrace; a test run prints a
/// crashed program's Swift backtrace among sanitizer reports or glibc backtraces:
///
///     Stack dump:
///      #4 0x0000558d79143188 (./llvmtool+0x1188)                     LLVM (LinuxLogParser)
///      #5 0x0000558d791431d9 (./llvmtool+0x11d9)
///     *** Program crashed: Illegal instruction at 0x00007fb6e116df7f ***
///     Thread 0 "crash" crashed:
///     3 [ra] 0x0000555f68c29175                                      Swift runtime
///     ./app(report_progress+0x7c)[0x557508a0c275]                    glibc (LinuxLogParser)
///
/// The parser chosen for the log (``ReportParser``) reads its own producer's frames; the
/// lines of the Linux forms (`LinuxLogParser`: LLVM's and the sanitizers' `#N 0x...` lines,
/// glibc's `backtrace_symbols`) on lines it did not take are read as well and added after its
/// backtraces, each run a backtrace of its own, numbered after the report's, with its images,
/// and written back in its own form (``BacktraceProducer``). Every other line stays as it is.
/// A log with no such line is the report the parser made, unchanged.
enum MixedProducers {
    /// `primary` (read from `bytes`) with the Linux log's backtraces of lines it holds no frame of.
    static func addingLinuxBacktraces(to primary: CrashReport, bytes: [UInt8]) -> CrashReport {
        guard let linux = try? LinuxLogParser.parse(bytes, path: primary.path), !linux.threads.isEmpty else { return primary }
        var taken: Set<Int> = []
        for thread in primary.threads {
            for frame in thread.frames { taken.insert(frame.line) }
            if let header = thread.headerLine { taken.insert(header) }
        }
        var report = primary
        let imageBase = report.images.count
        var usedImages: [Int: Int] = [:]  // the Linux log's image index -> the report's
        var number = (report.threads.compactMap { thread -> Int? in
            if case .thread(let n) = thread.kind { return n }
            return nil
        }.max() ?? -1) + 1
        let first = report.threads.count
        for var thread in linux.threads {
            guard !thread.frames.indices.contains(where: { taken.contains(thread.frames[$0].line) }) else { continue }
            for f in thread.frames.indices {
                guard let image = thread.frames[f].image else { continue }
                if usedImages[image] == nil { usedImages[image] = imageBase + usedImages.count }
                thread.frames[f].image = usedImages[image]
            }
            thread.kind = .thread(number)
            thread.crashed = false
            number += 1
            report.threads.append(thread)
        }
        guard report.threads.count > first else { return primary }
        report.images += usedImages.sorted { $0.value < $1.value }.map { linux.images[$0.key] }
        report.otherProducers.append(BacktraceProducer(threads: first..<report.threads.count,
                                                       frameLines: linux.source.frameLines,
                                                       frameNaming: linux.source.frameNaming))
        return report
    }
}
