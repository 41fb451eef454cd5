import Symbolication

/// The sections of the root command's help that are not options: `symbolicate --help` prints
/// them, and the manual page symbolicate(1) is made from that help (`make man`:
/// swift-argument-parser's generate-manual, then `packaging/manpage.py`, which turns each
/// section into a section of the page). So that the page can be made from them, they keep one
/// layout, each line under 80 columns:
///
/// - a heading in capitals alone on its line (`ENVIRONMENT`);
/// - entries indented two spaces: a term, two or more spaces, its text; the text goes on in
///   lines indented further;
/// - prose indented two spaces, with single spaces (in EXAMPLES, what an example does);
/// - commands indented four spaces after prose (in EXAMPLES, the example itself).
///
/// (EXIT STATUS is made by ``Symbolicate/exitStatusSection(_:closing:)``, from ``ExitStatus``.)
///
/// New environment variables and files go here, in the section they belong to.
extension Symbolicate {
    /// An EXIT STATUS section (of the root's help or of a subcommand's): each status, as
    /// ``ExitStatus`` numbers it, then what it means for the command, its lines after the first
    /// indented under the first; then `closing`, as prose.
    static func exitStatusSection(_ meanings: KeyValuePairs<ExitStatus, String>, closing: String? = nil) -> String {
        var lines = ["EXIT STATUS"]
        for (status, meaning) in meanings {
            let number = String(status.rawValue)
            let text = meaning.split(separator: "\n", omittingEmptySubsequences: false)
            lines.append("  " + number + String(repeating: " ", count: max(1, 4 - number.count)) + text[0])
            lines += text.dropFirst().map { "      " + $0 }
        }
        if let closing { lines.append("  " + closing) }
        return lines.joined(separator: "\n")
    }

    /// The variables the program reads.
    static let environment = """
        ENVIRONMENT
          SYMBOLICATE_PATH  Colon-separated folders and files searched for debug
                            files after the -d paths; those that do not exist
                            are passed over.
          DEBUGINFOD_URLS   Space-separated debuginfod servers asked for ELF
                            debug files by build-id (--debuginfod replaces it).
          XDG_CACHE_HOME    The caches are kept in $XDG_CACHE_HOME/symbolicate
                            when it is an absolute path, else in
                            $HOME/.cache/symbolicate.
          NO_COLOR          Any value but the empty one: output to a terminal is
                            not marked (--color auto); --color always still
                            marks it.
          TERM              dumb: as NO_COLOR.
        """

    /// The files the program reads and writes besides reports and debug files.
    static let files = """
        FILES
          ~/.cache/symbolicate/identities  The UUID or build-id of every file
                            found in the searched folders, with its size,
                            modification time and inode.
          ~/.cache/symbolicate/indexes/  The index built from each debug file
                            used, named after its identity; --no-cache neither
                            reads nor writes either.
          ~/.cache/symbolicate/downloads/  Debug files fetched from symbol and
                            debuginfod servers.
          /usr/lib/debug/.build-id/  Searched for ELF debug files by build-id
                            (Debian's -dbg and -dbgsym packages put them there).
        """

    /// Examples, for the root command's help and the manual page.
    static let examples = """
        EXAMPLES
          Symbolicate one crash report with the app's dSYM:
            symbolicate -d MyApp.app.dSYM MyApp-2026-11-20.crash
          Every report of a folder, one symbolicated file each in another folder:
            symbolicate -d ~/dSYMs/ -o symbolicated/ crashes/
          Reports listed by find, frames as tab-separated lines, counted by function:
            find crashes/ -name '*.ips' -print0 |
              symbolicate -d ~/dSYMs/ --reports-from - --format frames |
              cut -f6 | sort | uniq -c | sort -rn | head
          Which crashes matter: the folder's reports grouped by signature, and a
          page with a chart and an example of each group:
            symbolicate group -d ~/dSYMs/ --html crashes.html crashes/
          A Linux sanitizer log against the build folder:
            symbolicate -d build/ asan.log
          Look up an address as atos does, with its inlined frames:
            symbolicate atos -o MyApp.app.dSYM -l 0x104a30000 -i 0x104a3c5e0
          Read a long report a page at a time, the app's frames in bold:
            symbolicate --color always -d MyApp.app.dSYM MyApp.crash | less -R
        """
}
