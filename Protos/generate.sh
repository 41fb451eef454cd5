#!/bin/sh
# Regenerates the Swift code of the protobuf schemas in this folder into the format folders of
# Sources/CrashReport. Run it after changing a .proto file, and commit what it writes: the build
# never runs it, so that neither protoc nor swift-protobuf's plugin is needed to build.
#
#   PROTOC_GEN_SWIFT=/path/to/protoc-gen-swift Protos/generate.sh
#
# protoc: Debian's protobuf-compiler. protoc-gen-swift: built once from the swift-protobuf
# release Package.swift names (1.39.0), outside this repository:
#   git clone --branch 1.39.0 https://github.com/apple/swift-protobuf /tmp/swift-protobuf
#   swift build -c release --package-path /tmp/swift-protobuf --product protoc-gen-swift
# (about 10 minutes on 2 cores), then PROTOC_GEN_SWIFT=/tmp/swift-protobuf/.build/release/protoc-gen-swift.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
plugin=${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift || true)}
[ -n "$plugin" ] || { echo "generate.sh: set PROTOC_GEN_SWIFT to protoc-gen-swift (see this script's comment)" >&2; exit 1; }
generate() {  # output folder, schemas (each a Swift file of its own)
    folder=$1; shift
    out=$(mktemp -d)
    protoc --plugin=protoc-gen-swift="$plugin" --swift_out="$out" --swift_opt=Visibility=Internal --swift_opt=UseAccessLevelOnImports=true -I "$here" "$@"
    for schema in "$@"; do mv "$out/${schema%.proto}.pb.swift" "$root/$folder/"; done
    rmdir "$out"
}
cd "$here"
generate Sources/CrashReport/Formats/ProtobufTombstone tombstone.proto tombstone_cause.proto tombstone_thread.proto tombstone_process.proto
generate Sources/CrashReport/Formats/PLCrash plcrash.proto plcrash_process.proto plcrash_threads.proto plcrash_images.proto plcrash_exception.proto
