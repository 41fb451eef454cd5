#!/usr/bin/env python3
"""Writes build/group-set/reports/: the grouping measurement set, crash reports of known kinds.
Standard library only; run by build.sh after it built build/group-set/bin/ (the app of
src/groupset/app.c for each BUILDS entry, with its dSYM), reusing make_reports.py's makers.

One app, one bug per crash kind (KINDS), each built for arm64, arm64e and x86_64 (macOS), the
iOS simulator's arm64 and x86_64, at -O0 and -O2. Every app address is real: the crash pc is
the last instruction of the marked source line (`/* crash: KIND */`) in the DWARF line table,
every other app frame the return address after a call found by llvm-objdump. Functions the
compiler inlined have no call of their own: the caller search walks down the kind's chain of
functions to the first one that holds a call (`callers`), so -O0 and -O2 builds both work; the
inlined frames come back when the report is symbolicated. System frames are made up, as in
make_reports.py. Each (kind, build) gives a .crash report and an .ips report (bug_type 309),
each at a load address of its own.

build/group-set/kinds.tsv gives each report's true kind, written here and not by the tool:

    report-file    kind    arch    optimization    form
"""

import argparse
import hashlib
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reports as mr  # noqa: E402

# name, clang target, arch (as reports write it), report style, simulator
BUILDS = [
    ("arm64-O0", "arm64-apple-ios14.0", "arm64", "ios", False),
    ("arm64-O2", "arm64-apple-ios14.0", "arm64", "ios", False),
    ("arm64e-O0", "arm64e-apple-ios14.0", "arm64e", "ios", False),
    ("arm64e-O2", "arm64e-apple-ios14.0", "arm64e", "ios", False),
    ("x86_64-O0", "x86_64-apple-macos11", "x86_64", "macos11", False),
    ("x86_64-O2", "x86_64-apple-macos11", "x86_64", "macos11", False),
    ("sim-arm64-O0", "arm64-apple-ios14.0-simulator", "arm64", "macos11", True),
    ("sim-arm64-O2", "arm64-apple-ios14.0-simulator", "arm64", "macos11", True),
    ("sim-x86_64-O0", "x86_64-apple-ios14.0-simulator", "x86_64", "macos11", True),
    ("sim-x86_64-O2", "x86_64-apple-ios14.0-simulator", "x86_64", "macos11", True),
]

# kind -> the app functions from the crash to main, innermost first (C names).
CHAINS = {
    "null-deref": ["row_width", "layout_rows", "screen_table"],
    "bounds": ["element_at", "total_price", "screen_cart"],
    "unwrap": ["unwrap_user", "current_user_name", "screen_profile"],
    "abort": ["validate_state", "save_document", "screen_editor"],
    "exception": ["parse_config", "load_settings", "screen_settings"],
    "stack-smash": ["copy_name", "rename_account", "screen_account"],
    "jump": ["run_callback", "dispatch_event", "screen_events"],
    "overflow": ["walk_tree", "tree_weight", "screen_tree"],
    "divide": ["average", "summarize", "screen_stats"],
    "watchdog": ["wait_for_catalog", "load_catalog", "screen_catalog"],
    "memory": ["grow_cache", "cache_image", "screen_gallery"],
    "simulator": ["label_length", "draw_label", "screen_labels"],
}
# Kinds that only one kind of device reports: iOS's watchdog and memory limit (not macOS, not
# the simulator); the simulator kind only in the simulator.
DEVICE_ONLY = {"watchdog", "memory"}
TRAPS = {"bounds", "unwrap", "divide"}
HEAP = {"arm64": 0x283A4C120, "arm64e": 0x283A4C120, "x86_64": 0x6000038F4C40}


