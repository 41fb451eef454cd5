/// Why an app image's frames were left without file and line: said once per image on stderr,
/// counted in the summary, and given in JSON output as the image's `unresolved` member.
///
/// The symbolicator fills it in (see `MissReason` in the Symbolication module); renderers
/// only print it.
public struct UnresolvedImage: Sendable, Hashable {
    /// A stable word for the reason, for programs: `no_file`, `no_identifier`, `other_uuid`,
    /// `other_arch`, `symbol_table_only`, `no_debug_info`, `damaged`, `partly_damaged`, `contradicted`,
    /// `unusable_server_file` or `other_os_build`.
    public var reason: String
    /// The reason in words, naming what the user can act on (a file and its UUID, say).
    public var message: String
    /// The file the reason is about, if any: one named like the image, or the one matched.
    public var file: String?
    /// That file's UUID or build-id, when it has one and it is not the image's.
    public var fileIdentifier: String?
    /// That file's architectures, when they matter (another UUID, another architecture).
    public var fileArchitectures: [String]

    /// A reason from its parts.
    public init(reason: String, message: String, file: String? = nil, fileIdentifier: String? = nil,
                fileArchitectures: [String] = []) {
        self.reason = reason
        self.message = message
        self.file = file
        self.fileIdentifier = fileIdentifier
        self.fileArchitectures = fileArchitectures
    }
}
