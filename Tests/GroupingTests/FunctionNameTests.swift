import Foundation
import Grouping
import TestSupport
import XCTest

/// Function names as signatures spell them: written-out cases of the names compilers and
/// demanglers give, and every Swift and C++ symbol of the fixture builds normalized alike
/// whether the tool or an independent demangler (`swift demangle`, `c++filt`) demangled it.
final class FunctionNameTests: XCTestCase {
    func testNormalizedNames() {
        let cases: [(String, String)] = [
            ("parse_record", "parse_record"),
            ("engine::fold<int, engine::Add>(int const*, unsigned long, int)", "engine::fold"),
            ("engine::Scheduler::total_weight() const::$_0::operator()(int, int) const",
             "engine::Scheduler::total_weight::$_0::operator()"),
            ("engine::Scheduler::run(int)::{lambda(engine::Task&)#1}::operator()(engine::Task&) const",
             "engine::Scheduler::run::{lambda#1}::operator()"),
            ("void engine::Scheduler::for_each_ready<engine::Scheduler::run(int)::{lambda(engine::Task&)#1}>(engine::Scheduler::run(int)::{lambda(engine::Task&)#1})",
             "void engine::Scheduler::for_each_ready"),
            ("std::vector<int, std::allocator<int> >::operator[](unsigned long)", "std::vector::operator[]"),
            ("operator<<(std::ostream&, Foo const&)", "operator<<"),
            ("Foo::operator->() const", "Foo::operator->"),
            ("Foo::operator bool() const", "Foo::operator bool"),
            ("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper"),
            ("parse_record.cold.1", "parse_record"),
            ("parse_record.constprop.0.isra.0", "parse_record"),
            ("helper.lto_priv.0", "helper"),
            ("foo(int) [clone .cold]", "foo"),
            ("foo(int) [clone .constprop.0] [clone .isra.0]", "foo"),
            ("foo.1", "foo.1"),
            ("Shapes.part.getter : Swift.Int", "Shapes.part.getter"),
            ("generic specialization <Swift.Int> of Shapes.clamp<A where A: Swift.Comparable>(A, A, A) -> A", "Shapes.clamp"),
            ("function signature specialization <Arg[0] = Dead> of Shapes.square(Swift.Double) -> Swift.Double", "Shapes.square"),
            ("Shapes.Circle.radius.modify : Swift.Double with unmangled suffix \".resume.0\"", "Shapes.Circle.radius.modify"),
            ("closure #1 (Swift.Int) -> Swift.Int in Shapes.main() -> ()", "closure #1 in Shapes.main"),
            ("implicit closure #2 () -> Swift.String in Shapes.check(Shapes.Inventory) throws -> Swift.Double",
             "implicit closure #2 in Shapes.check"),
            ("protocol witness for Shapes.Shape.area() -> Swift.Double in conformance Shapes.Circle : Shapes.Shape in Shapes",
             "protocol witness for Shapes.Shape.area in conformance Shapes.Circle in Shapes"),
            ("Shapes.check(Shapes.Inventory) throws -> Swift.Double", "Shapes.check"),
            ("static Shapes.Box.make() async throws -> Shapes.Box<A>", "static Shapes.Box.make"),
            ("Shapes.Box<Swift.Int>.area(of: [Swift.String : Swift.Int]) -> (Swift.Int, Swift.Double)", "Shapes.Box.area"),
            ("-[NSRunLoop(NSRunLoop) runMode:beforeDate:]", "-[NSRunLoop(NSRunLoop) runMode:beforeDate:]"),
            ("__53-[AppDelegate application:didFinishLaunchingWithOptions:]_block_invoke",
             "__53-[AppDelegate application:didFinishLaunchingWithOptions:]_block_invoke"),
            ("  padded  ", "padded"),
            ("$s6Shapes6squareyS2dF", "Shapes.square"),
            ("_ZN6engine9Scheduler3runEi", "engine::Scheduler::run"),
        ]
        for (name, expected) in cases {
            XCTAssertEqual(FunctionName.normalized(name), expected, name)
        }
    }

