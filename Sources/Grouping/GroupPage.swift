import CrashReport
import Platform

/// The groups of a run as one self-contained HTML page (`symbolicate group --html FILE`): its
/// styles and script are inline and it loads nothing, so it can be mailed, attached to a
/// ticket or opened offline. It shows a bar chart of the largest groups, then each group's
/// details, its reports per app version and per day (inline SVG charts), a "new in 2.3" mark
/// when all its reports come from the newest app version, and the resolved backtrace of its
/// first report, the frames that make the signature marked. A search box filters the groups by any text they show.
///
/// The page says in its own DOM whether its script ran and met errors: `<body data-ready="yes"
/// data-errors="0" data-shown="N">`, which a headless browser's dump of the page shows.
public enum GroupPage {
    /// How many groups the chart shows.
    public static let chartBars = 20

    /// The page for `table`.
    public static func render(_ table: GroupTable, title: String = "Crash groups") -> [UInt8] {
        let groups = table.sortedGroups
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)): \(groups.count) groups in \(table.reports) reports</title>
            <script>
            (function () {
              var errors = 0;
              function count() {
                errors += 1;
                if (document.body) document.body.setAttribute("data-errors", String(errors));
              }
              window.addEventListener("error", count);
              window.addEventListener("unhandledrejection", count);
              var original = console.error;
              console.error = function () { count(); return original.apply(console, arguments); };
              window.groupPageErrors = function () { return errors; };
            })();
            </script>
            <style>\(style)\(trendStyle)</style>
            </head>
            <body data-errors="0" data-ready="no" data-groups="\(groups.count)" data-reports="\(table.reports)">
            <header>
            <h1>\(escape(title))</h1>
            <p class="summary">\(summary(table, groups: groups.count))</p>
            </header>

            """
        if !groups.isEmpty {
            html += chart(Array(groups.prefix(chartBars)), total: table.reports)
            html += """
                <p class="filter"><label>Filter <input id="filter" type="search" placeholder="function, version, path, ID" autocomplete="off"></label>
                <span id="shown"></span></p>

                """
        }
        html += "<main id=\"groups\">\n"
        for (rank, group) in groups.enumerated() {
            html += section(group, rank: rank + 1, total: table.reports,
                            newIn: table.isNewInNewestVersion(group) ? table.newestVersion : nil)
        }
        html += "</main>\n<script>\(script)</script>\n</body>\n</html>\n"
        return Array(html.utf8)
    }

    private static func summary(_ table: GroupTable, groups: Int) -> String {
        var text = "\(groups) group\(groups == 1 ? "" : "s") in \(table.reports) report\(table.reports == 1 ? "" : "s")"
        if table.unreadable > 0 { text += "; \(table.unreadable) could not be read" }
        return text
    }

    // MARK: Chart

    /// A horizontal bar per group, longest first, each a link to its section.
    private static func chart(_ groups: [CrashGroup], total: Int) -> String {
        let rowHeight = 26, labelWidth = 430, barWidth = 380, top = 4
        let height = top * 2 + rowHeight * groups.count
        let largest = max(1, groups.map(\.count).max() ?? 1)
        var svg = """
            <section id="chart"><h2>Largest groups</h2>
            <svg role="img" aria-label="reports per group" width="\(labelWidth + barWidth + 120)" height="\(height)" \
            viewBox="0 0 \(labelWidth + barWidth + 120) \(height)" xmlns="http://www.w3.org/2000/svg">

            """
        for (i, group) in groups.enumerated() {
            let y = top + i * rowHeight
            let width = max(2, group.count * barWidth / largest)
            let label = "#\(i + 1) " + shortened(group.signature.text, 58)
            let kind = group.signature.source == .appFrames ? "app" : "other"
            svg += """
                <a href="#g-\(group.id)"><g class="bar \(kind)">\
                <title>\(escape(group.signature.text)): \(group.count) reports</title>\
                <text x="0" y="\(y + 17)" class="label">\(escape(label))</text>\
                <rect x="\(labelWidth)" y="\(y + 4)" width="\(width)" height="\(rowHeight - 8)" rx="3"></rect>\
                <text x="\(labelWidth + width + 6)" y="\(y + 17)" class="value">\(group.count) · \(String(format1: group.share(of: total)))%</text>\
                </g></a>

                """
        }
        return svg + "</svg></section>\n"
    }

    // MARK: Groups

    private static func section(_ group: CrashGroup, rank: Int, total: Int, newIn: String?) -> String {
        let signature = group.signature
        let mark = newIn.map { " <span class=\"new\" data-new-in=\"\(escape($0))\">new in \(escape($0))</span>" } ?? ""
        var html = """
            <section class="group" id="g-\(group.id)" data-id="\(group.id)" data-count="\(group.count)">
            <h2><span class="rank">#\(rank)</span> <code class="id">\(group.id)</code> <span class="signature">\(escape(signature.text))</span>\(mark)</h2>
            <dl>
            <dt>Reports</dt><dd>\(group.count) (\(String(format1: group.share(of: total)))%)</dd>
            <dt>Kind</dt><dd>\(escape(signature.kind ?? "unknown")), from \(escape(signature.source.rawValue))</dd>
            <dt>Exception</dt><dd>\(list(group.exceptionTypes))</dd>
            <dt>First seen</dt><dd>\(escape(group.firstSeen?.text ?? "-"))\(group.firstVersion.map { " in " + escape($0) } ?? "")</dd>
            <dt>Last seen</dt><dd>\(escape(group.lastSeen?.text ?? "-"))</dd>
            <dt>App versions</dt><dd>\(list(group.appVersions))</dd>
            <dt>OS versions</dt><dd>\(list(group.osVersions))</dd>
            <dt>Examples</dt><dd>\(group.examples.map { "<code>\(escape(FileName.replacingRawBytes($0)))</code>" }.joined(separator: "<br>"))</dd>
            </dl>

            """
        html += trend(group.trend)
        if let (path, thread) = group.example {
            html += """
                <details\(rank <= 3 ? " open" : "")><summary>\(escape(thread.name)) of <code>\(escape(FileName.replacingRawBytes(path)))</code></summary>
                <table class="frames"><thead><tr><th>#</th><th>image</th><th>address</th><th>function</th><th>file:line</th><th></th></tr></thead><tbody>

                """
            for frame in thread.frames {
                var classes: [String] = []
                if frame.inApp { classes.append("app") }
                if frame.inSignature { classes.append("signature") }
                if frame.handler { classes.append("handler") }
                let function = frame.function.map { escape($0) + (frame.offset.map { " + \($0)" } ?? "") }
                    ?? (frame.imageOffset.map { "\(escape(frame.image)) + \($0)" } ?? "???")
                html += "<tr class=\"\(classes.joined(separator: " "))\"><td>\(frame.number)</td><td>\(escape(frame.image))</td>"
                    + "<td><code>0x\(String(frame.address, radix: 16))</code></td><td>\(function)</td>"
                    + "<td>\(escape(frame.location ?? ""))</td><td>\(frame.inlined ? "inlined" : "")</td></tr>\n"
            }
            html += "</tbody></table></details>\n"
        }
        return html + "</section>\n"
    }

    private static func list(_ set: CappedSet) -> String {
        guard !set.values.isEmpty else { return "-" }
        return set.values.map(escape).joined(separator: ", ") + (set.truncated ? ", …" : "")
    }

    private static func shortened(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    /// `text` safe inside HTML text and attribute values: markup characters as entities, and
    /// control characters spelled visibly (``OutputEscaping``).
    static func escape(_ text: String) -> String {
        var out = ""
        for character in OutputEscaping.escaped(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    // MARK: Style and script

    private static let style = """

        :root { color-scheme: light; --app: #2563eb; --other: #9ca3af; --mark: #fef3c7; }
        body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 24px; color: #111827; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 0 0 8px; }
        code, .frames td { font-family: "SF Mono", Menlo, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
        .summary { color: #4b5563; margin: 0 0 16px; }
        #chart svg { max-width: 100%; height: auto; }
        #chart .label { font-size: 12.5px; fill: #111827; }
        #chart .value { font-size: 12px; fill: #374151; }
        #chart .app rect { fill: var(--app); }
        #chart .other rect { fill: var(--other); }
        #chart a:hover rect { opacity: 0.75; }
        .filter { margin: 16px 0; }
        .filter input { font: inherit; padding: 3px 6px; width: 320px; }
        #shown { color: #6b7280; margin-left: 8px; }
        .group { border: 1px solid #e5e7eb; border-radius: 6px; padding: 12px 16px; margin: 0 0 14px; }
        .group .rank { color: #6b7280; }
        .group .id { color: #6b7280; font-weight: normal; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 8px; }
        dt { color: #6b7280; }
        dd { margin: 0; }
        summary { cursor: pointer; color: #374151; }
        .frames { border-collapse: collapse; margin-top: 6px; }
        .frames th { text-align: left; font-weight: 600; color: #6b7280; padding: 2px 10px 2px 0; }
        .frames td { padding: 1px 10px 1px 0; white-space: nowrap; }
        .frames tr.app td { color: #111827; font-weight: 600; }
        .frames tr:not(.app) td { color: #6b7280; }
        .frames tr.signature td { background: var(--mark); }
        .frames tr.handler td { text-decoration: line-through; }
        .hidden { display: none; }

        """

    private static let script = """

        (function () {
          var sections = Array.prototype.slice.call(document.querySelectorAll("section.group"));
          var texts = sections.map(function (s) { return s.textContent.toLowerCase(); });
          var input = document.getElementById("filter");
          var shown = document.getElementById("shown");
          function apply() {
            var words = input ? input.value.toLowerCase().split(/\\s+/).filter(Boolean) : [];
            var count = 0;
            sections.forEach(function (section, i) {
              var match = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
              section.classList.toggle("hidden", !match);
              if (match) count += 1;
            });
            document.body.setAttribute("data-shown", String(count));
            if (shown) shown.textContent = count + " of " + sections.length + " groups";
          }
          if (input) input.addEventListener("input", apply);
          apply();
          document.body.setAttribute("data-errors", String(window.groupPageErrors ? window.groupPageErrors() : 0));
          document.body.setAttribute("data-ready", "yes");
        })();

        """
}