def callers(app, chain, start, callee):
    """Return-address frames from the first caller of `callee` (a function, a stub such as
    `_abort`, or None for an indirect call) down to main: each frame the return address in a
    real function (one in the disassembly) of the chain at or after `start` that calls the one
    above, inlined functions having no call of their own. An extern function inlined into its
    caller keeps an out-of-line copy that nothing calls: a path that does not reach main is
    given up for the next caller (None when none does)."""
    for k in range(start, len(chain)):
        name = "_" + chain[k]
        if name not in app.dis.functions:
            continue
        ret = return_after(app.dis, name, callee)
        if ret is None:
            continue
        frame = mr.Frame(app.image, app.slide(ret))
        if chain[k] == "main":
            return [frame]
        rest = callers(app, chain, k + 1, name)
        if rest:
            return [frame] + rest
    return None


def return_after(dis, caller, callee):
    """The address after the first call from `caller` to `callee` (None: an indirect call),
    or None when there is none."""
    body = dis.function(caller)[2]
    for i, (addr, mnemonic, operands) in enumerate(body):
        if callee is None:
            if mnemonic.startswith("blr") or (mnemonic.startswith("call") and "*" in operands):
                return dis._next_address(addr)
            continue
        if not dis._is_call(mnemonic):
            continue
        m = re.match(r"0x([0-9a-f]+)", operands)
        if m:
            target = int(m.group(1), 16)
            if dis.by_start.get(target) == callee or dis.stubs.get(target) == callee:
                return dis._next_address(addr)
    return None


def crash_pcs(app, tables, chain, line):
    """The candidate crash pcs, one per real function of the chain holding rows of app.c:line
    (the last row of the first run of them), with that function: an extern function the
    compiler inlined into its caller has an out-of-line copy of the line too."""
    found = []
    for table in tables:
        rows = table["rows"]
        for i, (addr, ln, fileno, end) in enumerate(rows):
            if end or ln != line or os.path.basename(table["files"].get(fileno, "")) != "app.c":
                continue
            while i + 1 < len(rows) and rows[i + 1][1] == line and rows[i + 1][2] == fileno and not rows[i + 1][3]:
                i += 1
            holder = next((name for name, (s, e, _) in app.dis.functions.items() if s <= rows[i][0] < e), None)
            if holder and holder[1:] in chain and holder not in [h for _, h in found]:
                found.append((rows[i][0], holder))
    return found


def crash_site(app, tables, chain, lines):
    """The crash pc whose function main reaches through the chain, that function and the
    return-address frames below it: of the first of `lines` that has rows."""
    sites = next((found for found in (crash_pcs(app, tables, chain, line) for line in lines) if found), [])
    for vm, holder in sites:
        below = callers(app, chain, chain.index(holder[1:]) + 1, holder)
        if below:
            return vm, holder, below
    mr.fail("no crash site of app.c:%s that main reaches" % lines)


