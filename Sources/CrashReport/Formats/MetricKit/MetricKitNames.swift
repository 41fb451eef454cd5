/// The names MetricKit's numbers and keys stand for, for the text a payload is translated to.
enum MetricKitNames {
    /// The heading of a diagnostic of the array `kind` (`crashDiagnostics` → "Crash Diagnostic").
    static func title(ofKind kind: String) -> String {
        switch kind {
        case "": return "Diagnostic"
        case "crashDiagnostics": return "Crash Diagnostic"
        case "hangDiagnostics": return "Hang Diagnostic"
        case "cpuExceptionDiagnostics": return "CPU Exception Diagnostic"
        case "diskWriteExceptionDiagnostics": return "Disk Write Exception Diagnostic"
        case "appLaunchDiagnostics": return "App Launch Diagnostic"
        case "memoryExceptionDiagnostics": return "Memory Exception Diagnostic"
        default: return "Diagnostic (" + kind + ")"
        }
    }

    /// The name of a metadata value where MetricKit gives a number: `exceptionType` (a Mach
    /// exception, `<mach/exception_types.h>`) and `signal` (a Darwin signal number).
    static func valueName(key: String, value: Int?) -> String? {
        guard let value else { return nil }
        switch key {
        case "exceptionType", "diagnosticMetaData.exceptionType":
            return exceptions.indices.contains(value) && !exceptions[value].isEmpty ? exceptions[value] : nil
        case "signal", "diagnosticMetaData.signal":
            return signals.indices.contains(value) && !signals[value].isEmpty ? signals[value] : nil
        default:
            return nil
        }
    }

    private static let exceptions = [
        "", "EXC_BAD_ACCESS", "EXC_BAD_INSTRUCTION", "EXC_ARITHMETIC", "EXC_EMULATION", "EXC_SOFTWARE",
        "EXC_BREAKPOINT", "EXC_SYSCALL", "EXC_MACH_SYSCALL", "EXC_RPC_ALERT", "EXC_CRASH", "EXC_RESOURCE",
        "EXC_GUARD", "EXC_CORPSE_NOTIFY",
    ]

    private static let signals = [
        "", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGEMT", "SIGFPE", "SIGKILL", "SIGBUS",
        "SIGSEGV", "SIGSYS", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGURG", "SIGSTOP", "SIGTSTP", "SIGCONT", "SIGCHLD",
        "SIGTTIN", "SIGTTOU", "SIGIO", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGINFO",
        "SIGUSR1", "SIGUSR2",
    ]

    /// The report's Code Type for MetricKit's `platformArchitecture`, so that frames are looked
    /// up as the architecture's return addresses: "arm64e" → "ARM-64".
    static func codeType(ofArchitecture arch: String) -> String? {
        let lower = arch.lowercased()
        if lower.hasPrefix("arm64") { return "ARM-64" }
        if lower.hasPrefix("x86_64") || lower.hasPrefix("x86-64") { return "X86-64" }
        if lower.hasPrefix("arm") { return "ARM" }
        if lower.hasPrefix("i386") || lower == "x86" { return "X86" }
        return nil
    }
}
