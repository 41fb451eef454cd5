/// The groups of a run, built one report at a time: per group only counts, the first and last
/// dates, capped sets of versions and exception types, a few example paths and one example
/// backtrace, so that its memory grows with the number of groups, not of reports.
public final class GroupTable {
    /// How many example report paths each group keeps.
    public let examplesKept: Int
    /// How many distinct values each group keeps per set (app versions, OS versions, exception
    /// types); more are counted, not kept.
    public static let valuesKept = 16

    /// Whether each group keeps the path of every report (`group --members`): the one thing
    /// kept per report, and only when asked for.
    public let keepsMembers: Bool
    /// The newest app version of any report (``AppVersion``).
    public private(set) var newestVersion: String?

    /// Reports grouped.
    public private(set) var reports = 0
    /// Reports that could not be read or parsed (not grouped).
    public private(set) var unreadable = 0
    private var groups: [CrashSignature: CrashGroup] = [:]

    /// A table that keeps `examples` example paths per group, and with `members` the path of
    /// every report.
    public init(examples: Int = 3, members: Bool = false) {
        examplesKept = max(1, examples)
        keepsMembers = members
    }

    /// Adds the report at `path`, whose facts are `facts` (nil: it could not be read).
    public func add(_ facts: ReportFacts?, path: String) {
        guard let facts else {
            unreadable += 1
            return
        }
        reports += 1
        if groups[facts.signature] == nil {
            groups[facts.signature] = CrashGroup(signature: facts.signature)
        }
        groups[facts.signature]!.add(facts, path: path, examplesKept: examplesKept, member: keepsMembers)
        if let version = facts.appVersion.map(AppVersion.marketing),
           newestVersion.map({ AppVersion.precedes($0, version) }) ?? true {
            newestVersion = version
        }
    }

    /// Whether `group` is new in the newest app version: all its reports that give a version
    /// give the newest one, and reports of older versions exist in the table.
    public func isNewInNewestVersion(_ group: CrashGroup) -> Bool {
        guard let newest = newestVersion, let oldest = group.trend.oldestVersion, oldest == newest else { return false }
        return groups.values.contains { other in other.trend.oldestVersion.map { $0 != newest } ?? false }
    }

    /// The groups, most reports first (ties by ID, so that the order is the same every run).
    public var sortedGroups: [CrashGroup] {
        groups.values.sorted { ($1.count, $0.id) < ($0.count, $1.id) }
    }

    /// The number of groups.
    public var count: Int { groups.count }
}

/// One group: the reports of one signature.
public struct CrashGroup: Sendable {
    /// What the reports have in common.
    public let signature: CrashSignature
    /// The stable ID (``CrashSignature/id``).
    public let id: String
    /// How many reports.
    public private(set) var count = 0
    /// The exception types seen, in the order first seen.
    public private(set) var exceptionTypes = CappedSet()
    /// The earliest and latest dates the reports give.
    public private(set) var firstSeen: CrashDate?
    public private(set) var lastSeen: CrashDate?
    /// The app version of the earliest report: where the crash started.
    public private(set) var firstVersion: String?
    /// The app and OS versions seen, in the order first seen.
    public private(set) var appVersions = CappedSet()
    public private(set) var osVersions = CappedSet()
    /// The paths of the first reports.
    public private(set) var examples: [String] = []
    /// Reports per app version and per day.
    public private(set) var trend = GroupTrend()
    /// The path of every report, in input order, when the table keeps them (`--members`).
    public private(set) var members: [String] = []
    /// The backtrace of the first report that gave one, with its path.
    public private(set) var example: (path: String, thread: ExampleThread)?

    init(signature: CrashSignature) {
        self.signature = signature
        id = signature.id
    }

    mutating func add(_ facts: ReportFacts, path: String, examplesKept: Int, member: Bool = false) {
        count += 1
        trend.add(version: facts.appVersion.map(AppVersion.marketing), day: facts.date?.day)
        if member { members.append(path) }
        if let type = facts.exceptionType { exceptionTypes.insert(type) }
        if let version = facts.appVersion { appVersions.insert(version) }
        if let version = facts.osVersion { osVersions.insert(version) }
        if let date = facts.date {
            if firstSeen.map({ date < $0 }) ?? true {
                firstSeen = date
                firstVersion = facts.appVersion
            }
            if lastSeen.map({ $0 < date }) ?? true { lastSeen = date }
        }
        if examples.count < examplesKept { examples.append(path) }
        if example == nil, let thread = facts.example { example = (path, thread) }
    }

    /// The group's share of `total` reports, in percent.
    public func share(of total: Int) -> Double {
        total == 0 ? 0 : Double(count) * 100 / Double(total)
    }
}

/// Distinct strings in the order first seen, at most ``GroupTable/valuesKept`` of them.
public struct CappedSet: Sendable {
    /// The values kept.
    public private(set) var values: [String] = []
    /// Whether more distinct values were seen than kept.
    public private(set) var truncated = false

    mutating func insert(_ value: String) {
        if values.contains(value) { return }
        if values.count < GroupTable.valuesKept {
            values.append(value)
        } else {
            truncated = true
        }
    }
}
