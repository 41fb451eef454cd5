"""MetricKit twins of the fixture crash reports; imported and run by make_reports.py.

Each report NAME.crash gets build/metrickit/NAME.json: an MXDiagnosticPayload, as
`MXDiagnosticPayload.jsonRepresentation()` writes it (pretty-printed, " : " after keys), holding one
crash diagnostic whose call-stack tree has one call stack per thread of the report: the thread's
frame 0 is the root frame, every later frame the only sub-frame of the one before, each with
`binaryUUID`, `offsetIntoBinaryTextSegment` (address - the image's load address), `sampleCount`,
`binaryName` and `address`. The crashed thread is `threadAttributed`. The .crash report is the
twin's oracle: every frame must resolve as the frame of the same address does there.

For App-arm64 also:
  App-arm64-diagnostics.json        one hang, CPU exception, disk-write exception and app-launch
                                    diagnostic over the same frames; the CPU exception's tree is
                                    sampled (callStackPerThread false): two root frames, and a frame
                                    with two sub-frames; a frame at offset 0 of its image; a frame
                                    with an offset but no address
  App-arm64-crash-diagnostic.json   the crash diagnostic alone (MXCrashDiagnostic.jsonRepresentation())
  App-arm64-payloads.json           the two payloads in one JSON array, compact, as apps upload them
"""

import json
import os

from_exception = {"EXC_BAD_ACCESS": 1, "EXC_BAD_INSTRUCTION": 2, "EXC_ARITHMETIC": 3, "EXC_BREAKPOINT": 6,
                  "EXC_CRASH": 10, "EXC_RESOURCE": 11, "EXC_GUARD": 12}
from_signal = {"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGFPE": 8, "SIGKILL": 9, "SIGBUS": 10, "SIGSEGV": 11}


def dashed_upper(uuid):
    plain = uuid.replace("-", "").upper()
    return "-".join((plain[0:8], plain[8:12], plain[12:16], plain[16:20], plain[20:32]))


def frame_object(frame, samples=1, address=True):
    entry = {"binaryUUID": dashed_upper(frame.image.uuid),
             "offsetIntoBinaryTextSegment": frame.addr - frame.image.start,
             "sampleCount": samples,
             "binaryName": frame.image.name}
    if address:
        entry["address"] = frame.addr
    return entry


def chain(frames, samples=1):
    """A linear call stack: frames[0] the root, each later frame the sub-frame of the one before."""
    root = None
    for frame in reversed(frames):
        entry = frame_object(frame, samples)
        if root is not None:
            entry["subFrames"] = [root]
        root = entry
    return root


def field(fields, key, default=""):
    return (fields.get(key) or [default])[0]


def metadata(report, fields, **extra):
    first, _, second = field(fields, "Version").partition(" (")
    second = second.rstrip(")")
    short, build = (second, first) if report.style == "ios" else (first, second)
    entry = {"appBuildVersion": build, "appVersion": short, "regionFormat": "DE",
             "osVersion": field(fields, "OS Version"), "bundleIdentifier": field(fields, "Identifier"),
             "deviceType": field(fields, "Hardware Model", "MacBookPro18,3"),
             "platformArchitecture": "arm64e" if report.arch.startswith("arm64") else "x86_64"}
    entry.update(extra)
    return entry


def crash_diagnostic(report, fields):
    exception, _, signal = field(fields, "Exception Type").partition(" (")
    codes = field(fields, "Exception Codes", "0x0").split(",")[0].strip()
    faulting = int((fields.get("Triggered by Thread") or fields.get("Crashed Thread") or ["0"])[0].split()[0])
    stacks = [{"threadAttributed": number == faulting, "callStackRootFrames": [chain(frames)]}
              for number, _, frames in report.threads]
    meta = metadata(report, fields,
                    exceptionType=from_exception.get(exception.strip(), 0),
                    exceptionCode=int(codes, 16) if codes.startswith("0x") else 0,
                    signal=from_signal.get(signal.rstrip(")"), 0),
                    terminationReason=field(fields, "Termination Reason", "Namespace SIGNAL, Code 0xb"),
                    virtualMemoryRegionInfo=field(fields, "VM Region Info", "0 is not in any region."))
    return {"version": "1.0.0", "callStackTree": {"callStackPerThread": True, "callStacks": stacks},
            "diagnosticMetaData": meta}


