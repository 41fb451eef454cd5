import Foundation
import TestSupport
import XCTest

/// `make install`, `make uninstall` and `make deb` as a user runs them: the release program
/// (one build, reused: `make check` builds it first, and every `make` here finds it up to date),
/// installed under a temporary PREFIX, staged under a DESTDIR, or packaged and installed into a
/// throwaway dpkg root; then the installed program is run on the bundled example and compared
/// with the program under test, the manual page is rendered with `man`, and the completion
/// scripts are loaded by the shells. Tests whose tools are missing skip saying which.
final class InstallTests: XCTestCase {
    /// The files `make install` puts under PREFIX.
    static let installedFiles = [
        "bin/symbolicate",
        "share/man/man1/symbolicate.1",
        "share/bash-completion/completions/symbolicate",
        "share/zsh/site-functions/_symbolicate",
        "share/fish/vendor_completions.d/symbolicate.fish",
    ]

    func testMakeInstallIntoAPrefixAndUninstall() throws {
        try Packaging.requireTools(["make", "python3", "install"])
        let prefix = try makeTemporaryDirectory("install-prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        // A file of someone else's in the same folders: uninstall must leave it.
        let other = prefix.appendingPathComponent("bin/other-tool")
        try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(to: other, atomically: true, encoding: .utf8)

        try Packaging.make(["install", "PREFIX=\(prefix.path)"])
        XCTAssertEqual(Packaging.files(under: prefix), Set(Self.installedFiles + ["bin/other-tool"]))
        let binary = prefix.appendingPathComponent("bin/symbolicate").path
        try Packaging.checkProgram(binary)
        try Packaging.checkManualPage(prefix.appendingPathComponent("share/man/man1/symbolicate.1").path, program: binary)
        try Packaging.checkCompletions(bash: prefix.appendingPathComponent("share/bash-completion/completions/symbolicate").path,
                                       zsh: prefix.appendingPathComponent("share/zsh/site-functions/_symbolicate").path,
                                       fish: prefix.appendingPathComponent("share/fish/vendor_completions.d/symbolicate.fish").path,
                                       program: binary)

        try Packaging.make(["uninstall", "PREFIX=\(prefix.path)"])
        XCTAssertEqual(Packaging.files(under: prefix), ["bin/other-tool"], "make uninstall removes exactly what make install installed")
    }

    /// DESTDIR stages the files under itself, for the PREFIX they will have when copied into place.
    func testMakeInstallStagesUnderDestdir() throws {
        try Packaging.requireTools(["make", "python3", "install"])
        let stage = try makeTemporaryDirectory("install-destdir")
        defer { try? FileManager.default.removeItem(at: stage) }
        try Packaging.make(["install", "DESTDIR=\(stage.path)", "PREFIX=/opt/symbolicate"])
        XCTAssertEqual(Packaging.files(under: stage), Set(Self.installedFiles.map { "opt/symbolicate/" + $0 }))
        try Packaging.checkProgram(stage.appendingPathComponent("opt/symbolicate/bin/symbolicate").path)
        try Packaging.make(["uninstall", "DESTDIR=\(stage.path)", "PREFIX=/opt/symbolicate"])
        XCTAssertEqual(Packaging.files(under: stage), [])
    }

    /// `make deb`: the package's fields and files; Depends covering every shared library the
    /// program loads, each satisfied here; the package installed into a throwaway dpkg root,
    /// run there, removed; and lintian's verdict.
    ///
    /// The maintainer is named (DEB_MAINTAINER): by default the package takes git's user.name
    /// and user.email, which are whoever runs the tests' (none on a machine without a git
    /// identity, and lintian then finds the placeholder address an error).
    func testDebianPackage() throws {
        try Packaging.requireTools(["make", "python3", "dpkg", "dpkg-deb", "dpkg-shlibdeps", "readelf"])
        let maintainer = "symbolicate tests <tests@symbolicate.example>"
        let made = try Packaging.make(["deb", "DEB_MAINTAINER=\(maintainer)"])
        guard let package = made.stdoutText.split(separator: "\n").last.map(String.init), package.hasSuffix(".deb"),
              FileManager.default.fileExists(atPath: package)
        else { return XCTFail("make deb named no package:\n\(made.stdoutText)") }

        func field(_ name: String) throws -> String {
            try Packaging.run("dpkg-deb", ["--field", package, name]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try field("Package"), "symbolicate")
        XCTAssertEqual(try field("Maintainer"), maintainer)
        XCTAssertEqual(try field("Architecture"),
                       try Packaging.run("dpkg", ["--print-architecture"]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        let contents = try Packaging.run("dpkg-deb", ["--contents", package]).stdoutText
        for path in ["./usr/bin/symbolicate", "./usr/share/man/man1/symbolicate.1.gz",
                     "./usr/share/bash-completion/completions/symbolicate", "./usr/share/zsh/vendor-completions/_symbolicate",
                     "./usr/share/fish/vendor_completions.d/symbolicate.fish", "./usr/share/doc/symbolicate/copyright",
                     "./usr/share/doc/symbolicate/changelog.gz"] {
            XCTAssertTrue(contents.contains(" \(path)\n"), "the package has no \(path):\n\(contents)")
        }

        // Installed into a root of its own: the dependencies are this machine's (checked below).
        let root = try makeTemporaryDirectory("deb-root")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        FileManager.default.createFile(atPath: root.appendingPathComponent("var/lib/dpkg/status").path, contents: nil)
        let installed = try Packaging.run("dpkg", ["--root=\(root.path)", "--force-depends", "--install", package])
        XCTAssertEqual(installed.status, 0, installed.stderrText)
        let binary = root.appendingPathComponent("usr/bin/symbolicate").path
        let version = try Packaging.checkProgram(binary)
        XCTAssertEqual(try field("Version"), version.number, "the package's version is the program's")
        try Packaging.checkManualPage(root.appendingPathComponent("usr/share/man/man1/symbolicate.1.gz").path, program: binary)
        try checkDepends(try field("Depends"), binary: binary)

        let removed = try Packaging.run("dpkg", ["--root=\(root.path)", "--remove", "symbolicate"])
        XCTAssertEqual(removed.status, 0, removed.stderrText)
        XCTAssertEqual(Packaging.files(under: root.appendingPathComponent("usr")), [], "dpkg --remove leaves files behind")

        guard let lintian = Packaging.which("lintian") else {
            print("InstallTests: lintian is not installed (make setup-test installs it): the package is not checked by it")
            return
        }
        let verdict = try Packaging.run(lintian, ["--pedantic", "--display-info", package])
        let tags = verdict.stdoutText.split(separator: "\n").map(String.init)
        print("InstallTests: lintian --pedantic --display-info \(package):\n" + (tags.isEmpty ? "(no tags)" : tags.joined(separator: "\n")))
        XCTAssertEqual(tags.filter { $0.hasPrefix("E:") }, [], "lintian finds errors")
    }

    /// Every shared library the packaged program loads belongs to a package Depends names, and
    /// every package Depends names is installed here in a version it accepts.
    private func checkDepends(_ depends: String, binary: String) throws {
        var required: [String: (String, String)?] = [:]  // package: (relation, version)
        for clause in depends.split(separator: ",") {
            let words = clause.trimmingCharacters(in: .whitespaces)
                .replacingOccurrences(of: "(", with: " ").replacingOccurrences(of: ")", with: " ")
                .split(separator: " ").map(String.init)
            guard let name = words.first else { continue }
            required[name] = words.count == 3 ? (words[1], words[2]) : nil
        }
        XCTAssertFalse(required.isEmpty, "Depends is empty")
        for (name, constraint) in required {
            let status = try Packaging.run("dpkg-query", ["--show", "--showformat=${Version}", name])
            XCTAssertEqual(status.status, 0, "Depends names \(name), which is not installed here")
            if let (relation, version) = constraint {
                let op = ["=": "eq", ">=": "ge", "<=": "le", ">>": "gt", "<<": "lt"][relation] ?? relation
                let compared = try Packaging.run("dpkg", ["--compare-versions", status.stdoutText, op, version])
                XCTAssertEqual(compared.status, 0, "\(name) \(status.stdoutText) here does not satisfy \(relation) \(version)")
            }
        }
        let needed = try Packaging.run("readelf", ["--dynamic", binary]).stdoutText.split(separator: "\n").compactMap { line in
            line.contains("(NEEDED)") ? line.split(separator: "[").last?.split(separator: "]").first.map(String.init) : nil
        }
        XCTAssertFalse(needed.isEmpty)
        XCTAssertFalse(needed.contains { $0.hasPrefix("libswift") || $0.hasPrefix("libFoundation") || $0.hasPrefix("libdispatch") },
                       "the Swift runtime is linked statically, not loaded: \(needed)")
        let loaded = try Packaging.run("/usr/bin/ldd", [binary]).stdoutText
        for library in needed {
            // "libz.so.1 => /lib/.../libz.so.1 (0x...)", or "/lib64/ld-linux-x86-64.so.2 (0x...)".
            guard let path = loaded.split(separator: "\n").first(where: { $0.contains(library) })?
                .split(whereSeparator: { $0 == " " || $0 == "\t" }).first(where: { $0.hasPrefix("/") }).map(String.init)
            else { XCTFail("ldd does not find \(library):\n\(loaded)"); continue }
            var owner = try Packaging.run("dpkg", ["--search", path])
            if owner.status != 0 {
                owner = try Packaging.run("dpkg", ["--search", URL(fileURLWithPath: path).resolvingSymlinksInPath().path])
            }
            let packages = owner.stdoutText.split(separator: ":").first.map { $0.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            } } ?? []
            XCTAssertTrue(packages.contains { required.keys.contains($0) },
                          "\(library) (\(path), package \(packages)) is not covered by Depends: \(depends)")
        }
    }
}

/// Running `make` and the tools around it for the packaging tests.
enum Packaging {
    /// Skips, naming the tools, when any is missing.
    static func requireTools(_ tools: [String]) throws {
        let missing = tools.filter { which($0) == nil }
        guard missing.isEmpty else {
            throw XCTSkip("not installed: \(missing.joined(separator: ", ")) (make setup-test installs them)")
        }
    }

    static func which(_ tool: String) -> String? {
        if tool.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `tool`, found on PATH, with the tests' environment.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], environment extra: [String: String] = [:],
                    input: Data? = nil) throws -> ProcessResult {
        guard let path = which(tool) else { throw XCTSkip("\(tool) is not installed") }
        var environment = CLI.environment
        environment.merge(extra) { $1 }
        return try runProcess(path, arguments, input: input, environment: environment)
    }

    /// `make ARGUMENTS` in the package root; fails the test when it fails. The release build
    /// runs with --ignore-lock: `swift test` holds the lock of .build while the tests run (and
    /// builds nothing then), and `make` finds the release build `make check` made up to date.
    @discardableResult
    static func make(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let started = Date()
        let result = try run("timeout", ["-k", "10", "3600", "make", "--no-print-directory", "-C", TestPaths.packageRoot.path]
                                 + arguments + ["SWIFT_BUILD_FLAGS=--ignore-lock"])
        print("InstallTests: make \(arguments.joined(separator: " ")): \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        guard result.status == 0 else {
            XCTFail("make \(arguments.joined(separator: " ")) exited \(result.status):\n\(result.stderrText.suffix(3000))",
                    file: file, line: line)
            throw FixtureError("make failed")
        }
        return result
    }

    /// The regular files and links under `folder`, as relative paths.
    static func files(under folder: URL) -> Set<String> {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: Set<String> = []
        while let relative = walker.nextObject() as? String {
            let attributes = walker.fileAttributes
            if attributes?[.type] as? FileAttributeType != .typeDirectory { found.insert(relative) }
        }
        return found
    }

    /// An installed program: `--version` says a version and the commit (this checkout's, when
    /// built from one), and it symbolicates the bundled example as the program under test does.
    @discardableResult
    static func checkProgram(_ binary: String, file: StaticString = #filePath, line: UInt = #line)
        throws -> (number: String, commit: String) {
        let version = try runProcess(binary, ["--version"])
        XCTAssertEqual(version.status, .success, file: file, line: line)
        let text = version.stdoutText.trimmingCharacters(in: .newlines)
        guard let match = text.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$"#,
                                     options: .regularExpression), match == text.startIndex..<text.endIndex
        else {
            XCTFail("--version says '\(text)', not 'VERSION (commit COMMIT)'", file: file, line: line)
            return ("", "")
        }
        let number = String(text.prefix { $0 != " " })
        let commit = String(text.split(separator: " ").last!.dropLast())
        let head = try runProcess("/usr/bin/git", ["-C", TestPaths.packageRoot.path, "rev-parse", "--short=12", "HEAD"])
        if head.status == 0 {
            XCTAssertEqual(commit.prefix(12), head.stdoutText.trimmingCharacters(in: .newlines).prefix(12),
                           "--version names the commit the program was built from", file: file, line: line)
        }

        let example = ["-d", try Fixtures.path("macho"), try Fixtures.path("reports/App-arm64.crash")]
        let installed = try runProcess(binary, example, environment: CLI.environment)
        let underTest = try CLI.run(example)
        XCTAssertEqual(installed.status, .success, installed.stderrText, file: file, line: line)
        XCTAssertEqual(installed.stdoutText, underTest.stdoutText, "the installed program symbolicates the example as the program under test",
                       file: file, line: line)
        XCTAssertTrue(installed.stdoutText.contains(" (parser.c:"), "the example's frames are resolved", file: file, line: line)
        return (number, commit)
    }

    /// The page renders without a warning from man or groff, has the sections a reader looks for,
    /// and names every option and subcommand the program declares and every variable its help
    /// names under ENVIRONMENT.
    static func checkManualPage(_ page: String, program: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try requireTools(["man"])
        let rendered = try run("man", ["-l", "-P", "cat", page], environment: ["MANWIDTH": "100", "MAN_KEEP_FORMATTING": ""])
        XCTAssertEqual(rendered.status, 0, rendered.stderrText, file: file, line: line)
        let warnings = try run("man", ["--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page])
        XCTAssertEqual(warnings.stderrText, "", "man --warnings (as lintian runs it) complains", file: file, line: line)
        // Without overstriking (bold, underline) and tabs, to compare text.
        let text = try run("col", ["-bx"], input: rendered.stdout).stdoutText
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headings = lines.filter { !$0.isEmpty && !$0.hasPrefix(" ") && $0.uppercased() == $0 }
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SUBCOMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"] {
            XCTAssertTrue(headings.contains(section), "no \(section) section in \(headings)", file: file, line: line)
        }

        let dump = try runProcess(program, ["--experimental-dump-help"])
        let command = try XCTUnwrap(try JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])["command"] as? [String: Any]
        func check(_ command: [String: Any]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["shouldDisplay"] as? Bool ?? true {
                for name in argument["names"] as? [[String: Any]] ?? [] {
                    guard let spelled = name["name"] as? String else { continue }
                    let option = (name["kind"] as? String == "long" ? "--" : "-") + spelled
                    XCTAssertTrue(text.contains(option), "the page does not name \(option)", file: file, line: line)
                }
            }
            for subcommand in command["subcommands"] as? [[String: Any]] ?? [] {
                if let name = subcommand["commandName"] as? String {
                    XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name) },
                                  "the page has no item for the subcommand \(name)", file: file, line: line)
                }
                check(subcommand)
            }
        }
        check(command ?? [:])

        let help = try runProcess(program, ["--help"]).stdoutText
        let variables = sectionTerms(help, "ENVIRONMENT")
        XCTAssertTrue(variables.isSuperset(of: ["SYMBOLICATE_PATH", "XDG_CACHE_HOME", "NO_COLOR"]), "--help's ENVIRONMENT: \(variables)",
                      file: file, line: line)
        let environment = lines.drop { $0 != "ENVIRONMENT" }.dropFirst().prefix { $0.isEmpty || $0.hasPrefix(" ") }
        for variable in variables {
            XCTAssertTrue(environment.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(variable) },
                          "the page's ENVIRONMENT does not name \(variable), which --help does", file: file, line: line)
        }
    }

    /// The terms of a `--help` section's entries (`  TERM  text`).
    static func sectionTerms(_ help: String, _ heading: String) -> Set<String> {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        let body = lines.drop { $0 != heading }.dropFirst().prefix { !$0.isEmpty }
        return Set(body.compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let gap = line.dropFirst(2).range(of: "  ") else { return nil }
            return String(line.dropFirst(2)[..<gap.lowerBound])
        })
    }

    /// bash loads its script and completes subcommands and option values from it; zsh and fish
    /// read theirs without a syntax error, where they are installed.
    static func checkCompletions(bash: String, zsh: String, fish: String, program: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let script = """
            source "$1" || exit 1
            complete -p symbolicate
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
                read -r -a COMP_WORDS <<< "$COMP_LINE"
                [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMPREPLY=()
                _symbolicate symbolicate "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                echo "$1|${COMPREPLY[*]}"
            }
            complete_line "symbolicate at"
            complete_line "symbolicate reports --co"
            complete_line "symbolicate reports --color "
            complete_line "symbolicate reports --format "
            """
        let result = try run("bash", ["--norc", "--noprofile", "-c", script, "bash", bash])
        XCTAssertEqual(result.status, 0, result.stderrText, file: file, line: line)
        XCTAssertEqual(result.stderrText, "", file: file, line: line)
        let out = result.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertTrue(out.first?.hasSuffix(" symbolicate") ?? false && out.first?.contains("-F _symbolicate") ?? false,
                      "complete -p: \(out.first ?? "")", file: file, line: line)
        let help = try runProcess(program, ["reports", "--help"]).stdoutText
        func values(_ option: String) -> [String] {
            // "(values: text, json, ...)" as --help lists them: the oracle for the completions.
            guard let at = help.range(of: "--\(option) <"), let list = help[at.upperBound...].range(of: "(values:") else { return [] }
            let rest = help[list.upperBound...].prefix { $0 != ")" && $0 != ";" }
            return rest.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        XCTAssertEqual(Array(out.dropFirst()), [
            "symbolicate at|atos",
            "symbolicate reports --co|--color",
            "symbolicate reports --color |" + values("color").joined(separator: " "),
            "symbolicate reports --format |" + values("format").joined(separator: " "),
        ], file: file, line: line)
        XCTAssertEqual(values("color"), ["auto", "always", "never"], file: file, line: line)

        for (shell, path) in [("zsh", zsh), ("fish", fish)] {
            guard which(shell) != nil else {
                print("InstallTests: \(shell) is not installed: its completion script is not checked")
                continue
            }
            let parsed = try run(shell, ["-n", path])
            XCTAssertEqual(parsed.status, 0, "\(shell) -n \(path): \(parsed.stderrText)", file: file, line: line)
        }
    }
}
