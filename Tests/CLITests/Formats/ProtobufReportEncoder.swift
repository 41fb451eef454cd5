import Foundation
import TestSupport
import XCTest

/// Writes protobuf reports for the tests with an encoder other than the one symbolicate reads
/// with: `Fixtures/encode_protobuf_report.py`, Python's protobuf package (Debian's
/// python3-protobuf) over `protoc --python_out` of the schemas in Protos/. `make test` and
/// `make check` install both (the Makefile's TEST_PACKAGES).
enum ProtobufReportEncoder {
    /// The system's Python, which Debian's python3-protobuf serves.
    static let python = "/usr/bin/python3"

    /// Encodes `message` (the schema's fields by their names; a `bytes` field as a string or
    /// `["hex": ...]`) as a `tombstone` or `plcrash` report at `path`.
    static func encode(_ schema: String, _ message: [String: Any], to path: String) throws {
        let script = TestPaths.packageRoot.appendingPathComponent("Fixtures/encode_protobuf_report.py").path
        guard FileManager.default.isExecutableFile(atPath: python),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/protoc") else {
            throw FixtureError("encoding a protobuf report needs \(python) with python3-protobuf and protoc "
                               + "(apt-get install python3-protobuf protobuf-compiler; make setup-test installs them)")
        }
        let input = try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])
        let result = try runProcess(python, [script, schema, path], input: input)
        guard result.status == 0 else {
            throw FixtureError("\(script) \(schema) failed (\(result.status)): \(result.stderrText)")
        }
    }
}
