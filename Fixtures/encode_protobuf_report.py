#!/usr/bin/python3
"""Encodes a protobuf report for the tests with an encoder other than the one symbolicate
reads with: Python's protobuf package (Debian's python3-protobuf) over the classes
`protoc --python_out` makes of the schema in Protos/.

    Fixtures/encode_protobuf_report.py SCHEMA OUTPUT < message.json

SCHEMA is `tombstone` (an Android tombstone, written as crash_dump writes tombstone_NN.pb) or
`plcrash` (a PLCrashReporter report: the magic `plcrash`, version byte 1, then the message).
The JSON on standard input names the message's fields as the schema does (snake_case); a
`bytes` field takes a string (its UTF-8) or {"hex": "..."}; a map field takes an object whose
keys are its keys (numbers as strings).
"""
import glob
import importlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTOS = os.path.join(HERE, "..", "Protos")
MESSAGES = {"tombstone": ("tombstone", "Tombstone"), "plcrash": ("plcrash", "CrashReport")}


def fill(message, values):
    """Sets the fields of `message` from the dict `values`."""
    descriptor = message.DESCRIPTOR
    for name, value in values.items():
        field = descriptor.fields_by_name[name]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            target = getattr(message, name)
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                key = int(key) if key_field.cpp_type != key_field.CPPTYPE_STRING else key
                if value_field.message_type is not None:
                    fill(target[key], item)
                else:
                    target[key] = scalar(value_field, item)
        elif field.label == field.LABEL_REPEATED:
            target = getattr(message, name)
            for item in value:
                if field.message_type is not None:
                    fill(target.add(), item)
                else:
                    target.append(scalar(field, item))
        elif field.message_type is not None:
            fill(getattr(message, name), value)
        else:
            setattr(message, name, scalar(field, value))


def scalar(field, value):
    if field.type == field.TYPE_BYTES:
        if isinstance(value, dict):
            return bytes.fromhex(value["hex"])
        return value.encode("utf-8")
    if field.enum_type is not None and isinstance(value, str):
        return field.enum_type.values_by_name[value].number
    return value


def main():
    schema, output = sys.argv[1], sys.argv[2]
    module_name, message_name = MESSAGES[schema]
    with tempfile.TemporaryDirectory() as out:
        # The schema and the files it imports (Protos/NAME*.proto).
        schemas = sorted(glob.glob(os.path.join(PROTOS, module_name + "*.proto")))
        subprocess.run(["protoc", "--python_out=" + out, "-I", PROTOS] + schemas, check=True)
        sys.path.insert(0, out)
        module = importlib.import_module(module_name + "_pb2")
        message = getattr(module, message_name)()
        fill(message, json.load(sys.stdin))
        data = message.SerializeToString()
    with open(output, "wb") as f:
        if schema == "plcrash":
            f.write(b"plcrash\x01")
        f.write(data)


if __name__ == "__main__":
    main()
