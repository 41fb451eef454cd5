@testable import DebugInfo
import Foundation
import TestSupport
import XCTest

/// C++, Rust v0 and D names against LLVM 19's llvm-cxxfilt (the release whose demangler library
/// the program links), legacy Rust names against GNU c++filt's Rust demangler (libiberty's,
/// which decodes their escapes as Rust does), Swift names against swift-demangle.
final class DemanglerTests: XCTestCase {
    func testCxxNamesMatchLLVMCxxfilt() throws {
        let names = ["_ZN6engine9Scheduler3runEi", "_ZNK6engine4Task4costEv", "_ZN12_GLOBAL__N_18callbackEPv",
                     "_ZNSt6vectorIiSaIiEE9push_backERKi", "_Z4foldIiZN6engine9Scheduler12total_weightEvEUliiE_EiPKiiiT0_",
                     "_ZN15google_breakpad13PageAllocator7FreeAllEv.isra.6", "_ZZ4mainENKUlvE_clEv", "_Z5helloPKc.cold",
                     "_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vectorIS5_SaIS5_EESt4lessIS5_ESaISt4pairIKS5_S8_EEEixERSC_",
                     "_ZN3foo3barE", "_ZN3foo17g0123456789abcdefE"]
        XCTAssertEqual(names.map { Demangler.demangle($0) }, try llvmCxxfilt(names))
    }

    func testRustV0NamesMatchLLVMCxxfilt() throws {
        // From the rust-v0 fixture: closures, punycode, const generics (integer, negative, bool,
        // char), function pointers with a binder, ABIs and `unsafe`, `dyn` with an associated type.
        let names = ["_RNvCs1234_7mycrate3foo", "_RINvNtCs1_4core3ptr13drop_in_placeNtCs2_3app5StateEB4_",
                     "_RNCINvNtCsdyIG5SqMl5y_3std2rt10lang_startuE0Cs6xObwDLdFGl_1m.llvm.2987980665270794997",
                     "_RNvNtCsfbeJNkprWQE_3appu9gre_6ka8iu6ma_hia", "_RNvMs2_CsfbeJNkprWQE_3appINtB5_6BufferKj10_Kb0_Kcdf_E3newB5_",
                     "_RNvMs3_CsfbeJNkprWQE_3appINtB5_6OffsetKln3_E5applyB5_", "_RINvCsfbeJNkprWQE_3app11via_pointerFG_RL0_eERL0_eEB2_",
                     "_RINvCsfbeJNkprWQE_3app11via_pointerFUKCmEmEB2_", "_RINvCsfbeJNkprWQE_3app11via_pointerFK6sysv64mEmEB2_",
                     "_RINvNtCsihNoVIYWwLU_5alloc5alloc8box_freeDNtNtNtNtCs6IL9ONYDOZW_4core4iter6traits8iterator8Iteratorp4ItemmEL_NtB2_6GlobalECsfbeJNkprWQE_3app"]
        let expected = try llvmCxxfilt(names)
        XCTAssertEqual(names.map { Demangler.demangle($0) }, expected)
        for (name, readable) in zip(names, expected) { XCTAssertNotEqual(readable, name, "llvm-cxxfilt-19 cannot read \(name)") }
    }

