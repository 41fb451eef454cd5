import DebugInfo
import Foundation
import TestSupport
import XCTest

/// C++ names against c++filt (the same GNU demangler), Swift names against swift-demangle.
final class DemanglerTests: XCTestCase {
    func testCxxNamesMatchCxxfilt() throws {
        let names = ["_ZN6engine9Scheduler3runEi", "_ZNK6engine4Task4costEv", "_ZN12_GLOBAL__N_18callbackEPv",
                     "_ZNSt6vectorIiSaIiEE9push_backERKi", "_Z4foldIiZN6engine9Scheduler12total_weightEvEUliiE_EiPKiiiT0_",
                     "_ZN15google_breakpad13PageAllocator7FreeAllEv.isra.6"]
        let filt = try runProcess("/usr/bin/c++filt", [], input: Data(names.joined(separator: "\n").utf8)).stdoutText
        XCTAssertEqual(names.map { Demangler.demangle($0) }, filt.split(separator: "\n").map(String.init))
    }

    func testSwiftNamesMatchSwiftDemangle() throws {
        let tool = "/opt/swift/usr/bin/swift-demangle"
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("swift-demangle is not installed") }
        let names = ["$s4main3FooV3baryyF", "$sSS7cStringSSSPys4Int8VG_tcfC", "$s3App14ViewControllerC11viewDidLoadyyF"]
        for name in names {
            let expected = try runProcess(tool, ["--compact", name]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(Demangler.demangle(name), expected)
        }
    }

    func testOtherNamesComeBackUnchanged() {
        for name in ["main", "-[UIApplication _run]", "_Zinvalid", "$sbroken", ""] {
            XCTAssertEqual(Demangler.demangle(name), name)
        }
    }

    func testHostileNamesArePrintedMangled() {
        let names = HostileMangledNames.all
        final class Results: @unchecked Sendable { var names: [String] = [] }
        let results = Results()
        let start = Date()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            results.names = names.map { Demangler.demangle($0) }
            done.signal()
        }
        done.wait()
        XCTAssertEqual(results.names, names)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "bounded names take no time to refuse")
    }

    func testRealNamesAreWithinTheBounds() {
        let names = ["_ZNSt6vectorIiSaIiEE9push_backERKi", "_Z4foldIiZN6engine9Scheduler12total_weightEvEUliiE_EiPKiiiT0_",
                     "_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vectorIS5_SaIS5_EESt4lessIS5_ESaISt4pairIKS5_S8_EEEixERSC_",
                     "$sSS7cStringSSSPys4Int8VG_tcfC", "$sSaySiSgGD", "$sSi" + String(repeating: "Sp", count: 100) + "D"]
        for name in names {
            XCTAssertNotEqual(Demangler.demangle(name), name, name)
        }
    }
}
