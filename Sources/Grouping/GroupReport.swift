import CrashReport
import Platform

/// The groups of a run written out: a table for people (at most 100 columns), TSV for
/// `cut` and `sort`, JSON for programs. Text from reports and debug files (function names,
/// paths, versions) is escaped as everywhere in the tool's text output (``OutputEscaping``).
public enum GroupReport {
    /// The widest line of the table.
    public static let width = 100

    /// The table:
    ///
    ///     3 groups in 7 reports
    ///
    ///       #  ID            REPORTS   SHARE  FIRST SEEN  LAST SEEN   EXCEPTION
    ///       1  5d8c7a0e21b4         5   71.4%  2021-03-14  2022-02-21  EXC_BAD_ACCESS (SIGSEGV)
    ///          load_word | payload_header | header_is_valid
    ///          app 1 (1.0), 2 (1.1) (first: 1 (1.0)); OS iPhone OS 14.4 (18D52)
    ///          e.g. crashes/a.crash, crashes/b.crash
    public static func table(_ table: GroupTable) -> [UInt8] {
        var lines: [String] = []
        let groups = table.sortedGroups
        var summary = "\(groups.count) group\(groups.count == 1 ? "" : "s") in \(table.reports) report\(table.reports == 1 ? "" : "s")"
        if table.unreadable > 0 { summary += " (\(table.unreadable) could not be read)" }
        lines.append(summary)
        guard !groups.isEmpty else { return bytes(lines) }
        lines.append("")
        let rankWidth = max(3, String(groups.count).count + 1)
        let countWidth = max(7, String(groups.first?.count ?? 0).count)
        lines.append(pad("#", rankWidth, right: true) + "  " + pad("ID", 12) + "  " + pad("REPORTS", countWidth, right: true)
                     + "   SHARE  FIRST SEEN  LAST SEEN   EXCEPTION")
        let indent = String(repeating: " ", count: rankWidth + 2)
        for (rank, group) in groups.enumerated() {
            let share = String(format1: group.share(of: table.reports)) + "%"
            var row = pad(String(rank + 1), rankWidth, right: true) + "  " + group.id + "  "
                + pad(String(group.count), countWidth, right: true) + "  " + pad(share, 6, right: true) + "  "
                + pad(group.firstSeen?.day ?? "-", 10) + "  " + pad(group.lastSeen?.day ?? "-", 10) + "  "
            row += group.exceptionTypes.values.isEmpty ? "-" : list(group.exceptionTypes)
            lines.append(row)
            lines.append(indent + escaped(group.signature.text))
            var versions = "app " + (group.appVersions.values.isEmpty ? "-" : list(group.appVersions))
            if let first = group.firstVersion, group.appVersions.values.count > 1 { versions += " (first: \(escaped(first)))" }
            versions += "; OS " + (group.osVersions.values.isEmpty ? "-" : list(group.osVersions))
            lines.append(indent + versions)
            lines.append(indent + "e.g. " + group.examples.map(escaped).joined(separator: ", "))
            if table.keepsMembers { lines += group.members.map { indent + "- " + escaped($0) } }
        }
        return bytes(lines.map { fitted($0) })
    }

    /// One tab-separated line per group after a header line: id, reports, share, kind,
    /// signature, exception types, first seen, last seen (UTC, ISO 8601), first version, app
    /// versions, OS versions, examples. Lists are separated by `, `.
    ///
    /// With ``GroupTable/keepsMembers`` (`--members`), one line per report instead: its
    /// group's id and its path, groups in the same order.
    public static func tsv(_ table: GroupTable) -> [UInt8] {
        if table.keepsMembers {
            var lines = ["id\tpath"]
            for group in table.sortedGroups { lines += group.members.map { group.id + "\t" + escaped($0) } }
            return bytes(lines)
        }
        var lines = ["id\treports\tshare\tkind\tsignature\texception_types\tfirst_seen\tlast_seen\tfirst_version\tapp_versions\tos_versions\texamples"]
        for group in table.sortedGroups {
            let fields = [
                group.id, String(group.count), String(format1: group.share(of: table.reports)),
                escaped(group.signature.kind ?? ""), escaped(group.signature.text), list(group.exceptionTypes),
                group.firstSeen?.iso8601 ?? "", group.lastSeen?.iso8601 ?? "", escaped(group.firstVersion ?? ""),
                list(group.appVersions), list(group.osVersions), group.examples.map(escaped).joined(separator: ", "),
            ]
            lines.append(fields.joined(separator: "\t"))
        }
        return bytes(lines)
    }