def system_images(style, arch, simulator):
    """Made-up system images of the report's platform: name -> Image."""
    if simulator:
        root = ("/Library/Developer/CoreSimulator/Volumes/iOS_18A373/Library/Developer/CoreSimulator/Profiles/"
                "Runtimes/iOS 14.0.simruntime/Contents/Resources/RuntimeRoot")
        base = 0x7FF800000000 if arch == "x86_64" else 0x180000000
        table = [("kernel", "libsystem_kernel.dylib", "/usr/lib/system/libsystem_kernel.dylib"),
                 ("pthread", "libsystem_pthread.dylib", "/usr/lib/system/libsystem_pthread.dylib"),
                 ("dyld", "dyld", "/usr/lib/dyld"),
                 ("dyld_sim", "dyld_sim", root + "/usr/lib/dyld_sim"),
                 ("objc", "libobjc.A.dylib", root + "/usr/lib/libobjc.A.dylib"),
                 ("cf", "CoreFoundation", root + "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"),
                 ("uikit", "UIKitCore", root + "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore")]
    elif style == "ios":
        base = 0x1A0000000
        table = [("kernel", "libsystem_kernel.dylib", "/usr/lib/system/libsystem_kernel.dylib"),
                 ("pthread", "libsystem_pthread.dylib", "/usr/lib/system/libsystem_pthread.dylib"),
                 ("libc", "libsystem_c.dylib", "/usr/lib/system/libsystem_c.dylib"),
                 ("malloc", "libsystem_malloc.dylib", "/usr/lib/system/libsystem_malloc.dylib"),
                 ("dispatch", "libdispatch.dylib", "/usr/lib/system/libdispatch.dylib"),
                 ("cxxabi", "libc++abi.dylib", "/usr/lib/libc++abi.dylib"),
                 ("objc", "libobjc.A.dylib", "/usr/lib/libobjc.A.dylib"),
                 ("cf", "CoreFoundation", "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"),
                 ("dyld", "libdyld.dylib", "/usr/lib/system/libdyld.dylib")]
    else:
        base = 0x7FFF20000000
        table = [("kernel", "libsystem_kernel.dylib", "/usr/lib/system/libsystem_kernel.dylib"),
                 ("pthread", "libsystem_pthread.dylib", "/usr/lib/system/libsystem_pthread.dylib"),
                 ("libc", "libsystem_c.dylib", "/usr/lib/system/libsystem_c.dylib"),
                 ("malloc", "libsystem_malloc.dylib", "/usr/lib/system/libsystem_malloc.dylib"),
                 ("dispatch", "libdispatch.dylib", "/usr/lib/system/libdispatch.dylib"),
                 ("cxxabi", "libc++abi.dylib", "/usr/lib/libc++abi.dylib"),
                 ("objc", "libobjc.A.dylib", "/usr/lib/libobjc.A.dylib"),
                 ("cf", "CoreFoundation", "/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation"),
                 ("dyld", "libdyld.dylib", "/usr/lib/system/libdyld.dylib")]
    sys_arch = "arm64e" if arch.startswith("arm64") and not simulator else arch
    images = {}
    for k, (key, name, path) in enumerate(table):
        images[key] = mr.system_image(name, base + k * 0x1000000, 0x400000, sys_arch, path,
                                      version="*" if style == "ios" else "1.0")
    return images


def s(images, key, offset, symbol):
    return mr.sys_frame(images[key], offset, symbol, offset % 400)


def abort_frames(images):
    return [s(images, "kernel", 0x7930, "__pthread_kill"), s(images, "pthread", 0x6CC0, "pthread_kill"),
            s(images, "libc", 0x7B9C0, "abort")]


