import Platform
import CrashReport
import DebugInfo

/// Why a report's system frames are left raw when dyld shared caches were given: the caches
/// at hand hold none of the report's system images, because they are of another OS build.
///
/// A cache holds the images of one build, each with the UUID that build gave it; a report of
/// iOS 15.0 (19A346) names UUIDs that no iOS 14 cache has. Said once per run and OS:
///
///     symbolicate: system.crash: 6 system images are in none of the dyld shared caches given:
///     the report is of iPhone OS 15.0 (19A346); ios14/dyld_shared_cache_arm64 is of iOS
///     (OS version not recorded), arm64: give the cache of that build
extension Symbolicator {
    /// What to say for `report`, whose system images `missing` (indexes, with frames)
    /// matched no debug file, when `caches` (main files) were searched: the `line` for stderr,
    /// and the `message` each such image carries in JSON (its `unresolved`, reason
    /// `other_os_build`); nil when there are no caches or no such images.
    static func dyldCacheMiss(report: CrashReport, missing: [Int], caches: [String]) -> (line: String, message: String)? {
        guard !missing.isEmpty, !caches.isEmpty else { return nil }
        let os = report.header.first { $0.key == "OS Version" }?.value
        let given = caches.sorted().prefix(3).map { path -> String in
            guard let cache = try? DyldSharedCache.opened(path: path) else { return path }
            let version = cache.osVersion.map { "\(cache.platformName ?? "OS") \($0)" }
                ?? "\(cache.platformName ?? "an OS") (OS version not recorded)"
            return "\(path) is of \(version), \(cache.architectureName), cache UUID \(ImageIdentity.dashedUUID(cache.uuid))"
        }
        let count = missing.count == 1 ? "1 system image is" : "\(missing.count) system images are"
        var message = "in none of the dyld shared caches given (\(given.joined(separator: "; ")))"
        if let os { message += ": the report is of \(os); give the cache of that build" }
        if let uuid = report.sharedCacheUUID { message += " (cache UUID \(ImageIdentity.dashedUUID(uuid)))" }
        return ("\(report.path): \(count) " + message, message)
    }
}

extension CrashReport {
    /// The UUID of the dyld shared cache an `.ips` report's process ran with (`sharedCache`), as
    /// 32 lowercase hex digits.
    var sharedCacheUUID: String? {
        // An .ips report is read through its translation; its JSON gave the document its UUID.
        if case .ips(let document) = source { return document.sharedCacheUUID }
        guard let key = bytes.firstRange(of: Array("\"sharedCache\"".utf8)),
              let uuidKey = bytes[key.upperBound...].firstRange(of: Array("\"uuid\"".utf8)) else { return nil }
        var digits: [UInt8] = []
        for byte in bytes[uuidKey.upperBound...].prefix(64) {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(byte + 32)
            default: break
            }
            if digits.count == 32 { break }
        }
        return digits.count == 32 ? String(decoding: digits, as: UTF8.self) : nil
    }
}
