"""KSCrash twins of the fixture crash reports; imported and run by make_reports.py.

Each report NAME.crash gets build/kscrash/NAME.json: a KSCrash report (version 3.3.0, the
shape SentryCrash writes too), pretty-printed, with `report`, `system`, `binary_images` (every
image of the report: `image_addr`, `image_vmaddr`, `image_size`, `name` (its path), `uuid`
(dashed, upper case), `cpu_type`, `cpu_subtype`) and `crash`: the exception as `error` and
one thread per thread of the report, each frame with `instruction_addr`, `object_addr` and
`object_name`, and for a frame the report names (`symbol + offset`) `symbol_name` and
`symbol_addr` (the address less the offset), as the reporter names frames on the device. The
crashed thread has `crashed` and `current_thread` true. The .crash report is the twin's
oracle: every frame must resolve as the frame of the same address does there.

For App-arm64 also:
  App-arm64-exception.json   the report of an uncaught NSException (`nsexception` name and
                             reason), with a nested `recrash_report` (not read)
  App-arm64-reports.json     App-arm64's and App-arm64-dwarf5's reports in one compact JSON
                             array: two reports whose images are at other addresses
"""

import json
import os
import re

CPU = {"arm64": (0x0100000C, 0), "arm64e": (0x0100000C, 2), "x86_64": (0x01000007, 3),
       "arm64_32": (0x0200000C, 1), "armv7": (12, 9)}
FROM_EXCEPTION = {"EXC_BAD_ACCESS": 1, "EXC_BAD_INSTRUCTION": 2, "EXC_ARITHMETIC": 3, "EXC_BREAKPOINT": 6,
                  "EXC_CRASH": 10, "EXC_RESOURCE": 11, "EXC_GUARD": 12}
FROM_SIGNAL = {"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGFPE": 8, "SIGKILL": 9, "SIGBUS": 10, "SIGSEGV": 11}
# 2021-03-14 08:26:53.531200 UTC, in microseconds, as KSCrash writes `timestamp`.
TIMESTAMP = 1615710413531200


def dashed_upper(uuid):
    plain = uuid.replace("-", "").upper()
    return "-".join((plain[0:8], plain[8:12], plain[12:16], plain[16:20], plain[20:32]))


def field(fields, key, default=""):
    return (fields.get(key) or [default])[0]


def binary_image(image):
    cpu_type, cpu_subtype = CPU.get(image.arch, (0, 0))
    return {"image_addr": image.start, "image_vmaddr": image.vmaddr if image.vmaddr is not None else 0,
            "image_size": image.end - image.start + 1, "name": image.path, "uuid": dashed_upper(image.uuid),
            "cpu_type": cpu_type, "cpu_subtype": cpu_subtype, "major_version": 0, "minor_version": 0,
            "revision_version": 0}


def frame_entry(frame):
    entry = {"instruction_addr": frame.addr, "object_addr": frame.image.start,
             "object_name": os.path.basename(frame.image.path)}
    if frame.form == "symbol":
        entry["symbol_name"] = frame.symbol
        entry["symbol_addr"] = frame.addr - frame.symbol_offset
    return entry


def thread_entry(number, headers, frames, crashed):
    entry = {"index": number, "crashed": crashed, "current_thread": crashed,
             "backtrace": {"contents": [frame_entry(f) for f in frames], "skipped": 0}}
    for header in headers:
        m = re.match(r"^Thread \d+ name:\s*(.*)$", header)
        if m:
            text = m.group(1).strip()
            if text.startswith("Dispatch queue: "):
                entry["dispatch_queue"] = text[len("Dispatch queue: "):]
            elif text:
                entry["name"] = text
    if crashed and frames:
        entry["registers"] = {"basic": {"pc": frames[0].addr, "sp": 0x16d5a3a40, "fp": 0x16d5a3a70},
                              "exception": {"exception": 0}}
    return entry


