#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time (user and system), for tests that bound how much work something takes. Unlike
/// the time on the wall, it does not grow while other processes have the cores (a loaded CI
/// machine, another build), so a bound on it tells work that blew up from a busy machine.
public enum CPUTime {
    /// Seconds of CPU this process has used so far, all its threads together.
    public static var process: Double { seconds(of: RUSAGE_SELF) }

    /// Seconds of CPU used so far by the programs this process ran and waited for (their own
    /// children included, when they waited for them: `timeout` for the tool it runs).
    public static var children: Double { seconds(of: RUSAGE_CHILDREN) }

    /// What `body` returns, and the seconds of CPU this process used while it ran.
    public static func ofProcess<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let start = process
        let result = try body()
        return (result, process - start)
    }

    /// What `body` returns, and the seconds of CPU used by the programs it ran to their end.
    public static func ofChildren<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let start = children
        let result = try body()
        return (result, children - start)
    }

    #if canImport(Glibc)
    private static func seconds(of who: __rusage_who) -> Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(who.rawValue), &usage) == 0 else { return 0 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
    #else
    private static func seconds(of who: Int32) -> Double {
        var usage = rusage()
        guard getrusage(who, &usage) == 0 else { return 0 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
    #endif

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}
