/// What `symbolicate --version` prints: the version, and the commit the program was built from.
///
/// The version is kept here, and the Debian package (`make deb`) takes its version from this
/// line. The commit is known to builds made with `make`, which writes it, from
/// `git rev-parse`, to `BuildCommit.swift` (not kept in git) and compiles it with
/// `-DSYMBOLICATE_BUILD_COMMIT`; any other build (`swift build`, a tree outside git) says
/// `unknown`. A commit with changes not committed ends in `-dirty`.
enum Version {
    /// The version of the program and of its package.
    static let number = "0.1.0"

    /// `0.1.0 (commit 8002197abc12)`.
    static var description: String { "\(number) (commit \(buildCommit))" }
}

#if !SYMBOLICATE_BUILD_COMMIT
extension Version {
    /// The commit the program was built from: not known to this build.
    static let buildCommit = "unknown"
}
#endif
