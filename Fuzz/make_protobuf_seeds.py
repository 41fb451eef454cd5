#!/usr/bin/python3
"""Writes the seeds of the protobuf report harnesses (protobuf_tombstone, plcrash_report) into
Fuzz/seeds/, with Fixtures/encode_protobuf_report.py (Python's protobuf package and protoc).
They are committed: Fuzz/run.sh copies them among the report seeds, so that fuzzing and its
replay need neither tool. Run it again after changing a schema in Protos/."""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ENCODER = os.path.join(HERE, "..", "Fixtures", "encode_protobuf_report.py")
LIB = "/data/app/~~x==/com.example-y==/lib/arm64/libcrashy.so"
BUILD_ID = "5f0e3a1c9d2a4e6f8091a2b3c4d5e6f708192a3b"


def frame(pc, function=None, offset=0, file=LIB, **extra):
    entry = {"rel_pc": pc, "pc": 0x74FA700000 + pc, "file_name": file, "build_id": BUILD_ID}
    if function:
        entry.update(function_name=function, function_offset=offset)
    entry.update(extra)
    return entry


TOMBSTONE = {
    "arch": "ARM64", "build_fingerprint": "google/redfin/redfin:13/TQ3A.230805.001/10316531:user/release-keys",
    "revision": "0", "timestamp": "2023-11-20 10:00:00.123456789+0100", "pid": 4242, "tid": 4242, "uid": 10123,
    "command_line": ["com.example"], "process_uptime": 12,
    "signal_info": {"number": 11, "name": "SIGSEGV", "code": 1, "code_name": "SEGV_MAPERR",
                    "has_fault_address": True, "fault_address": 0},
    "abort_message": "bad", "causes": [
        {"human_readable": "null pointer dereference"},
        {"human_readable": "use after free", "memory_error": {"tool": "GWP_ASAN", "type": "USE_AFTER_FREE", "heap": {
            "address": 4096, "size": 32, "allocation_tid": 1, "allocation_backtrace": [frame(0x4400)],
            "deallocation_tid": 2, "deallocation_backtrace": [frame(0x4410, "free", 4)]}}}],
    "threads": {
        "4242": {"id": 4242, "name": "example", "registers": [{"name": "x0", "u64": 0}, {"name": "pc", "u64": 0x433C}],
                 "backtrace_note": ["note"], "current_backtrace": [
                     frame(0x433C, "cart_total", 36), frame(0x43D8),
                     frame(0xC8C8, "Foo::bar(int) const", 24, file="/data/app/~~x==/com.example-y==/base.apk!libcrashy.so",
                           file_map_offset=0x4000)],
                 "memory_dump": [{"register_name": "x1", "mapping_name": "[stack]", "begin_address": 0x7FD2C1A1B0,
                                  "memory": {"hex": "41424344000000003c43740000000000"}}],
                 "tagged_addr_ctrl": 1, "pac_enabled_keys": 15},
        "4250": {"id": 4250, "name": "RenderThread", "current_backtrace": [frame(0x44C0, "worker_wait", 12)]},
    },
    "memory_mappings": [{"begin_address": 0x74FA700000, "end_address": 0x74FA704000, "read": True, "execute": True,
                         "mapping_name": LIB, "build_id": BUILD_ID, "load_bias": 0x1000}],
    "log_buffers": [{"name": "main", "logs": [{"timestamp": "11-20 10:00:00.100", "pid": 4242, "tid": 4242,
                                               "priority": 7, "tag": "DEBUG", "message": "hello"}]}],
    "open_fds": [{"fd": 0, "path": "/dev/null"}],
}

APP = "/var/containers/Bundle/Application/X/App.app/App"
PLCRASH = {
    "system_info": {"operating_system": "IPHONE_OS", "os_version": "17.2", "timestamp": 1697558592, "os_build": "21C62"},
    "application_info": {"identifier": "com.example.App", "version": "7", "marketing_version": "1.2"},
    "threads": [
        {"thread_number": 0, "crashed": True, "frames": [{"pc": 0x100004204},
                                                         {"pc": 0x1C0A8A30E, "symbol": {"name": "___pthread_kill", "start_address": 0x1C0A8A306}}],
         "registers": [{"name": "pc", "value": 0x100004204}, {"name": "lr", "value": 0x100004344}]},
        {"thread_number": 1, "crashed": False, "frames": [{"pc": 0x1C0A8A008}]}],
    "binary_images": [
        {"base_address": 0x100004000, "size": 0x8000, "name": APP, "uuid": {"hex": "4c4c44c355553144a19baf60d4f21f14"},
         "code_type": {"encoding": "TYPE_ENCODING_MACH", "type": 0x0100000C, "subtype": 0}},
        {"base_address": 0x1C0A8A000, "size": 0x32000, "name": "/usr/lib/system/libsystem_kernel.dylib",
         "uuid": {"hex": "df519c78c4e8052e5eb9c0e8bd6e80b4"},
         "code_type": {"encoding": "TYPE_ENCODING_MACH", "type": 0x0100000C, "subtype": 2}}],
    "exception": {"name": "NSRangeException", "reason": "index 4", "frames": [{"pc": 0x100004344}]},
    "signal": {"name": "SIGABRT", "code": "#0", "address": 0,
               "mach_exception": {"type": 10, "codes": [0, 0]}},
    "process_info": {"process_name": "App", "process_id": 1234, "process_path": APP, "parent_process_name": "launchd",
                     "parent_process_id": 1, "native": True},
    "machine_info": {"model": "iPhone15,2", "processor": {"encoding": "TYPE_ENCODING_MACH", "type": 0x0100000C,
                                                          "subtype": 2}, "processor_count": 6, "logical_processor_count": 6},
    "report_info": {"user_requested": False, "uuid": {"hex": "8c1b5d2e0c1a4e2b9f3d2a5b6c7d8e9f"}},
}

for schema, message, name in [("tombstone", TOMBSTONE, "tombstone_00.pb"), ("plcrash", PLCRASH, "App.plcrash")]:
    subprocess.run(["/usr/bin/python3", ENCODER, schema, os.path.join(HERE, "seeds", name)],
                   input=json.dumps(message).encode(), check=True)
