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
generate() {  # schema, output folder
    out=$(mktemp -d)
    protoc --plugin=protoc-gen-swift="$plugin" --swift_out="$out" --swift_opt=Visibility=Internal --swift_opt=UseAccessLevelOnImports=true -I "$here" "$here/$1"
    mv "$out/${1%.proto}.pb.swift" "$root/$2/"
    rmdir "$out"
}
generate tombstone.proto Sources/CrashReport/Formats/ProtobufTombstone
generate plcrash.proto Sources/CrashReport/Formats/PLCrash
