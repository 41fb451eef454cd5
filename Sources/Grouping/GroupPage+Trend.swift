extension GroupPage {
    /// How many bars a trend chart shows at most: the newest versions, the latest days.
    static let trendBars = 40

    /// A group's trend: two small inline SVG bar charts, reports per app version (oldest
    /// first) and per day, each bar titled with its value and count. Empty when the reports
    /// give neither versions nor dates.
    static func trend(_ trend: GroupTrend) -> String {
        let versions = trend.versionCounts.suffix(trendBars).map { ($0.version, $0.count) }
        let days = trend.dayCounts.suffix(trendBars).map { ($0.day, $0.count) }
        guard !versions.isEmpty || !days.isEmpty else { return "" }
        var html = "<div class=\"trend\">"
        if !versions.isEmpty { html += bars(versions, title: "Reports per app version", kind: "versions") }
        if !days.isEmpty { html += bars(days, title: "Reports per day", kind: "days") }
        return html + "</div>\n"
    }

    /// One bar chart: a bar per value, its label under it when the bars are few.
    private static func bars(_ values: [(String, Int)], title: String, kind: String) -> String {
        let barWidth = values.count > 12 ? 8 : 30, gap = 4, height = 60, labels = values.count <= 12 ? 16 : 0
        let width = max(120, values.count * (barWidth + gap) + gap)
        let largest = max(1, values.map(\.1).max() ?? 1)
        var svg = """
            <figure class="trend-\(kind)"><figcaption>\(escape(title))</figcaption>\
            <svg role="img" aria-label="\(escape(title))" data-bars="\(values.count)" width="\(width)" \
            height="\(height + labels)" viewBox="0 0 \(width) \(height + labels)" xmlns="http://www.w3.org/2000/svg">
            """
        for (i, (label, count)) in values.enumerated() {
            let x = gap + i * (barWidth + gap)
            let h = max(2, count * (height - 4) / largest)
            svg += "<g class=\"tbar\" data-label=\"\(escape(label))\" data-count=\"\(count)\"><title>\(escape(label)): \(count)</title>"
                + "<rect x=\"\(x)\" y=\"\(height - h)\" width=\"\(barWidth)\" height=\"\(h)\" rx=\"2\"></rect>"
            if labels > 0 {
                svg += "<text x=\"\(x + barWidth / 2)\" y=\"\(height + 12)\" text-anchor=\"middle\">\(escape(shortLabel(label)))</text>"
            }
            svg += "</g>"
        }
        return svg + "</svg></figure>"
    }

    /// A label short enough to sit under a bar: a day as `MM-DD`, a version cut to 6 characters.
    private static func shortLabel(_ label: String) -> String {
        if label.count == 10, label.dropFirst(4).first == "-" { return String(label.dropFirst(5)) }
        return label.count <= 6 ? label : String(label.prefix(5)) + "…"
    }

    /// The styles of the trend charts and the "new in" mark.
    static let trendStyle = """
        .trend { display: flex; gap: 24px; flex-wrap: wrap; margin: 4px 0 8px; }
        .trend figure { margin: 0; }
        .trend figcaption { color: #6b7280; font-size: 12px; }
        .trend rect { fill: var(--app); }
        .trend text { font-size: 10px; fill: #374151; }
        .new { background: #dc2626; color: #fff; border-radius: 4px; padding: 0 6px; font-size: 12px; font-weight: 600; }

        """
}