    /// Names made to be slow (unmatched brackets, endless nesting, arrows) normalize quickly.
    func testHostileNamesNormalizeQuickly() {
        let hostile = [
            String(repeating: "a<", count: 30_000), String(repeating: "f(", count: 30_000),
            String(repeating: "<(", count: 30_000) + String(repeating: ">)", count: 30_000),
            String(repeating: "x -> ", count: 10_000), String(repeating: " : a in ", count: 10_000),
            String(repeating: "operator", count: 8_000), String(repeating: "a.cold", count: 10_000),
            String(repeating: " [clone ", count: 8_000), "$s" + String(repeating: "6Shapes", count: 5_000),
            String(repeating: "closure #1 ", count: 5_000) + "(",
        ]
        let start = CPUTime.process
        for name in hostile {
            let normalized = FunctionName.normalized(name + "\u{1}")
            XCTAssertLessThanOrEqual(normalized.utf8.count, FunctionName.maximumLength + 8)
        }
        let seconds = CPUTime.process - start
        XCTAssertLessThan(seconds, 5, "hostile names took \(seconds) s of CPU")
    }

    /// Every Swift function of swift-shapes: the tool's demangling of the mangled name, and
    /// `swift demangle`'s of it, normalize to one name, which keeps no argument list.
    func testSwiftSymbolsNormalizeAlikeMangledOrNot() throws {
        let names = try symbols(in: "elf/swift-shapes", prefix: "$s")
        let demangled = try demangle(names, with: ["/opt/swift/usr/bin/swift-demangle", "/usr/bin/swift-demangle"], arguments: [])
        try compare(names, demangled)
    }

    /// Every C++ function of the gcc build of the fixture app and of libstdc++ (templates,
    /// operators, ABI tags, lambdas), against c++filt.
    func testCxxSymbolsNormalizeAlikeMangledOrNot() throws {
        var names = try symbols(in: "elf/app-gcc-dwarf4", prefix: "_Z")
        let libstdcxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
        if FileManager.default.fileExists(atPath: libstdcxx) {
            let result = try runProcess("/usr/bin/nm", ["-D", "--defined-only", libstdcxx])
            names += result.stdoutText.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: " ")
                return parts.count == 3 && "tTwW".contains(parts[1]) && parts[2].hasPrefix("_Z") ? String(parts[2].split(separator: "@")[0]) : nil
            }
        } else {
            print("FunctionNameTests: \(libstdcxx) is absent: only the fixture's C++ names are compared")
        }
        let demangled = try demangle(names, with: ["/usr/bin/c++filt"], arguments: [])
        try compare(names, demangled)
    }

    private func compare(_ names: [String], _ demangled: [String]) throws {
        XCTAssertEqual(names.count, demangled.count)
        var checked = 0
        for (name, readable) in zip(names, demangled) where readable != name {
            let normalized = FunctionName.normalized(readable)
            XCTAssertEqual(FunctionName.normalized(name), normalized, "\(name) = \(readable)")
            XCTAssertFalse(normalized.isEmpty, readable)
            // Parentheses that are not a parameter list: Swift's `(extension in M):`, C++'s
            // `(anonymous namespace)`, operators and gcc's `{lambda(...)#1}`.
            var bare = normalized
            for part in ["(extension in ", "(anonymous namespace)", "operator", "{lambda"] {
                if let range = bare.firstRange(of: part) { bare = String(bare[..<range.lowerBound]) }
            }
            XCTAssertFalse(bare.contains("("), "\(readable) → \(normalized)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 1)
    }

    private func symbols(in fixture: String, prefix: String) throws -> [String] {
        guard let fixtures = TestPaths.fixtures else { throw XCTSkip(TestPaths.fixturesAbsent) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/nm") else { throw XCTSkip("nm is not installed") }
        let result = try runProcess("/usr/bin/nm", [fixtures.appendingPathComponent(fixture).path])
        return result.stdoutText.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, "tTwW".contains(parts[1]), parts[2].hasPrefix(prefix) else { return nil }
            return String(parts[2])
        }
    }

    private func demangle(_ names: [String], with candidates: [String], arguments: [String]) throws -> [String] {
        guard let tool = candidates.first(where: FileManager.default.isExecutableFile) else {
            throw XCTSkip("no demangler among \(candidates.joined(separator: ", ")): the oracle is missing")
        }
        let input = Data((names.joined(separator: "\n") + "\n").utf8)
        let result = try runProcess(tool, arguments, input: input)
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).prefix(names.count).map(String.init)
    }
}
