/// When a report says its crash happened: its `Date/Time` (or an `.ips` report's
/// `captureTime`), read as a point in time so that reports from several time zones compare.
///
///     2021-03-14 09:26:53.5312 +0100   →  2021-03-14T08:26:53Z
///     2021-03-14 09:26:53 +0000, 2021-03-14T09:26:53Z, 2021-03-14 09:26:53 (taken as UTC)
public struct CrashDate: Sendable, Comparable, Hashable {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    public var seconds: Int64
    /// The date as the report wrote it.
    public var text: String

    /// The date in `text`, or nil when it does not start with `YYYY-MM-DD HH:MM:SS`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // A time-zone offset after the fraction: +0100, -05:30, Z.
        var i = 19
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        }
        while i < bytes.count, bytes[i] == UInt8(ascii: " ") { i += 1 }
        var offset = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            let colon = i + 3 < bytes.count && bytes[i + 3] == UInt8(ascii: ":") ? 1 : 0
            if let hours = number(i + 1..<i + 3), let minutes = number(i + 3 + colon..<i + 5 + colon) {
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        let days = CrashDate.daysFromCivil(year: year, month: month, day: day)
        seconds = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        self.text = text
    }

    /// The date in UTC, ISO 8601: `2021-03-14T08:26:53Z`.
    public var iso8601: String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let time = Int(seconds - days * 86400)
        let (year, month, day) = CrashDate.civil(fromDays: Int(days))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    /// The day in UTC, `2021-03-14`.
    public var day: String { String(iso8601.prefix(10)) }

    public static func < (a: CrashDate, b: CrashDate) -> Bool { (a.seconds, a.text) < (b.seconds, b.text) }

    /// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (H. Hinnant's
    /// `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    /// The date of a day since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
