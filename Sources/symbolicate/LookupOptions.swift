import ArgumentParser

/// The flags both commands take: how names and paths are printed, and whether the caches
/// under ~/.cache/symbolicate are used.
struct LookupOptions: ParsableArguments {
    @Flag(help: "Print full source paths instead of file names.")
    var fullPath = false

    @Flag(help: "Print mangled names as they are.")
    var noDemangle = false

    @Flag(help: "Do not read or write the caches in ~/.cache/symbolicate (debug-file identities, indexes).")
    var noCache = false
}
