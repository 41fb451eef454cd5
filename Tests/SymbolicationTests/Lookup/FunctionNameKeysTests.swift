@testable import Symbolication
import XCTest

/// A log and a debug file spell one function in many ways; the names compared below are as
/// this machine's tools print them (GCC's libasan, llvm-symbolizer, glibc's
/// `backtrace_symbols`, the Swift runtime) against the debug files' symbol names. A name
/// taken for another function leaves a whole module unresolved, so every spelling of one
/// function must agree; and two functions must not.
final class FunctionNameKeysTests: XCTestCase {
    private func agree(_ a: String, _ b: String) -> Bool {
        FunctionNameKeys(a).agrees(with: FunctionNameKeys(b))
    }

    /// GCC's clones (`.part.0`, `.isra.0`, `.constprop.0`, `.cold`, chained) and LLVM's
    /// (`.llvm.N`) are the function they were cut from, mangled or demangled, in libiberty's
    /// (`[clone .isra.0]`) or LLVM's (`(.isra.0)`) notation.
    func testCloneSuffixesNameTheFunctionTheyWereCutFrom() {
        XCTAssertTrue(agree("set_binding_values", "set_binding_values.part.0"))
        XCTAssertTrue(agree("check", "check.constprop.0.cold"))
        XCTAssertTrue(agree("books::audit_entry(books::Entry const&, int) [clone .isra.0] [clone .cold]",
                            "_ZN5booksL11audit_entryERKNS_5EntryEi.isra.0.cold"))
        XCTAssertTrue(agree("books::audit_entry(books::Entry const&, int) (.isra.0.cold)",
                            "_ZN5booksL11audit_entryERKNS_5EntryEi.constprop.0.isra.0"))
        XCTAssertTrue(agree("helper", "helper.llvm.12345678901234567"))
        XCTAssertFalse(agree("set_binding_values", "set_binding_values_part"))
    }

    /// `memcpy@@GLIBC_2.14` and `__libc_start_main@GLIBC_2.2.5` are `memcpy` and
    /// `__libc_start_main`, as glibc and llvm-symbolizer print them.
    func testSymbolVersionsAreNotPartOfTheName() {
        XCTAssertTrue(agree("__libc_start_main", "__libc_start_main@GLIBC_2.2.5"))
        XCTAssertTrue(agree("memcpy@@GLIBC_2.14", "memcpy"))
    }

    /// A mangled name agrees with its demangled spellings, full (the sanitizers') and
    /// simplified (the Swift runtime's), whatever the demangler's blanks, parameters or
    /// qualifiers; a Rust legacy name with or without its hash.
    func testManglingAndDemanglersDifferencesDoNotMakeAnotherFunction() {
        XCTAssertTrue(agree("books::Ledger::post(int, char const*)", "_ZN5books6Ledger4postEiPKc"))
        XCTAssertTrue(agree("_ZN5books6Ledger4postEiPKc", "books::Ledger::post(int, char const*)"))
        XCTAssertTrue(agree("books::Ledger::post", "_ZN5books6Ledger4postEiPKc"))
        XCTAssertTrue(agree("std::vector<int, std::allocator<int> >::push_back(int const&)",
                            "std::vector<int, std::allocator<int>>::push_back(int const&)"))
        XCTAssertTrue(agree("books::Ledger::total() const", "_ZNK5books6Ledger5totalEv"))
        XCTAssertTrue(agree("rtally::check::ha4cebb417e179024", "_ZN6rtally5check17ha4cebb417e179024E"))
        XCTAssertTrue(agree("rtally::check", "_ZN6rtally5check17ha4cebb417e179024E"))
        XCTAssertTrue(agree("outer(_:_:)", "$s1d5outeryS2i_SitF"))
        XCTAssertTrue(agree("d.outer(Swift.Int, Swift.Int) -> Swift.Int", "$s1d5outeryS2i_SitF"))
    }

    /// Names of different functions do not agree, however alike: this is what finds another
    /// build at a module's path.
    func testDifferentFunctionsDoNotAgree() {
        XCTAssertFalse(agree("gsignal", "set_binding_values.part.0"))
        XCTAssertFalse(agree("crash_here", "middle"))
        XCTAssertFalse(agree("books::Ledger::post(int, char const*)", "_ZNK5books6Ledger5totalEv"))
        XCTAssertFalse(agree("outer(_:_:)", "$s1d5inneryS2i_SitF"))
        XCTAssertFalse(agree("raise", "__GI_raise"))  // aliases are the symbol table's to say
        XCTAssertFalse(agree("operator new(unsigned long)", "operator delete(void*)"))
        // Methods of one name in two types, mangled or not, C++ or Swift.
        XCTAssertFalse(agree("Foo::run()", "Bar::run()"))
        XCTAssertFalse(agree("_ZN3Foo3runEv", "_ZN3Bar3runEv"))
        XCTAssertFalse(agree("books::Ledger::post(int)", "_ZN5books7Journal4postEi"))
        XCTAssertFalse(agree("d.Foo.run() -> ()", "d.Bar.run() -> ()"))
    }

    /// A name without qualifiers (a debug file without linkage names, a C-style log) agrees
    /// with a qualified name whose last component it is.
    func testAnUnqualifiedNameAgreesWithTheQualifiedOneItEnds() {
        XCTAssertTrue(agree("run", "_ZN3Foo3runEv"))
        XCTAssertTrue(agree("ns::Foo::run() const", "run"))
        XCTAssertTrue(agree("outer", "d.outer(Swift.Int, Swift.Int) -> Swift.Int"))
        XCTAssertFalse(agree("walk", "_ZN3Foo3runEv"))
    }

    /// `??`, `<null>`, `<unknown>`, `<redacted>` and addresses are no name at all.
    func testPlaceholdersAreNoNames() {
        for name in ["", "??", "???", "<null>", "<unknown>", "<redacted>", "<unavailable>", "0x7faed4efa417"] {
            XCTAssertTrue(FunctionNameKeys.isPlaceholder(name), name)
        }
        for name in ["main", "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop", "__GI_raise", "0"] {
            XCTAssertFalse(FunctionNameKeys.isPlaceholder(name), name)
        }
    }
}