def os_parts(text):
    """"iPhone OS 14.4 (18D52)" -> ("iPhone OS", "14.4", "18D52")."""
    m = re.match(r"^(.*?)\s+([\d.]+)\s+\((\w+)\)", text)
    return m.groups() if m else (text, "", "")


def kscrash_report(report, fields, number=0):
    process, _, pid = field(fields, "Process").partition(" [")
    first, _, second = field(fields, "Version").partition(" (")
    second = second.rstrip(")")
    build, short = (first, second) if report.style == "ios" else (second, first)
    system_name, system_version, os_build = os_parts(field(fields, "OS Version"))
    exception, _, signal = field(fields, "Exception Type").partition(" (")
    exception, signal = exception.strip(), signal.rstrip(")")
    codes = [c.strip() for c in field(fields, "Exception Codes", "0x0").split(",")]
    code = int(codes[0], 16) if codes[0].startswith("0x") else 0
    subcode = int(codes[1], 16) if len(codes) > 1 and codes[1].startswith("0x") else 0
    faulting = int((fields.get("Triggered by Thread") or fields.get("Crashed Thread") or ["0"])[0].split()[0])
    return {
        "report": {"version": "3.3.0", "id": "7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E4%d" % number,
                   "process_name": process, "timestamp": TIMESTAMP, "type": "standard"},
        "system": {"system_name": "iOS" if system_name == "iPhone OS" else system_name,
                   "system_version": system_version, "os_version": os_build,
                   "machine": field(fields, "Hardware Model", "MacBookPro18,3"), "cpu_arch": report.arch,
                   "CFBundleIdentifier": field(fields, "Identifier"), "CFBundleVersion": build,
                   "CFBundleShortVersionString": short, "CFBundleExecutablePath": field(fields, "Path"),
                   "process_name": process, "process_id": int(pid.rstrip("]") or 0)},
        "binary_images": [binary_image(image) for image in report.images],
        "crash": {
            "error": {"type": "mach", "address": subcode,
                      "mach": {"exception": FROM_EXCEPTION.get(exception, 0), "exception_name": exception,
                               "code": code, "subcode": subcode},
                      "signal": {"signal": FROM_SIGNAL.get(signal, 0), "name": signal, "code": 0}},
            "threads": [thread_entry(n, headers, frames, n == faulting) for n, headers, frames in report.threads],
        },
    }


def pretty(value):
    return json.dumps(value, indent=2) + "\n"


def write_kscrash_twins(build, reports, header_fields):
    directory = os.path.join(build, "kscrash")
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):
        if stale.endswith(".json"):
            os.remove(os.path.join(directory, stale))
    written = {}
    for number, report in enumerate(reports):
        fields, _ = header_fields(report)
        twin = kscrash_report(report, fields, number)
        written[report.name] = twin
        with open(os.path.join(directory, report.name + ".json"), "w") as f:
            f.write(pretty(twin))
    arm64 = written.get("App-arm64")
    if arm64 is None:
        return
    exception = json.loads(json.dumps(arm64))
    exception["crash"]["error"] = {
        "type": "nsexception", "reason": "*** -[__NSArrayM objectAtIndex:]: index 4 beyond bounds [0 .. 2]",
        "nsexception": {"name": "NSRangeException", "reason": "*** -[__NSArrayM objectAtIndex:]: index 4 beyond bounds [0 .. 2]"},
        "mach": {"exception": 10, "exception_name": "EXC_CRASH", "code": 0, "subcode": 0},
        "signal": {"signal": 6, "name": "SIGABRT", "code": 0}}
    exception["recrash_report"] = json.loads(json.dumps(arm64))
    with open(os.path.join(directory, "App-arm64-exception.json"), "w") as f:
        f.write(pretty(exception))
    if "App-arm64-dwarf5" in written:
        with open(os.path.join(directory, "App-arm64-reports.json"), "w") as f:
            f.write(json.dumps([arm64, written["App-arm64-dwarf5"]], separators=(",", ":")) + "\n")
