import CrashReport
import Platform

/// The counts a run keeps of its reports, and the summary it prints of them.
extension ReportRunner {
    /// Counts over reports: frames resolved or not, and the app images left without file and
    /// line, each with why and the frames it left so.
    struct Tally {
        var reports = 0
        var frames = 0
        var resolved = 0
        /// Frames by image left without file and line, for the summary's list: at most
        /// ``missingKept`` images (a batch of reports strangers made can name a new image in
        /// every frame line); past that, new images are only said to be there.
        var missing: [MissingImage: Int] = [:]
        /// Whether an image was left out of `missing`, which was full.
        var missingPassedOver = false
        static let missingKept = 1 << 16
        /// The debug files the reports lacked, when they are listed (`--missing`).
        var needed = MissingDebugFiles()

        struct MissingImage: Hashable {
            var name: String
            var identifier: String
            var arch: String
            var reason: String
        }

        init(reports: Int = 0) { self.reports = reports }

        init(_ symbolicated: SymbolicatedReport, listingMissing: Bool) {
            reports = 1
            if listingMissing { needed = MissingDebugFiles(symbolicated) }
            let report = symbolicated.report
            // Counted per image index first: an image's name, identifier and reason are made
            // once per report, not once per frame.
            var unresolved = [Int](repeating: 0, count: symbolicated.unresolvedImages.isEmpty ? 0 : report.images.count)
            for (t, thread) in report.threads.enumerated() {
                for (f, frame) in thread.frames.enumerated() where !frame.inlined {
                    frames += 1
                    let resolution = symbolicated.frames[FrameKey(thread: t, frame: f)] ?? []
                    if !resolution.isEmpty { resolved += 1 }
                    guard let i = frame.image, unresolved.indices.contains(i), symbolicated.unresolvedImages[i] != nil,
                          resolution.allSatisfy({ ($0.line ?? 0) == 0 })
                    else { continue }
                    unresolved[i] += 1
                }
            }
            for (i, count) in unresolved.enumerated() where count > 0 {
                // System images in none of the caches given were said once per OS build already.
                guard let why = symbolicated.unresolvedImages[i], why.reason != MissReason.otherOSBuildCode else { continue }
                let image = report.images[i]
                let arch = Symbolicator.architecture(of: image, in: report, debugFile: nil)?.name ?? "?"
                let identifier = image.identity?.spelled ?? "no UUID"
                addMissing(MissingImage(name: image.name, identifier: identifier, arch: arch, reason: why.message), count)
            }
        }

        /// Counts `count` frames of `image`, unless `missing` is full and does not hold it.
        private mutating func addMissing(_ image: MissingImage, _ count: Int) {
            if let known = missing[image] {
                missing[image] = known + count
            } else if missing.count < Self.missingKept {
                missing[image] = count
            } else {
                missingPassedOver = true
            }
        }

        mutating func add(_ other: Tally) {
            reports += other.reports
            frames += other.frames
            resolved += other.resolved
            for (image, count) in other.missing { addMissing(image, count) }
            missingPassedOver = missingPassedOver || other.missingPassedOver
            needed.add(other.needed)
        }
    }

    /// Which of the report's images are the app's (``Symbolicator/isAppImage(_:processPath:hasDebugFile:)``),
    /// for marking its resolved frames: only images with a debug file have any, so only those
    /// are looked at.
    static func marks(for symbolicated: SymbolicatedReport) -> TerminalMarks {
        let report = symbolicated.report
        var appImages = [Bool](repeating: false, count: report.images.count)
        let processPath = symbolicated.debugFiles.isEmpty ? nil : report.header.first { $0.key == "Path" }?.value
        for i in symbolicated.debugFiles.keys where appImages.indices.contains(i) {
            appImages[i] = Symbolicator.isAppImage(report.images[i], processPath: processPath, hasDebugFile: true)
        }
        return TerminalMarks(appImages: appImages)
    }

    /// The summary on stderr: counts, then the app images without a debug file. With
    /// `markSummary`, the unresolved count (when not 0) and the image lines are in red.
    func printSummary(_ tally: Tally, reports: Int) {
        let unresolved = tally.frames - tally.resolved
        let problem = options.markSummary ? "\(TerminalMarks.problem)" : "", reset = options.markSummary ? "\(TerminalMarks.reset)" : ""
        func marked(_ text: String) -> String { problem.isEmpty ? text : problem + OutputEscaping.escaped(text) + reset }
        var lines = ["\(reports) report\(reports == 1 ? "" : "s"), \(tally.frames) frames: \(tally.resolved) resolved, "
                     + (unresolved > 0 ? marked("\(unresolved) unresolved") : "0 unresolved")]
        if !tally.missing.isEmpty {
            let costly = tally.missing.sorted { ($0.value, $1.key.name) > ($1.value, $0.key.name) }
            lines.append(marked("app images left without file and line (frames, why):"))
            for (image, count) in costly.prefix(20) {
                lines.append(marked("  \(image.identifier) \(image.arch) \(image.name): \(count): \(image.reason)"))
            }
            if tally.missingPassedOver {
                lines.append(marked("  ... and more than \(costly.count - 20) more"))
            } else if costly.count > 20 {
                lines.append(marked("  ... and \(costly.count - 20) more"))
            }
        }
        if options.markSummary {
            diagnostics.sayEscaped(lines)
        } else {
            diagnostics.say(lines)
        }
    }
}
