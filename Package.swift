// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "symbolicate",
    products: [
        .executable(name: "symbolicate", targets: ["symbolicate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The runtime of the protobuf reports' generated code (Protos/): its plugin is not built.
        // No traits: their APIs (delimited streams) import all of Foundation, whose ICU data
        // would add 60 MB to the program; the runtime alone needs FoundationEssentials.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0", traits: []),
    ],
    targets: [
        .target(
            name: "CDwarf",
            linkerSettings: [
                .linkedLibrary("elf"), .linkedLibrary("z"), .linkedLibrary("zstd"),
            ]
        ),
        // libdwarf reading what CDwarf reads, as the reference the tests compare with: only test
        // targets depend on it, so that the shipped program does not link libdwarf.
        .target(name: "CDwarfReference", dependencies: ["CDwarf"], linkerSettings: [.linkedLibrary("dwarf")]),
        // Demangling through LLVM's demangler library: Debian's llvm-19-dev has it as a static
        // library, so the shipped program needs no LLVM at run time.
        .target(
            name: "CDemangle",
            cxxSettings: [.unsafeFlags(["-I/usr/lib/llvm-19/include"])],
            linkerSettings: [
                .unsafeFlags(["-L/usr/lib/llvm-19/lib"]), .linkedLibrary("LLVMDemangle"), .linkedLibrary("stdc++"),
            ]
        ),
        .target(name: "CFaultGuard"),
        // The dyld shared cache reader: Apple's system libraries, linked into one file.
        .target(name: "CDyldCache"),
        // libcurl and libdebuginfod, loaded with dlopen when a server is configured (their
        // headers only at build time: Debian's libcurl4-openssl-dev and libdebuginfod-dev).
        // And libzstd's streaming decompression, for symbol servers' compressed files.
        .target(name: "CFetch", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("zstd")]),
        .target(name: "Platform"),
        .target(name: "DebugInfo", dependencies: ["CDwarf", "CDyldCache", "CDemangle", "CFaultGuard", "Platform"]),
        .target(name: "CrashReport", dependencies: ["Platform", .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .target(name: "Symbolication", dependencies: ["DebugInfo", "CrashReport", "Platform", "CFetch"]),
        .target(name: "Grouping", dependencies: ["Symbolication", "DebugInfo", "CrashReport", "Platform"]),
        .executableTarget(
            name: "symbolicate",
            dependencies: [
                "Symbolication", "Grouping", "DebugInfo", "CrashReport", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // What DebugInfoTests and IntegrationTests share of the index cache's tests.
        .target(name: "DebugInfoTestSupport", dependencies: ["DebugInfo", "TestSupport"], path: "Tests/DebugInfoTestSupport"),
        // Two tiers (docs/development.md, "Tests"). `make test`: the tests of each library, in
        // the test process, a test target per library target.
        .testTarget(name: "CFaultGuardTests", dependencies: ["CFaultGuard", "TestSupport"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"]),
        .testTarget(name: "DebugInfoTests", dependencies: ["DebugInfo", "CDemangle", "CDyldCache", "CDwarfReference", "DebugInfoTestSupport", "TestSupport"]),
        .testTarget(name: "CrashReportTests", dependencies: ["CrashReport", "TestSupport"]),
        .testTarget(name: "SymbolicationTests", dependencies: ["Symbolication", "TestSupport"]),
        .testTarget(name: "GroupingTests", dependencies: ["Grouping", "Symbolication", "CrashReport", "TestSupport"]),
        // `make check` adds these: the tests that compare with oracles over every fixture, the
        // corpus and glibc, read the producers' programs or the release program, or take
        // seconds each (IntegrationTests: a folder per library, as in Sources), and the
        // end-to-end tests of the program (CLITests).
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["DebugInfo", "CDemangle", "CDwarfReference", "DebugInfoTestSupport", "TestSupport"]
        ),
        .testTarget(name: "CLITests", dependencies: ["TestSupport"]),
    ],
    // Swift 5 mode, as before swift-tools-version 6.1 (which the traits above need).
    swiftLanguageModes: [.v5],
    cxxLanguageStandard: .cxx17
)
