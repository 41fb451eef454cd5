// A program that crashes the way a Swift program on Linux does, for the Swift runtime's
// backtracer: `swiftcrash MODE` with MODE one of generic, thread, async.
#if canImport(Glibc)
import Glibc
#endif

let mode = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "generic"
switch mode {
case "thread": crashOnSecondThread()
case "async": await crashInTask()
default: crashInGenericCode()
}