    /// Legacy names lose their hash (llvm-cxxfilt and c++filt keep it; Rust's backtraces drop
    /// it) and have their escapes decoded (which LLVM leaves alone; libiberty decodes them as
    /// Rust does). A suffix is printed as LLVM prints it: ` (.llvm.123)`.
    func testRustLegacyNamesAreDecodedWithoutTheirHash() throws {
        func legacy(_ identifiers: [String], suffix: String = "") -> String {
            "_ZN" + (identifiers + ["h0123456789abcdef"]).map { "\($0.utf8.count)\($0)" }.joined() + "E" + suffix
        }
        let cases: [(String, String)] = [
            (legacy(["core", "ptr", "drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$"]),
             "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>"),
            (legacy(["_$LT$app..Circle$u20$as$u20$app..shapes..Area$GT$", "area"]), "<app::Circle as app::shapes::Area>::area"),
            (legacy(["std", "rt", "lang_start", "_$u7b$$u7b$closure$u7d$$u7d$"], suffix: ".llvm.11915460050492861479"),
             "std::rt::lang_start::{{closure}} (.llvm.11915460050492861479)"),
            (legacy(["app", "gr$uf6$$udf$e", "ma$udf$"]), "app::größe::maß"),
            (legacy(["_$LT$$RF$$u27$a$u20$T$u20$as$u20$core..fmt..Debug$GT$", "fmt"]), "<&'a T as core::fmt::Debug>::fmt"),
            (legacy(["app", "odd$u1$$XX$$u7b"]), "app::odd$u1$$XX$$u7b"),  // escapes rustc never writes stay
            (legacy(["app", "main"]), "app::main"),
        ]
        for (name, readable) in cases {
            XCTAssertEqual(Demangler.demangle(name), readable, name)
        }
        let filt = try runProcess("/usr/bin/c++filt", ["--format=rust"], input: Data(cases.map(\.0).joined(separator: "\n").utf8))
        // libiberty keeps the escapes of non-ASCII characters (`$uf6$`), which Rust decodes.
        for ((name, readable), gnu) in zip(cases, filt.stdoutText.split(separator: "\n")) where !name.contains("odd") && !name.contains("$uf6$") {
            let withoutSuffix = readable.components(separatedBy: " (.").first ?? readable
            XCTAssertEqual(withoutSuffix + "::h0123456789abcdef", String(gnu), name)
        }
    }

