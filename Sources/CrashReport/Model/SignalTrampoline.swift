/// The functions a kernel returns through from a signal handler. In a backtrace, the frame
/// after one is the instruction the signal interrupted — a PC, not a return address.
public enum SignalTrampoline {
    /// Their C names: Linux (glibc, the vDSO, musl) and Apple (`_sigtramp`).
    public static let names: Set<String> = [
        "__restore_rt", "__restore", "__kernel_rt_sigreturn", "__kernel_sigreturn", "__vdso_rt_sigreturn",
        "__sigreturn", "sigreturn", "__default_rt_sa_restorer", "__default_sa_restorer", "_sigtramp",
    ]
}