    /// One JSON document:
    ///
    ///     {"reports":7,"unreadable":0,"groups":[{"id":"5d8c7a0e21b4","reports":5,"share":71.4,
    ///       "signature":{"text":"load_word | payload_header | header_is_valid","kind":"bad access",
    ///                    "source":"app frames","frames":["load_word",...],"reason":null},
    ///       "exception_types":["EXC_BAD_ACCESS (SIGSEGV)"],"first_seen":"2021-03-14T08:26:53Z",
    ///       "last_seen":...,"first_version":"1 (1.0)","app_versions":[...],"os_versions":[...],
    ///       "more_versions":false,"examples":["a.crash",...],
    ///       "version_counts":[{"version":"1.0","reports":4},...],"day_counts":[{"day":"2021-03-14","reports":2},...],
    ///       "new_in":null}],"newest_version":"2.0"}
    ///
    /// With ``GroupTable/keepsMembers`` (`--members`) each group also has `"members"`: the path
    /// of every report. Versions are marketing versions (``AppVersion``), oldest first; reports
    /// without a version or date are not in the counts.
    public static func json(_ table: GroupTable) -> [UInt8] {
        var out = "{\"reports\":\(table.reports),\"unreadable\":\(table.unreadable),\"groups\":["
        for (i, group) in table.sortedGroups.enumerated() {
            if i > 0 { out += "," }
            let signature = group.signature
            out += "\n{\"id\":\(JSONText.string(group.id)),\"reports\":\(group.count),"
            out += "\"share\":\(String(format1: group.share(of: table.reports))),"
            out += "\"signature\":{\"text\":\(JSONText.string(signature.text)),\"kind\":\(JSONText.string(signature.kind)),"
            out += "\"source\":\(JSONText.string(signature.source.rawValue)),\"frames\":\(JSONText.array(signature.frames)),"
            out += "\"reason\":\(JSONText.string(signature.reason))},"
            out += "\"exception_types\":\(JSONText.array(group.exceptionTypes.values)),"
            out += "\"first_seen\":\(JSONText.string(group.firstSeen?.iso8601)),\"last_seen\":\(JSONText.string(group.lastSeen?.iso8601)),"
            out += "\"first_version\":\(JSONText.string(group.firstVersion)),"
            out += "\"app_versions\":\(JSONText.array(group.appVersions.values)),\"os_versions\":\(JSONText.array(group.osVersions.values)),"
            out += "\"more_versions\":\(group.appVersions.truncated || group.osVersions.truncated),"
            out += "\"examples\":\(JSONText.array(group.examples.map(FileName.replacingRawBytes))),"
            out += "\"version_counts\":[" + group.trend.versionCounts.map {
                "{\"version\":\(JSONText.string($0.version)),\"reports\":\($0.count)}"
            }.joined(separator: ",") + "],"
            out += "\"day_counts\":[" + group.trend.dayCounts.map { "{\"day\":\(JSONText.string($0.day)),\"reports\":\($0.count)}" }
                .joined(separator: ",") + "],"
            out += "\"new_in\":\(JSONText.string(table.isNewInNewestVersion(group) ? table.newestVersion : nil))"
            if table.keepsMembers { out += ",\"members\":\(JSONText.array(group.members.map(FileName.replacingRawBytes)))" }
            out += "}"
        }
        out += "],\"newest_version\":\(JSONText.string(table.newestVersion))}\n"
        return Array(out.utf8)
    }

    // MARK: Helpers

    private static func escaped(_ text: String) -> String { OutputEscaping.escaped(text) }

    private static func list(_ set: CappedSet) -> String {
        set.values.map(escaped).joined(separator: ", ") + (set.truncated ? ", ..." : "")
    }

    /// Lines joined with newlines, each spelled with the bytes the file system gave the paths in it.
    private static func bytes(_ lines: [String]) -> [UInt8] {
        FileName.bytes(lines.joined(separator: "\n") + "\n")
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    /// `line` cut to ``width`` characters, ending in `...` when cut.
    static func fitted(_ line: String) -> String {
        guard line.count > width else { return line }
        return String(line.prefix(width - 3)) + "..."
    }
}

extension String {
    /// `value` with one decimal: `71.4`.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}

/// JSON text for strings and arrays of strings.
enum JSONText {
    /// `text` as a JSON string (`null` for nil), escaped as every JSON output of the tool is
    /// (``JSONRenderer/appendString(_:to:)``).
    static func string(_ text: String?) -> String {
        var out: [UInt8] = []
        JSONRenderer.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `values` as a JSON array of strings.
    static func array(_ values: [String]) -> String {
        "[" + values.map { string($0) }.joined(separator: ",") + "]"
    }
}