def other_diagnostics(report, fields):
    """Hang, CPU, disk-write and launch diagnostics over the frames of App-arm64's threads."""
    threads = {number: frames for number, _, frames in report.threads}
    main, engine, greeter = threads[0], threads[1], threads[2]
    hang = {"version": "1.0.0",
            "callStackTree": {"callStackPerThread": True, "callStacks": [
                {"threadAttributed": True, "callStackRootFrames": [chain(main, 7)]}]},
            "diagnosticMetaData": metadata(report, fields, hangDuration="4.5 sec")}

    # Sampled: the engine thread's stack, whose frame 2 (the first App frame) was also seen
    # called from another place (greeter's frames 2 and up), and greeter's stack as a second root.
    engine_tree = chain(engine[:2], 30)
    engine_tree["subFrames"][0]["subFrames"] = [chain(engine[2:], 18), chain(greeter[2:], 12)]
    greeter_tree = chain(greeter, 9)
    # The offset alone (some collectors drop the address): still placed in its image by its UUID.
    del greeter_tree["subFrames"][0]["address"]
    cpu = {"version": "1.0.0",
           "callStackTree": {"callStackPerThread": False, "callStacks": [
               {"threadAttributed": True, "callStackRootFrames": [engine_tree, greeter_tree]}]},
           "diagnosticMetaData": metadata(report, fields, totalCPUTime="90 sec", totalSampledTime="180 sec")}

    disk = {"version": "1.0.0",
            "callStackTree": {"callStackPerThread": False, "callStacks": [
                {"threadAttributed": True, "callStackRootFrames": [chain(greeter, 4)]}]},
            "diagnosticMetaData": metadata(report, fields, writesCaused="2,147.48 MB")}

    # Thread 4's only frame is start_wqthread + 0 of libsystem_pthread: made the image's first
    # byte here, an offset of 0, whose image base is its address.
    wq = threads[4][0]
    start_frame = frame_object(wq)
    start_frame["offsetIntoBinaryTextSegment"] = 0
    start_frame["binaryUUID"] = "0F0F0F0F-0000-4000-8000-000000000000"
    start_frame["binaryName"] = "libsystem_pthread_start.dylib"
    launch_stack = chain(main, 3)
    launch = {"version": "1.0.0",
              "callStackTree": {"callStackPerThread": True, "callStacks": [
                  {"threadAttributed": True, "callStackRootFrames": [launch_stack]},
                  {"threadAttributed": False, "callStackRootFrames": [start_frame]}]},
              "diagnosticMetaData": metadata(report, fields, launchDuration="21.2 sec")}
    return {"hangDiagnostics": [hang], "cpuExceptionDiagnostics": [cpu],
            "diskWriteExceptionDiagnostics": [disk], "appLaunchDiagnostics": [launch]}


def pretty(value):
    return json.dumps(value, indent=2, separators=(",", " : ")) + "\n"


def write_metrickit_twins(build, reports, header_fields):
    directory = os.path.join(build, "metrickit")
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):
        if stale.endswith(".json"):
            os.remove(os.path.join(directory, stale))
    span = {"timeStampEnd": "2021-03-14 23:59:00 +0000", "timeStampBegin": "2021-03-14 00:00:00 +0000"}
    for report in reports:
        fields, _ = header_fields(report)
        crash = crash_diagnostic(report, fields)
        payload = dict(span, crashDiagnostics=[crash])
        with open(os.path.join(directory, report.name + ".json"), "w") as f:
            f.write(pretty(payload))
        if report.name != "App-arm64":
            continue
        others = dict(span, **other_diagnostics(report, fields))
        with open(os.path.join(directory, report.name + "-diagnostics.json"), "w") as f:
            f.write(pretty(others))
        with open(os.path.join(directory, report.name + "-crash-diagnostic.json"), "w") as f:
            f.write(pretty(crash))
        with open(os.path.join(directory, report.name + "-payloads.json"), "w") as f:
            f.write(json.dumps([payload, others], separators=(",", ":")) + "\n")
