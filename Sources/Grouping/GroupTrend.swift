/// How a group's reports spread over app versions and days: counts, not reports, so that its
/// memory grows with the versions and days seen (at most ``GroupTrend/valuesKept`` of each),
/// not with the reports.
public struct GroupTrend: Sendable {
    /// How many distinct versions, and days, are counted each; reports of more are counted in
    /// ``otherVersions`` or ``otherDays``.
    public static let valuesKept = 400

    /// Reports per app version (``AppVersion/marketing(_:)``).
    public private(set) var versions: [String: Int] = [:]
    /// Reports per day (UTC, `2021-03-14`).
    public private(set) var days: [String: Int] = [:]
    /// Reports without a version, or of versions past the ones kept.
    public private(set) var otherVersions = 0
    /// Reports without a date, or of days past the ones kept.
    public private(set) var otherDays = 0

    mutating func add(version: String?, day: String?) {
        if let version, versions[version] != nil || versions.count < Self.valuesKept {
            versions[version, default: 0] += 1
        } else {
            otherVersions += 1
        }
        if let day, days[day] != nil || days.count < Self.valuesKept {
            days[day, default: 0] += 1
        } else {
            otherDays += 1
        }
    }

    /// The versions and their counts, oldest version first.
    public var versionCounts: [(version: String, count: Int)] {
        versions.sorted { AppVersion.precedes($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    /// The days and their counts, earliest first.
    public var dayCounts: [(day: String, count: Int)] {
        days.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The oldest version counted.
    public var oldestVersion: String? {
        versions.keys.min(by: AppVersion.precedes)
    }
}
