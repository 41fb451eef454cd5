/// The rules that say which frames of a crashed thread make its signature, kept in one place:
/// `symbolicate help group` and docs/grouping.md repeat them. Which images are the app's is
/// `Symbolicator.isAppImage(_:processPath:hasDebugFile:)`, the rule that also sets the app's
/// frames in bold and chooses the images the summary names.
public enum SignatureRules {
    /// How many app frames make a signature: enough to tell two paths into one function apart
    /// (a null dereference reached from two callers is two bugs), few enough that a change far
    /// down the stack (a new caller of the caller) does not split a group.
    public static let depth = 3

    /// Functions that are where a crash is reported, not where it happened: the frames that
    /// throw, abort, trap or report a failure, whichever image they are in (a static build has
    /// the Swift runtime or libc++abi inside the app). Compared with the normalized name
    /// (``FunctionName``), with and without a `Swift.` or `std::` module prefix.
    public static let skippedFunctions: Set<String> = [
        // C and POSIX: abort and the signal it sends.
        "abort", "__abort", "raise", "gsignal", "__GI_raise", "__GI_abort", "pthread_kill", "__pthread_kill",
        "__pthread_kill_implementation", "__pthread_kill_internal", "__assert_rtn", "__assert_fail",
        "__assert_fail_base", "__assert", "_assert", "__stack_chk_fail", "__chk_fail", "__fortify_fail",
        "abort_message", "_os_crash", "_os_crash_fmt", "__libc_message", "__libc_fatal", "malloc_printerr",
        // Objective-C exceptions.
        "objc_exception_throw", "objc_exception_rethrow", "_objc_terminate", "objc_terminate",
        "__exceptionPreprocess", "-[NSException raise]", "+[NSException raise:format:]",
        "+[NSException raise:format:arguments:]", "_CFThrowFormattedException",
        // C++ exceptions and terminate.
        "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast", "__cxa_bad_typeid", "__cxa_throw_bad_array_new_length",
        "terminate", "__terminate", "__cxxabiv1::__terminate", "demangling_terminate_handler",
        "__cxa_pure_virtual", "__cxa_deleted_virtual", "__throw_length_error", "__throw_out_of_range",
        "__throw_out_of_range_fmt", "__throw_bad_alloc", "__throw_logic_error", "__throw_invalid_argument",
        // Swift runtime failures.
        "_assertionFailure", "fatalError", "preconditionFailure", "assertionFailure", "precondition",
        "_fatalErrorMessage", "_preconditionFailure", "_unimplementedInitializer", "swift_unexpectedError",
        "swift_errorInMain", "swift_deletedMethodError", "swift_dynamicCastFailure",
        "swift::fatalError", "swift::fatalErrorv", "swift::swift_dynamicCastFailure", "swift_abortRetainUnowned",
        "swift::swift_abortRetainUnowned", "swift_abortRetainOverflow", "swift_task_reportUnexpectedExecutor",
        "_swift_stdlib_reportFatalError", "_swift_stdlib_reportFatalErrorInFile", "swift_reportError",
        // Rust panics.
        "rust_panic", "__rust_start_panic", "rust_begin_unwind",
    ]

    /// Name prefixes of frames skipped like ``skippedFunctions``: the inlined frame Swift 5.9+
    /// puts at a trap (`Swift runtime failure: Unexpectedly found nil…`), and Rust's panic
    /// machinery.
    public static let skippedPrefixes = [
        "Swift runtime failure:", "core::panicking::", "std::panicking::", "core::panic::", "std::sys::",
        "__sanitizer::", "__asan::", "__tsan::", "__ubsan::", "__interceptor_",
    ]

    /// Whether the frame named `name` (normalized) is skipped.
    public static func isSkipped(_ name: String) -> Bool {
        if skippedFunctions.contains(name) { return true }
        for prefix in ["Swift.", "std::", "__1::", "std::__1::", "std::__2::"] where name.hasPrefix(prefix) {
            if skippedFunctions.contains(String(name.dropFirst(prefix.count))) { return true }
        }
        return skippedPrefixes.contains(where: name.hasPrefix)
    }

    /// Whether an image at `path` is part of the iOS simulator's runtime or of Xcode, whose
    /// frames are system frames although their paths are inside an `.app` or under a user's
    /// Library: `…/iPhoneSimulator.platform/…`, `…/RuntimeRoot/System/…`, `….simruntime/…`,
    /// `/Library/Developer/CoreSimulator/Volumes|Profiles/…`, `…/Xcode.app/Contents/Developer/…`.
    /// An app run in the simulator (`…/CoreSimulator/Devices/…/Bundle/Application/…`) is not.
    public static func isSimulatorRuntime(_ path: String) -> Bool {
        guard path.utf8.first == UInt8(ascii: "/") else { return false }
        for marker in simulatorMarkers where path.contains(marker) { return true }
        if let xcode = path.firstRange(of: "/Xcode"), path[xcode.upperBound...].contains(".app/Contents/Developer/") { return true }
        return false
    }

    private static let simulatorMarkers = [
        "Simulator.platform/", "/RuntimeRoot/", ".simruntime/", "/Library/Developer/CoreSimulator/Volumes/",
        "/Library/Developer/CoreSimulator/Profiles/", "/Library/Developer/CoreSimulator/Cryptex/",
    ]
}
