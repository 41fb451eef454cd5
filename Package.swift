// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "symbolicate",
    products: [
        .executable(name: "symbolicate", targets: ["symbolicate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "CDwarf",
            linkerSettings: [
                .linkedLibrary("elf"), .linkedLibrary("z"), .linkedLibrary("zstd"), .linkedLibrary("stdc++"),
            ]
        ),
        // libdwarf reading what CDwarf reads, as the reference the tests compare with: only test
        // targets depend on it, so that the shipped program does not link libdwarf.
        .target(name: "CDwarfReference", dependencies: ["CDwarf"], linkerSettings: [.linkedLibrary("dwarf")]),
        .target(name: "CFaultGuard"),
        .target(name: "Platform"),
        .target(name: "DebugInfo", dependencies: ["CDwarf", "CFaultGuard", "Platform"]),
        .target(name: "CrashReport"),
        .target(name: "Symbolication", dependencies: ["DebugInfo", "CrashReport", "Platform"]),
        .target(name: "Grouping", dependencies: ["Symbolication", "DebugInfo", "CrashReport", "Platform"]),
        .executableTarget(
            name: "symbolicate",
            dependencies: [
                "Symbolication", "Grouping", "DebugInfo", "CrashReport", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CFaultGuardTests", dependencies: ["CFaultGuard", "TestSupport"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"]),
        .testTarget(name: "DebugInfoTests", dependencies: ["DebugInfo", "CDwarfReference", "TestSupport"]),
        .testTarget(name: "CrashReportTests", dependencies: ["CrashReport", "TestSupport"]),
        .testTarget(name: "SymbolicationTests", dependencies: ["Symbolication", "TestSupport"]),
        .testTarget(name: "GroupingTests", dependencies: ["Grouping", "Symbolication", "CrashReport", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport"]),
    ]
)
