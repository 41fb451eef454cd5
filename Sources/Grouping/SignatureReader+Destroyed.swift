import CrashReport
import Platform
import Symbolication

extension SignatureReader {
    /// The index of the thread the report says crashed (not the first thread's stand-in),
    /// frames or not.
    static func crashedThread(_ report: CrashReport) -> Int? {
        let threads = report.threads
        if let crashed = threads.indices.first(where: { threads[$0].crashed }) { return crashed }
        guard let number = report.crashedThread else { return nil }
        return threads.indices.first { threads[$0].kind == .thread(number) }
    }

    /// Whether thread `t` may have a destroyed stack, from what costs nothing to read: 0–1
    /// frames, frame 0 in no image or at the faulting address, or a `__stack_chk_fail` near
    /// the top as the report names it.
    static func mayBeDestroyed(_ report: CrashReport, thread t: Int, symbolicated: SymbolicatedReport,
                               fault: UInt64?) -> Bool {
        let frames = report.threads[t].frames
        guard frames.count > 1 else { return true }
        let top = frames[0]
        if top.image == nil || report.images[top.image!].isPlaceholder { return true }
        if let fault, fault != 0, top.address == fault { return true }
        for (f, frame) in frames.prefix(16).enumerated() {
            let name: String?
            switch frame.form {
            case .symbol(let symbol, _), .symbolicated(let symbol, _, _, _): name = symbol
            default: name = symbolicated.frames[FrameKey(thread: t, frame: f)]?.last?.function
            }
            if let name, name.contains("stack_chk_fail") { return true }
        }
        return false
    }

    /// The signature of a report whose crashed thread `t` has a destroyed stack
    /// (``DestroyedStack``), with the thread's frames (the one that decides marked); nil when
    /// its stack is whole.
    static func destroyedSignature(_ report: CrashReport, thread t: Int, symbolicated: SymbolicatedReport,
                                   kind: String?, fault headerFault: UInt64?, inApp: (Int?) -> Bool,
                                   namer: DestroyedStack.Namer?) -> (CrashSignature, [ExampleFrame])? {
        var frames = self.frames(of: t, in: symbolicated, inApp: inApp, systemNames: true)
        var registers: [String: UInt64]?
        func readRegisters() -> [String: UInt64] {
            if let registers { return registers }
            var number: Int?
            if case .thread(let n) = report.threads[t].kind { number = n }
            let read = DestroyedStack.registers(of: report, thread: number)
            registers = read
            return read
        }
        let fault = headerFault ?? DestroyedStack.faultAddress(of: report, registers: readRegisters())
        guard let below = DestroyedStack.firstFrameBelowDamage(frames, frameCount: report.threads[t].frames.count,
                                                               fault: fault) else { return nil }
        // 1. The first app frame below the damage.
        for i in below..<frames.count where !frames[i].handler && frames[i].inApp {
            let name = frames[i].function.map(FunctionName.normalized)
                ?? (frames[i].signatureImage ?? frames[i].image) + "+0x" + String(frames[i].imageOffset ?? frames[i].address, radix: 16)
            if frames[i].function != nil && (name.isEmpty || SignatureRules.isSkipped(name)) { continue }
            frames[i].signatureName = name
            frames[i].inSignature = true
            return (CrashSignature(kind: kind, frames: [name], source: .destroyedStack), frames)
        }
        // 2. The registers that point into app code, then 3. the faulting address.
        let state = readRegisters()
        var places: [(address: UInt64, isReturn: Bool, image: Int)] = []
        for (name, isReturn) in [("pc", false), ("rip", false), ("lr", true)] {
            if let value = state[name], let image = appImage(holding: value, in: report, inApp: inApp) {
                places.append((image.address, isReturn, image.index))
            }
        }
        if let fault, let image = appImage(holding: fault, in: report, inApp: inApp) {
            places.append((image.address, false, image.index))
        }
        if !places.isEmpty {
            let names = namer?(report, places.map { ($0.address, $0.isReturn) }) ?? []
            for (k, place) in places.enumerated() {
                var name = k < names.count ? names[k].map(FunctionName.normalized) : nil
                if let known = name, known.isEmpty || SignatureRules.isSkipped(known) { continue }
                if name == nil {
                    let image = report.images[place.image]
                    name = Path.lastComponent(image.path ?? image.name) + "+0x" + String(place.address - image.loadAddress, radix: 16)
                }
                return (CrashSignature(kind: kind, frames: [name!], source: .destroyedStack), frames)
            }
        }
        // 4. Nothing remains.
        return (CrashSignature(kind: kind, frames: [], reason: reason(report), source: .destroyedStack), frames)
    }

    /// The app image holding `address`, with the address as it holds it: an arm64e register
    /// may carry pointer-authentication bits above the address, stripped to iOS's 36 or
    /// macOS's 47 bits. A placeholder (an `.ips` file's `source: A` entry, which holds every
    /// address) holds nothing: the bits are stripped all the same.
    static func appImage(holding address: UInt64, in report: CrashReport, inApp: (Int?) -> Bool)
        -> (index: Int, address: UInt64)? {
        for candidate in [address, address & 0xF_FFFF_FFFF, address & 0x7FFF_FFFF_FFFF] {
            if let image = report.image(containing: candidate), !report.images[image].isPlaceholder {
                return inApp(image) ? (image, candidate) : nil
            }
        }
        return nil
    }
}
