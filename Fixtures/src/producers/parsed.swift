// Swift without the standard library (-parse-stdlib), so that Apple targets compile on Linux
// without their SDK: the DWARF of a Swift unit for a dSYM (Fixtures/dsym_from_objects.py).
public struct CRLCrashSwift {
    @inline(never) public static func crash(_ pointer: Builtin.RawPointer) -> Builtin.Int64 {
        return Builtin.loadRaw(pointer)
    }
}

public func crashEntry(_ pointer: Builtin.RawPointer) -> Builtin.Int64 {
    return CRLCrashSwift.crash(pointer)
}