def make_report(ctx, kind, build, serial, form):
    """One report of `kind` in `build` (see BUILDS); `serial` picks its load address and date."""
    name, target, arch, style, simulator = build
    exe = os.path.join(ctx.build, "group-set/bin/App-" + name)
    dsym = exe + ".dSYM/Contents/Resources/DWARF/App-" + name
    seed = int(hashlib.md5(("%s %s %s" % (kind, name, form)).encode()).hexdigest()[:8], 16)
    if arch == "x86_64":
        load = 0x100000000 + (seed % 0x4000) * 0x1000
    else:
        load = 0x100000000 + (seed % 0x1000) * 0x4000
    if simulator:
        path = ("/Users/dev/Library/Developer/CoreSimulator/Devices/4E2B71D0-6A3F-4C8E-9B15-0D7E2A9C5F31/data/"
                "Containers/Bundle/Application/9C3D5E7F-1A2B-4C6D-8E0F-2B4D6F8A0C1E/App.app/App")
    elif style == "ios":
        path = mr.IOS_BUNDLE + "/App"
    else:
        path = mr.MAC_APP
    extra = {} if style == "ios" else dict(bundle="com.example.App", version="1.0 - 1", frame_name="App")
    dis_arch = "arm64" if arch == "arm64e" else arch
    image = mr.fixture_image(ctx.build, "App", os.path.relpath(dsym, ctx.build), dis_arch, load, path, **extra)
    image.arch = arch  # make_reports.py reads an arm64e slice as arm64
    app = mr.Fixture(image, disassembly(exe, arch))
    tables = mr.line_tables(dsym, arch)
    chain = CHAINS[kind] + ["app_run", "main"]
    images = system_images(style, arch, simulator)
    lines = [mr.source_line(ctx.src, "groupset/app.c", "/* crash: %s */" % kind)]
    with open(os.path.join(ctx.src, "groupset/app.c")) as f:
        lines += [n for n, text in enumerate(f, 1) if "/* or: %s */" % kind in text]

    pc = lr = None
    fault = None
    last_exception = None
    exc, sub, codes, signal, reason = "EXC_BAD_ACCESS (SIGSEGV)", None, None, "Segmentation fault: 11", "Namespace SIGNAL, Code 0xb"
    if kind in ("null-deref", "overflow") or kind in TRAPS:
        vm, holder, below = crash_site(app, tables, chain, lines)
        top = app.pc(vm)
        pc = top.addr
        lr = below[0].addr
        if kind == "overflow":
            # 512 frames, as reports cut them: the recursion's return addresses all the way.
            again = app.slide(return_after(app.dis, holder, holder))
            frames = [top] + [mr.Frame(image, again) for _ in range(511)]
            fault = 0x16B1FBFF0 if arch != "x86_64" else 0x7FF7B1FBFFF0
            sub = "KERN_PROTECTION_FAILURE at 0x%016x" % fault
        else:
            frames = [top] + below
            if kind == "null-deref":
                fault = 0
                sub = "KERN_INVALID_ADDRESS at 0x0000000000000000"
        if kind in TRAPS:
            if arch == "x86_64":
                exc, signal, reason = "EXC_BAD_INSTRUCTION (SIGILL)", "Illegal instruction: 4", "Namespace SIGNAL, Code 0x4"
                codes = "0x0000000000000001, 0x0000000000000000"
            else:
                exc, signal, reason = "EXC_BREAKPOINT (SIGTRAP)", "Trace/BPT trap: 5", "Namespace SIGNAL, Code 0x5"
                codes = "0x0000000000000001, 0x%016x" % pc
    elif kind in ("abort", "exception", "stack-smash", "watchdog", "memory", "simulator"):
        callee = {"abort": "_abort", "exception": "_objc_exception_throw", "stack-smash": "___stack_chk_fail",
                  "watchdog": "_dispatch_semaphore_wait", "memory": "_malloc", "simulator": "_objc_msgSend"}[kind]
        below = callers(app, chain, 0, callee) or mr.fail("no call of %s in %s" % (callee, build[0]))
        if kind == "abort":
            top = abort_frames(images)
        elif kind == "exception":
            throw = [s(images, "cf", 0x10A2B8, "__exceptionPreprocess"), s(images, "objc", 0x6C80, "objc_exception_throw")]
            last_exception = throw + below
            top = abort_frames(images) + [s(images, "cxxabi", 0x12F10, "abort_message"),
                                          s(images, "cxxabi", 0x3E14, "demangling_terminate_handler()"),
                                          s(images, "objc", 0x1A0B4, "_objc_terminate()"),
                                          s(images, "cxxabi", 0x161A4, "std::__terminate(void (*)())"),
                                          s(images, "objc", 0x6DC4, "objc_exception_throw")]
        elif kind == "stack-smash":
            top = abort_frames(images) + [s(images, "libc", 0x5B2C4, "__stack_chk_fail")]
            # The saved frame pointers below the smashed frame are gone in every other report.
            below = below if serial % 2 else below[:1]
        elif kind == "watchdog":
            top = [s(images, "kernel", 0x1A10, "semaphore_wait_trap"), s(images, "dispatch", 0x39F8, "_dispatch_sema4_wait"),
                   s(images, "dispatch", 0x3EB0, "_dispatch_semaphore_wait_slow")]
            exc, signal, reason = "EXC_CRASH (SIGKILL)", "Killed: 9", "Namespace FRONTBOARD, Code 0x8badf00d"
        elif kind == "memory":
            top = [s(images, "malloc", 0x1F2C4, "szone_malloc_should_clear"),
                   s(images, "malloc", 0x1C3A0, "malloc_zone_malloc"), s(images, "malloc", 0x1C2B4, "malloc")]
            exc, signal, reason = "EXC_RESOURCE", None, None
            sub = "MEMORY"
        else:
            top = [s(images, "objc", 0x5E24, "objc_msgSend")]
            fault = 0x10
            sub = "KERN_INVALID_ADDRESS at 0x0000000000000010"
        if kind in ("abort", "exception", "stack-smash"):
            exc, signal, reason = "EXC_CRASH (SIGABRT)", "Abort trap: 6", "Namespace SIGNAL, Code 0x6"
            codes = "0x0000000000000000, 0x0000000000000000"
        frames = top + below
        pc, lr = top[0].addr, top[1].addr if len(top) > 1 else below[0].addr
    elif kind == "jump":
        below = callers(app, chain, 0, None) or mr.fail("no indirect call in %s" % build[0])
        fault = HEAP[arch] + (seed % 64) * 0x40
        nowhere = mr.Image("???", 0, 0xFFFFFFFFFFFFFFFF, arch, "0" * 32, "???")
        # The unwinder stops at a pc no image holds in every other arm64 report: only lr is left.
        frames = [mr.Frame(nowhere, fault)] + ([] if serial % 2 == 0 and arch != "x86_64" else below)
        pc, lr = fault, below[0].addr
        sub = "KERN_PROTECTION_FAILURE at 0x%016x" % fault
        codes = "0x0000000000000002, 0x%016x" % fault
    if simulator:
        frames += [s(images, "dyld_sim", 0x1C84, "start_sim"), s(images, "dyld", 0x4F0C, "start")]
    elif len(frames) < 512:
        frames.append(s(images, "dyld", 0x1588, "start"))
    if arch == "arm64e" and lr is not None and lr < 0x1000000000:
        lr |= 0x2D4F << 48  # a signed return address

    version = "1 (1.0)" if style == "ios" else "1.0 (1)"
    day = 1 + serial % 28
    r = mr.Report("%s-%s-%s" % (kind, name, form), style, arch)
    code_type = "X86-64 (Native)" if arch == "x86_64" else "ARM-64 (Native)"
    w = 21 if style == "ios" else 23
    field = lambda key, value: (key + ":").ljust(w) + value
    r.text(field("Incident Identifier", mr.uuid_style(hashlib.md5(r.name.encode()).hexdigest(), "upper")),
           field("CrashReporter Key", hashlib.sha1(r.name.encode()).hexdigest()),
           field("Hardware Model", "iPhone12,1" if style == "ios" else "MacBookPro16,1"),
           field("Process", "App [%d]" % (1000 + serial)), field("Path", path), field("Identifier", "com.example.App"),
           field("Version", version), field("Code Type", code_type), field("Parent Process", "launchd [1]"), "",
           field("Date/Time", "2026-03-%02d 10:%02d:00.0000 +0100" % (day, serial % 60)),
           field("Launch Time", "2026-03-%02d 09:%02d:00.0000 +0100" % (day, serial % 60)),
           field("OS Version", "iPhone OS 14.4 (18D52)" if style == "ios" else "macOS 11.2.3 (20D91)"),
           field("Report Version", "104" if style == "ios" else "12"), "",
           field("Exception Type", exc))
    if sub:
        r.text(field("Exception Subtype", sub))
    if kind == "memory":
        r.text(field("Exception Message", "(Limit 2048 MB) Crashed due to excessive memory use"))
    if codes:
        r.text(field("Exception Codes", codes))
    if signal:
        r.text(field("Termination Signal", signal))
    if reason:
        r.text(field("Termination Reason", reason))
    r.text(field("Triggered by Thread" if style == "ios" else "Crashed Thread", "0"), "")
    if kind == "exception":
        r.text("Application Specific Information:",
               "*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: 'nil config'", "",
               "Last Exception Backtrace:")
        r.text(*[mr.frame_line(style, k, f) for k, f in enumerate(last_exception)])
        r.text("")
    r.thread(0, ["Thread 0 name:  Dispatch queue: com.apple.main-thread", "Thread 0 Crashed:"], frames)
    r.thread(1, ["Thread 1:"], [s(images, "pthread", 0x879C, "start_wqthread")])
    if arch == "x86_64":
        r.text("Thread 0 crashed with X86 Thread State (64-bit):")
        r.text(*mr.x86_64_state(pc, {"rsp": 0x7FF7BFEFF6A0, "rbp": 0x7FF7BFEFF6C0, "cr2": fault or 0}))
    else:
        r.text("Thread 0 crashed with ARM Thread State (64-bit):")
        r.text(*mr.arm64_state(pc=pc, lr=lr, fp=0x16B3D2F60, sp=0x16B3D2F10, regs={"x0": fault or 0},
                               esr="0x92000006 (Data Abort) byte read Translation fault", far=fault))
    r.text("")
    r.binary_images([image] + list(images.values()))
    r.text("", "EOF")
    return r, last_exception


