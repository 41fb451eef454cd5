import CrashReport
import Symbolication

/// A ``DestroyedStack/Namer`` that asks a symbolicator: the addresses become the frames of
/// one made-up thread of the report (the pc a faulting address, lr a return address, looked up
/// at its call site), which the symbolicator resolves with the debug files it has for the
/// report's images.
public enum SymbolicatorNamer {
    /// The namer of `symbolicator`.
    public static func namer(_ symbolicator: Symbolicator) -> DestroyedStack.Namer {
        { report, addresses in
            var frames = FrameList()
            for (i, place) in addresses.enumerated() {
                let image = report.image(containing: place.address)
                let load = image.map { report.images[$0].loadAddress } ?? 0
                frames.append(Frame(index: i, imageName: image.map { report.images[$0].name }, address: place.address,
                                    form: .unsymbolicated(loadAddress: load, offset: place.address &- load), image: image,
                                    line: 0, restStart: nil, returnAddress: place.isReturn))
            }
            var registers = report
            registers.threads = [Backtrace(kind: .thread(0), crashed: true, frames: frames)]
            let resolved = symbolicator.symbolicate(registers)
            return addresses.indices.map { resolved.frames[FrameKey(thread: 0, frame: $0)]?.first?.function }
        }
    }
}
