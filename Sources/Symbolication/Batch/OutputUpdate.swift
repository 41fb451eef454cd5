import CrashReport
import DebugInfo
import Platform

/// `--update` over `-o DIR`: which reports are symbolicated again, and the record of what was
/// written (``UpdateRecord``) for the next run.
///
/// A report is done again when its output is missing, older than the report, or not as the
/// record has it (written by another run, or by one killed before it saved the record), or
/// when one of its images that no debug file resolved with lines has one now (a new dSYM, a
/// dyld shared cache, a server that has the file): what a full run would write otherwise.
/// Every other output file is left as it is, its modification time too. Outputs written by a
/// full run of the same options are the same bytes.
final class OutputUpdate {
    /// Why a report is done again.
    enum Reason: String, CaseIterable {
        case new = "no output yet"
        case changed = "report changed"
        case unrecorded = "output not as recorded"
        case covered = "debug files for its unresolved images"
    }

    private var record: UpdateRecord
    private let folder: String
    private let symbolicator: Symbolicator
    /// Whether each pending image has a debug file now (other than the one that gave no lines).
    private var covered: [UpdateRecord.PendingImage: Bool] = [:]
    /// Reports done again, by why, and left as they were.
    private(set) var counts: [Reason: Int] = [:]
    private(set) var upToDate = 0
    /// Why the record could not be used, if it could not.
    let problem: String?

    init(folder: String, signature: String, symbolicator: Symbolicator) {
        self.folder = folder
        self.symbolicator = symbolicator
        (record, problem) = UpdateRecord.load(folder: folder, signature: signature)
    }

    /// Why the report at `report`, written to `target` (`relative` to the folder), is done
    /// again; nil when its output is up to date.
    func reason(relative: String, report: String, target: String) -> Reason? {
        let reason = decide(relative: relative, report: report, target: target)
        if let reason { counts[reason, default: 0] += 1 } else { upToDate += 1 }
        return reason
    }

    private func decide(relative: String, report: String, target: String) -> Reason? {
        guard let output = System.status(target) else { return .new }
        guard let input = System.status(report),
              System.times(of: input).modified <= System.times(of: output).modified else { return .changed }
        guard let entry = record.entries[relative], entry.size == Int64(output.st_size),
              entry.modified == System.times(of: output).modified else { return .unrecorded }
        return entry.pending.contains(where: hasDebugFileNow) ? .covered : nil
    }

    private func hasDebugFileNow(_ pending: UpdateRecord.PendingImage) -> Bool {
        if let known = covered[pending] { return known }
        let image = BinaryImage(loadAddress: 0, endAddress: 0, name: pending.name, arch: pending.arch.isEmpty ? nil : pending.arch,
                                uuid: pending.identifier.isEmpty ? nil : pending.identifier,
                                path: pending.path.isEmpty ? nil : pending.path, format: pending.isELF ? .elf : .machO)
        let found = symbolicator.debugFile(for: image, architecture: Architecture(name: pending.arch), framed: true)?.0.path
        let answer = found != nil && found != pending.usedFile
        covered[pending] = answer
        return answer
    }

    /// Records the output just written to `target` for `relative`, with its report's images
    /// left without lines (``pendingImages(_:)``; none for a report written as it came).
    func written(relative: String, target: String, pending: [UpdateRecord.PendingImage]) {
        guard let output = System.status(target) else {
            record.entries[relative] = nil
            return
        }
        record.entries[relative] = UpdateRecord.Entry(size: Int64(output.st_size), modified: System.times(of: output).modified,
                                                      pending: pending)
    }

    /// Forgets the output of `relative` (not written this time): the next run does it again.
    func notWritten(relative: String) {
        record.entries[relative] = nil
    }

    /// The images of a report with frames that no debug file resolved with lines: none was
    /// found, or the one found gave no lines (``SymbolicatedReport/unresolvedImages``).
    static func pendingImages(_ symbolicated: SymbolicatedReport) -> [UpdateRecord.PendingImage] {
        let report = symbolicated.report
        var framed = Set<Int>()
        for thread in report.threads {
            for frame in thread.frames { if let i = frame.image, report.images.indices.contains(i) { framed.insert(i) } }
        }
        return framed.sorted().compactMap { i in
            let used = symbolicated.debugFiles[i]
            guard used == nil || symbolicated.unresolvedImages[i] != nil else { return nil }
            let image = report.images[i]
            return UpdateRecord.PendingImage(identifier: image.uuid ?? "",
                                             arch: Symbolicator.architecture(of: image, in: report, debugFile: nil)?.name ?? "",
                                             isELF: image.format == .elf, path: image.path ?? "", name: image.name,
                                             usedFile: used ?? "")
        }
    }

    /// Writes the record next to the outputs, atomically.
    func save() throws {
        try AtomicFile.write(record.serialized(), to: Path.join(folder, UpdateRecord.fileName), permissionsFrom: nil, below: nil)
    }

    /// The summary's line: how many reports were written again, and why.
    var summary: String {
        let done = counts.values.reduce(0, +)
        let why = Reason.allCases.compactMap { reason in counts[reason].map { "\($0) \(reason.rawValue)" } }
        return "updated \(done) of \(done + upToDate) outputs" + (why.isEmpty ? "" : " (" + why.joined(separator: ", ") + ")")
            + ", \(upToDate) up to date"
    }
}