def disassembly(exe, arch):
    """make_reports.Disassembly, with pointer-authentication instructions decoded for arm64e."""
    if arch != "arm64e":
        return mr.Disassembly(exe, arch)
    run = mr.run
    mr.run = lambda *args, **kw: run(*((args[0], "--mattr=+pauth") + args[1:]), **kw)
    try:
        return mr.Disassembly(exe, "arm64")
    finally:
        mr.run = run


def write_ips(report, last_exception, directory):
    """The report's .ips twin; frames in no image point to the `source: A` entry, as real ones do."""
    fields, information = mr.header_fields(report)
    body, images = mr.ips_body(report, fields, information)
    body = dict(body)
    used = body["usedImages"]
    for k, image in enumerate(images):
        if image.name == "???":
            used[k] = {"size": 0, "source": "A", "base": 0, "uuid": "00000000-0000-0000-0000-000000000000"}
    if last_exception:
        index = {id(image): k for k, image in enumerate(images)}
        body["lastExceptionBacktrace"] = [mr.ips_frame(f, index) for f in last_exception]
    with open(os.path.join(directory, report.name + ".ips"), "w") as f:
        f.write(mr.ips_text(mr.ips_metadata(report, fields, "309"), list(body.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--src", required=True)
    args = parser.parse_args()
    ctx = mr.Context()
    ctx.build = os.path.abspath(args.build)
    ctx.src = os.path.abspath(args.src)
    directory = os.path.join(ctx.build, "group-set/reports")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    rows = []
    serial = 0
    for kind in CHAINS:
        for build in BUILDS:
            name, _, arch, style, simulator = build
            if simulator != (kind == "simulator") or (kind in DEVICE_ONLY and style != "ios"):
                continue
            for form in ("crash", "ips"):
                serial += 1
                report, last_exception = make_report(ctx, kind, build, serial, form)
                if form == "crash":
                    report.write(directory)
                    os.remove(os.path.join(directory, report.name + ".expect.tsv"))
                else:
                    write_ips(report, last_exception, directory)
                rows.append("%s.%s\t%s\t%s\t%s\t%s" % (report.name, form, kind, arch if not simulator else "sim-" + arch,
                                                      name.rsplit("-", 1)[1], form))
    with open(os.path.join(ctx.build, "group-set/kinds.tsv"), "w") as f:
        f.write("".join(row + "\n" for row in rows))


if __name__ == "__main__":
    main()
