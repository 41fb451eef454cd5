let pipeline = Pipeline(items: Array(CommandLine.arguments.indices))
let width = pipeline.largest { $0 * 2 }
print(CRLCrashSwift().crash([1, 2, 3], at: width + CommandLine.arguments.count))