    /// LLVM 19's D demangler reads the names of variables, not those of functions: those stay
    /// mangled, as llvm-cxxfilt-19 leaves them too.
    func testDNamesMatchLLVMCxxfilt() throws {
        let names = ["_D4test3bazi", "_D3std5stdio6stdoutS3std5stdio4File", "_D4test3fooFiZv", "_D3std5stdio__T7writelnTAyaZQnFNfQjZv"]
        XCTAssertEqual(names.map { Demangler.demangle($0) }, try llvmCxxfilt(names))
        XCTAssertEqual(Demangler.demangle("_D4test3bazi"), "test.baz")
        XCTAssertEqual(Demangler.demangle("_D4test3fooFiZv"), "_D4test3fooFiZv")
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

    /// The await and suspend resume partial functions of the async functions in the
    /// `swift-async` fixture (Fixtures/src/swiftcrash built -O), which swift-demangle names
    /// `(1) await resume partial function for F`, where F is what it names the function whose
    /// symbol they extend: named F, as the function they belong to, by name and through the
    /// index, and in the simplified style as swift-demangle --simplified names them.
    func testAsyncPartialFunctionsAreNamedAfterTheirFunction() throws {
        let tool = "/opt/swift/usr/bin/swift-demangle"
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("swift-demangle is not installed") }
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        let path = fixtures.appendingPathComponent("elf/swift-async").path
        let suffix = try NSRegularExpression(pattern: "T[QY][0-9]+_$")
        let partials = try runProcess("/usr/bin/nm", [path]).stdoutText.split(separator: "\n").compactMap { line -> (UInt64, String, String)? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "t" || fields[1] == "T", let address = UInt64(fields[0], radix: 16) else { return nil }
            let name = String(fields[2])
            guard let match = suffix.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) else { return nil }
            return (address, name, String(name.prefix(match.range.location)))
        }
        let file = try XCTUnwrap(DebugFile.identify(path: path).first { $0.hasDWARF })
        let index = try SymbolIndex.build(file)
        var kinds = Set<String>(), checked = 0, named = 0
        for (address, name, function) in partials {
            let full = try swiftDemangle(tool, name), simplified = try swiftDemangle(tool, name, "--simplified")
            guard let marker = full.range(of: #"^\([0-9]+\) (await|suspend) resume partial function for "#, options: .regularExpression) else {
                continue  // not one to the demangler (`...TA.12TQ0_`: a suffix after a clone's number)
            }
            kinds.insert(String(full[marker].split(separator: " ")[1]))
            checked += 1
            XCTAssertEqual(String(full[marker.upperBound...]), try swiftDemangle(tool, function), name)
            XCTAssertEqual(Demangler.demangle(name), Demangler.demangle(function), name)
            XCTAssertFalse(Demangler.demangle(name).hasPrefix("("), name)
            XCTAssertEqual(Demangler.demangle(name, style: .simplified), simplified, name)
            if index.lookup(address).last?.function == Demangler.demangle(function) { named += 1 }
        }
        XCTAssertEqual(kinds, ["await", "suspend"], "no await or no suspend resume partial functions in \(path)")
        XCTAssertEqual(named, checked, "partial functions the index names otherwise")
    }

    private func swiftDemangle(_ tool: String, _ name: String, _ options: String...) throws -> String {
        try runProcess(tool, ["--compact"] + options + [name]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testOtherNamesComeBackUnchanged() {
        for name in ["main", "-[UIApplication _run]", "_Zinvalid", "$sbroken", "", "_R", "_Rxyz", "_DYNAMIC", "_D", "_D1"] {
            XCTAssertEqual(Demangler.demangle(name), name)
        }
    }

    func testHostileNamesArePrintedMangled() {
        let names = HostileMangledNames.all
        final class Results: @unchecked Sendable { var names: [String] = [] }
        let results = Results()
        let start = CPUTime.process
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            results.names = names.map { Demangler.demangle($0) } + names.map { Demangler.demangle($0, style: .simplified) }
            done.signal()
        }
        done.wait()
        XCTAssertEqual(results.names, names + names)
        XCTAssertLessThan(CPUTime.process - start, 2, "bounded names take no time to refuse (seconds of CPU)")
    }

    /// The hostile v0 names are refused by their expansion bound, not only by their size:
    /// within the size and structure bounds, LLVM would print gigabytes for them.
    func testRustV0BoundRefusesExpandingNames() {
        let (doubling, selfReference, binders) = (HostileMangledNames.rust[0], HostileMangledNames.rust[1], HostileMangledNames.rust[2])
        for name in [doubling, binders] {
            XCTAssertLessThanOrEqual(name.utf8.count, Demangler.maximumMangledLength)
            XCTAssertGreaterThan(estimate(name), Demangler.maximumExpansionEstimate, name)
        }
        XCTAssertEqual(estimate(selfReference), .max)
        // The first steps of the chain print little, and within the bound.
        let short = HostileMangledNames.rustDoubling(steps: 6)
        let readable = Demangler.demangle(short)
        XCTAssertTrue(readable.hasPrefix("a::f::<(), ((), ()), (((), ()), ((), ())), "), readable)
        XCTAssertGreaterThanOrEqual(estimate(short), readable.utf8.count)
    }

    func testRealNamesAreWithinTheBounds() {
        let names = ["_ZNSt6vectorIiSaIiEE9push_backERKi", "_Z4foldIiZN6engine9Scheduler12total_weightEvEUliiE_EiPKiiiT0_",
                     "_ZNSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vectorIS5_SaIS5_EESt4lessIS5_ESaISt4pairIKS5_S8_EEEixERSC_",
                     "$sSS7cStringSSSPys4Int8VG_tcfC", "$sSaySiSgGD", "$sSi" + String(repeating: "Sp", count: 100) + "D",
                     "_RINvNtCs1_4core3ptr13drop_in_placeNtCs2_3app5StateEB4_", "_RNvCs1234_7mycrate3foo"]
        for name in names {
            XCTAssertNotEqual(Demangler.demangle(name), name, name)
        }
    }

    private func estimate(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { Demangler.rustExpansionEstimate($0) }
    }

    /// What llvm-cxxfilt-19 prints for each of `names`, one line each.
    private func llvmCxxfilt(_ names: [String]) throws -> [String] {
        guard let tool = TestPaths.llvm19("llvm-cxxfilt") else {
            throw XCTSkip("llvm-cxxfilt-19 is not installed (`make setup` installs llvm-19)")
        }
        let result = try runProcess(tool, [], input: Data((names.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(result.status, 0, result.stderrText)
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
