#!/usr/bin/env python3
"""Writes classic Apple crash reports for the Mach-O fixtures, their expectation
files and build/manifest.txt. Standard library only; run by build.sh.

Every address in a report is derived from the built binaries:
  - frame 0 of a thread whose top frame is in a fixture image is an instruction
    inside a function, found in the DWARF line table (a source line of inlined
    code, located by its text in src/);
  - every other fixture frame is a real return address: the instruction right
    after a call found with `llvm-objdump -d`.
The addresses are then slid to a load address different from the __TEXT vmaddr.

For each report NAME.crash, NAME.expect.tsv has one line per frame that belongs
to an image with a debug file:
  thread  frame  reported-address  debug-file  lookup-address
where lookup-address = address - load address + __TEXT vmaddr, minus the
caller adjustment for frames other than frame 0 (arm64: align down to 4, -4;
x86_64: -1; armv7: clear bit 0, -2). Debug-file paths are relative to build/.

Each report also gets a JSON twin, build/ips/NAME.ips (bug_type 309): the same
process, exception, threads, frames (device symbols included) and images, laid
out like the .ips files of iOS 15+ / macOS 12+ (a one-line metadata object, then
a body pretty-printed at the top level with compact threads). The .crash report
is the twin's oracle. build/ips/App-x86_64-109.ips is the macOS 11 report as a
bug_type 109 file: the metadata line, then the classic text. build/ips/App-arm64-exception.ips
is App-arm64.ips as an uncaught exception: its Last Exception Backtrace and asiBacktraces
hold thread 0's return addresses (frames 1 and up), whose resolutions App-arm64.crash gives.
"""

import argparse
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

from make_kscrash import write_kscrash_twins
from make_metrickit import write_metrickit_twins

OBJDUMP = os.environ.get("LLVM_OBJDUMP", "llvm-objdump")
DWARFDUMP = os.environ.get("LLVM_DWARFDUMP", "llvm-dwarfdump")
LIPO = os.environ.get("LIPO", "llvm-lipo-14")


def run(*args, quiet=False):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, universal_newlines=True,
                          stderr=subprocess.DEVNULL if quiet else None).stdout


def fail(message):
    sys.exit("make_reports.py: " + message)


# --------------------------------------------------------------------------
# Mach-O headers

CPU_NAMES = {0x01000007: "x86_64", 0x0100000C: "arm64", 0x0200000C: "arm64_32", 12: "arm"}


class Slice:
    def __init__(self, arch, uuid, segments):
        self.arch = arch
        self.uuid = uuid  # canonical: upper case, dashed
        self.segments = segments  # name -> (vmaddr, vmsize)

    @property
    def text_vmaddr(self):
        return self.segments["__TEXT"][0]

    @property
    def text_vmsize(self):
        return self.segments["__TEXT"][1]


def _thin_slice(data, base):
    magic = struct.unpack_from("<I", data, base)[0]
    if magic == 0xFEEDFACF:
        header_size = 32
    elif magic == 0xFEEDFACE:
        header_size = 28
    else:
        fail("not a Mach-O file (magic %#x)" % magic)
    cputype, cpusubtype, _, ncmds, _ = struct.unpack_from("<iiIII", data, base + 4)
    arch = CPU_NAMES.get(cputype & 0xFFFFFFFF, "unknown")
    if arch == "arm" and (cpusubtype & 0xFF) == 9:
        arch = "armv7"
    offset = base + header_size
    uuid = None
    segments = {}
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmd == 0x1B:  # LC_UUID
            raw = data[offset + 8:offset + 24].hex().upper()
            uuid = "-".join((raw[0:8], raw[8:12], raw[12:16], raw[16:20], raw[20:32]))
        elif cmd == 0x19:  # LC_SEGMENT_64
            name = data[offset + 8:offset + 24].rstrip(b"\0").decode()
            segments[name] = struct.unpack_from("<QQ", data, offset + 24)
        elif cmd == 0x1:  # LC_SEGMENT
            name = data[offset + 8:offset + 24].rstrip(b"\0").decode()
            segments[name] = struct.unpack_from("<II", data, offset + 24)
        offset += cmdsize
    if uuid is None or "__TEXT" not in segments:
        fail("Mach-O slice without LC_UUID or __TEXT")
    return Slice(arch, uuid, segments)


def macho_slices(path):
    """All slices of a thin or universal Mach-O file, in file order."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from(">I", data, 0)[0]
    if magic == 0xCAFEBABE:
        count = struct.unpack_from(">I", data, 4)[0]
        return [_thin_slice(data, struct.unpack_from(">iiIII", data, 8 + 20 * i)[2]) for i in range(count)]
    return [_thin_slice(data, 0)]


def macho_slice(path, arch):
    for s in macho_slices(path):
        if s.arch == arch:
            return s
    fail("%s has no %s slice" % (path, arch))


# --------------------------------------------------------------------------
# Disassembly: functions, call sites and return addresses


class Disassembly:
    FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
    INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")

    def __init__(self, path, arch):
        self.arch = arch
        self.functions = {}  # name -> [start, end, [(addr, mnemonic, operands)]]
        self.by_start = {}
        self.addresses = []
        current = None
        for line in run(OBJDUMP, "-d", "--no-show-raw-insn", path).splitlines():
            m = self.FUNC.match(line)
            if m:
                current = [int(m.group(1), 16), None, []]
                self.functions[m.group(2)] = current
                self.by_start[current[0]] = m.group(2)
                continue
            m = self.INSN.match(line)
            if m and current is not None:
                addr = int(m.group(1), 16)
                current[2].append((addr, m.group(2), m.group(3)))
                self.addresses.append(addr)
        self.addresses.sort()
        starts = sorted(self.by_start)
        for i, start in enumerate(starts):
            func = self.functions[self.by_start[start]]
            if i + 1 < len(starts):
                func[1] = starts[i + 1]
            else:
                func[1] = func[2][-1][0] + 16 if func[2] else start
        # Stubs of imported functions: address -> symbol name.
        self.stubs = {}
        section = None
        for line in run(OBJDUMP, "--macho", "--indirect-symbols", path).splitlines():
            if line.startswith("Indirect symbols for"):
                section = line
                continue
            m = re.match(r"^0x([0-9a-f]+)\s+\d+\s+(\S+)$", line.strip())
            if m and section and "__stubs" in section:
                self.stubs[int(m.group(1), 16)] = m.group(2)

    def function(self, name):
        if name not in self.functions:
            fail("function %s not found in the disassembly" % name)
        return self.functions[name]

    def _is_call(self, mnemonic):
        if self.arch.startswith("arm64"):
            return mnemonic in ("bl", "blr")
        if self.arch.startswith("arm"):
            return mnemonic in ("bl", "blx")
        return mnemonic.startswith("call")

    def _next_address(self, addr):
        for a in self.addresses:
            if a > addr:
                return a
        fail("no instruction after %#x" % addr)

    def return_address(self, caller, callee, nth=0):
        """Address right after the nth call from `caller` to `callee` (a function or an imported symbol)."""
        hits = []
        for addr, mnemonic, operands in self.function(caller)[2]:
            if not self._is_call(mnemonic):
                continue
            m = re.match(r"0x([0-9a-f]+)", operands)
            if not m:
                continue
            target = int(m.group(1), 16)
            if self.by_start.get(target) == callee or self.stubs.get(target) == callee:
                hits.append(self._next_address(addr))
        if len(hits) <= nth:
            fail("no call %d from %s to %s" % (nth, caller, callee))
        return hits[nth]


# --------------------------------------------------------------------------
# Line table: an instruction of a given source line inside a function


def line_tables(dwarf_file, arch):
    tables = []
    table = None
    pending_file = None
    row = re.compile(r"^0x([0-9a-f]+)\s+(\d+)\s+(\d+)\s+(\d+)\s")
    for line in run(DWARFDUMP, "--debug-line", "--arch=" + arch, dwarf_file).splitlines():
        if line.startswith("debug_line["):
            table = {"files": {}, "rows": []}
            tables.append(table)
            continue
        if table is None:
            continue
        m = re.match(r"^file_names\[\s*(\d+)\]:", line)
        if m:
            pending_file = int(m.group(1))
            continue
        m = re.match(r'^\s+name: "(.*)"$', line)
        if m and pending_file is not None:
            table["files"][pending_file] = m.group(1)
            pending_file = None
            continue
        m = row.match(line)
        if m:
            table["rows"].append((int(m.group(1), 16), int(m.group(2)), int(m.group(4)), "end_sequence" in line))
    return tables


def source_line(src, relpath, text):
    with open(os.path.join(src, relpath)) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    fail("%r not found in %s" % (text, relpath))


def pc_of_line(tables, function, filename, line):
    """Last row of the first run of rows for filename:line within the function's range."""
    start, end, _ = function
    for table in tables:
        rows = table["rows"]
        for i, (addr, ln, fileno, end_seq) in enumerate(rows):
            name = table["files"].get(fileno, "")
            if end_seq or not (start <= addr < end) or ln != line or os.path.basename(name) != filename:
                continue
            while (i + 1 < len(rows) and rows[i + 1][1] == line and rows[i + 1][2] == fileno
                   and not rows[i + 1][3] and rows[i + 1][0] < end):
                i += 1
            return rows[i][0]
    fail("no line-table row for %s:%d in the function at %#x" % (filename, line, start))


# --------------------------------------------------------------------------
# Images and frames


def fake_uuid(name):
    return hashlib.md5(("fixture-system-image:" + name).encode()).hexdigest().upper()


def uuid_style(uuid, style):
    plain = uuid.replace("-", "")
    if style == "plain":
        return plain.lower()
    dashed = "-".join((plain[0:8], plain[8:12], plain[12:16], plain[16:20], plain[20:32]))
    return dashed.upper() if style == "upper" else dashed.lower()


class Image:
    def __init__(self, name, start, end, arch, uuid, path, bundle=None, version=None,
                 app=False, debug=None, vmaddr=None, frame_name=None):
        self.name = name
        self.start = start
        self.end = end
        self.arch = arch
        self.uuid = uuid
        self.path = path
        self.bundle = bundle
        self.version = version
        self.app = app
        self.debug = debug  # debug file, relative to build/
        self.vmaddr = vmaddr
        self.frame_name = frame_name or name

    def contains(self, addr):
        return self.start <= addr <= self.end


def fixture_image(build, name, dsym_rel, arch, load, path, **kw):
    s = macho_slice(os.path.join(build, dsym_rel), arch)
    return Image(name, load, load + s.text_vmsize - 1, arch, s.uuid, path, app=True,
                 debug=dsym_rel, vmaddr=s.text_vmaddr, **kw)


def system_image(name, start, size, arch, path, version="*", bundle=None, frame_name=None):
    return Image(name, start, start + size - 1, arch, fake_uuid(name), path,
                 bundle=bundle, version=version, frame_name=frame_name)


class Frame:
    def __init__(self, image, addr, form="offset", symbol=None, symbol_offset=None):
        if not image.contains(addr):
            fail("frame address %#x outside %s" % (addr, image.name))
        self.image = image
        self.addr = addr
        self.form = form  # offset | symbol | image
        self.symbol = symbol
        self.symbol_offset = symbol_offset

    def rest(self):
        if self.form == "symbol":
            return "%s + %d" % (self.symbol, self.symbol_offset)
        if self.form == "image":
            return "%s + %d" % (self.image.frame_name, self.addr - self.image.start)
        return "%#x + %d" % (self.image.start, self.addr - self.image.start)


def sys_frame(image, offset, symbol=None, symbol_offset=0):
    """A frame in an image without a debug file, `offset` bytes into it."""
    if symbol:
        return Frame(image, image.start + offset, "symbol", symbol, symbol_offset)
    return Frame(image, image.start + offset)


class Fixture:
    """One Mach-O fixture image: frames are given as addresses of its own vm space."""

    def __init__(self, image, disassembly):
        self.image = image
        self.dis = disassembly

    def slide(self, vmaddr):
        addr = vmaddr - self.image.vmaddr + self.image.start
        if self.image.arch == "armv7":
            addr |= 1  # return addresses into Thumb code are odd
        return addr

    def pc(self, vmaddr):
        return Frame(self.image, vmaddr - self.image.vmaddr + self.image.start)

    def ret(self, caller, callee, nth=0, form="offset"):
        addr = self.slide(self.dis.return_address(caller, callee, nth))
        if form == "symbol":
            start = self.dis.function(caller)[0]
            symbol = caller[1:] if caller.startswith("_") else caller
            return Frame(self.image, addr, "symbol", symbol, addr - self.slide(start))
        return Frame(self.image, addr, form)


def caller_adjust(addr, arch):
    if arch.startswith("arm64"):
        return (addr & ~3) - 4
    if arch.startswith("arm"):
        return (addr & ~1) - 2
    return addr - 1


# --------------------------------------------------------------------------
# Report text


def frame_line(style, index, frame):
    name = frame.image.frame_name
    if style == "ios":
        return "%-4d%s0x%016x %s" % (index, (name + " ").ljust(36), frame.addr, frame.rest())
    if style == "macos11":
        return "%-4d%s\t0x%016x %s" % (index, name.ljust(30), frame.addr, frame.rest())
    if style == "macos12":
        return "%-4d%s\t%18s %s" % (index, name.ljust(30), "%#x" % frame.addr, frame.rest())
    raise ValueError(style)


def image_line(style, image):
    rng = "%18s - %18s" % ("%#x" % image.start, "%#x" % image.end)
    if style == "ios":
        return "%s %s %s  <%s> %s" % (rng, image.name, image.arch, uuid_style(image.uuid, "plain"), image.path)
    if style == "macos11":
        return "%s %s%s (%s) <%s> %s" % (rng, "+" if image.app else " ", image.bundle or image.name,
                                         image.version, uuid_style(image.uuid, "upper"), image.path)
    if style == "macos12":
        return "%s %s (%s) <%s> %s" % (rng, image.bundle or image.name, image.version,
                                       uuid_style(image.uuid, "lower"), image.path)
    raise ValueError(style)


def register_lines(names_values, first_width, width):
    """One line of a thread state block: the first name right-aligned in first_width, the rest in width."""
    return "".join("%*s: 0x%016x" % (first_width if i == 0 else width, name, value)
                   for i, (name, value) in enumerate(names_values))


def arm64_state(pc, lr, fp, sp, regs, esr=None, far=None):
    lines = []
    names = ["x%d" % i for i in range(29)]
    for row in range(0, 28, 4):
        lines.append(register_lines([(n, regs.get(n, 0)) for n in names[row:row + 4]], 6, 5))
    lines.append(register_lines([("x28", regs.get("x28", 0)), ("fp", fp), ("lr", lr)], 6, 5))
    lines.append(register_lines([("sp", sp), ("pc", pc)], 6, 5) + " cpsr: 0x%08x" % regs.get("cpsr", 0x60000000))
    if far is not None:
        lines.append("   far: 0x%016x      esr: %s" % (far, esr))
    elif esr is not None:
        lines.append("   esr: %s" % esr)
    return lines


def x86_64_state(rip, regs):
    names = ["rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp",
             "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
    lines = []
    for row in range(0, 16, 4):
        lines.append(register_lines([(n, regs.get(n, 0)) for n in names[row:row + 4]], 5, 5))
    lines.append(register_lines([("rip", rip), ("rfl", regs.get("rfl", 0x10246)), ("cr2", regs.get("cr2", 0))], 5, 5))
    return lines


class Report:
    def __init__(self, name, style, arch):
        self.name = name
        self.style = style
        self.arch = arch
        self.lines = []
        self.expect = []
        self.images = []
        self.threads = []  # (number, header lines, frames), for the .ips twin
        self.leading_images = []

    def text(self, *lines):
        self.lines.extend(lines)

    def thread(self, number, headers, frames):
        self.threads.append((number, list(headers), list(frames)))
        self.text(*headers)
        for index, frame in enumerate(frames):
            self.text(frame_line(self.style, index, frame))
            image = frame.image
            if image.debug:
                lookup = frame.addr - image.start + image.vmaddr
                if index > 0:
                    lookup = caller_adjust(lookup, image.arch)
                self.expect.append("%d\t%d\t%#x\t%s\t%#x" % (number, index, frame.addr, image.debug, lookup))
        self.text("")

    def binary_images(self, images, leading=()):
        self.images = list(images)
        self.leading_images = list(leading)
        self.text("Binary Images:", *leading)
        for image in sorted(images, key=lambda i: i.start):
            self.text(image_line(self.style, image))

    def write(self, directory):
        with open(os.path.join(directory, self.name + ".crash"), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        with open(os.path.join(directory, self.name + ".expect.tsv"), "w") as f:
            f.write("".join(line + "\n" for line in self.expect))


# --------------------------------------------------------------------------
# The reports

IOS_BUNDLE = "/private/var/containers/Bundle/Application/2B1F7E0D-8C1A-4F7B-9E5D-3A6C0F4B8D21/App.app"


def ios_system_images():
    arch = "arm64e"
    return {
        "kernel": system_image("libsystem_kernel.dylib", 0x1C0A8A000, 0x32000, arch,
                               "/usr/lib/system/libsystem_kernel.dylib"),
        "pthread": system_image("libsystem_pthread.dylib", 0x1DD5BD000, 0xC000, arch,
                                "/usr/lib/system/libsystem_pthread.dylib"),
        "libc": system_image("libsystem_c.dylib", 0x1A7E59000, 0x7F000, arch,
                             "/usr/lib/system/libsystem_c.dylib"),
        "dyld": system_image("libdyld.dylib", 0x1A6D79000, 0x2000, arch, "/usr/lib/system/libdyld.dylib"),
        "cf": system_image("CoreFoundation", 0x1A6FDF000, 0x3C8000, arch,
                           "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"),
        "foundation": system_image("Foundation", 0x1A829A000, 0x2C9000, arch,
                                   "/System/Library/Frameworks/Foundation.framework/Foundation"),
        "gs": system_image("GraphicsServices", 0x1BE6EA000, 0x9000, arch,
                           "/System/Library/PrivateFrameworks/GraphicsServices.framework/GraphicsServices"),
        "fbs": system_image("FrontBoardServices", 0x1B6A26000, 0xE9000, arch,
                            "/System/Library/PrivateFrameworks/FrontBoardServices.framework/FrontBoardServices"),
        "uikit": system_image("UIKitCore", 0x1A8F06000, 0x16F9000, arch,
                              "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore"),
    }


def make_arm64_report(ctx, name, dsym_rel, exe_rel, load, greeter_load, greeter_dsym_rel, greeter_rel,
                      fault_line=None, fault_file="parser.c"):
    app = Fixture(fixture_image(ctx.build, "App", dsym_rel, "arm64", load, IOS_BUNDLE + "/App"),
                  Disassembly(os.path.join(ctx.build, exe_rel), "arm64"))
    greeter = Fixture(fixture_image(ctx.build, "libGreeter.dylib", greeter_dsym_rel, "arm64", greeter_load,
                                    IOS_BUNDLE + "/Frameworks/libGreeter.dylib"),
                      Disassembly(os.path.join(ctx.build, greeter_rel), "arm64"))
    sysimg = ios_system_images()
    tables = line_tables(os.path.join(ctx.build, dsym_rel), "arm64")
    fault_vm = pc_of_line(tables, app.dis.function("_parse_record"), fault_file, fault_line or ctx.fault_line)
    crash = app.pc(fault_vm)
    ret_process = app.ret("_process_records", "_parse_record")
    uik = sysimg["uikit"]
    cf = sysimg["cf"]

    r = Report(name, "ios", "arm64")
    r.text(
        "Incident Identifier: 7C1E6A52-93B4-4E0F-8D2A-5F6B1C9D3E47",
        "CrashReporter Key:   4e1f0c9a7d3b2e58a6f1c0d9b8e7a6f5d4c3b2a1",
        "Hardware Model:      iPhone12,1",
        "Process:             App [1234]",
        "Path:                " + IOS_BUNDLE + "/App",
        "Identifier:          com.example.App",
        "Version:             1 (1.0)",
        "Code Type:           ARM-64 (Native)",
        "Role:                Foreground",
        "Parent Process:      launchd [1]",
        "Coalition:           com.example.App [611]",
        "",
        "",
        "Date/Time:           2021-03-14 09:26:53.5312 +0100",
        "Launch Time:         2021-03-14 09:26:53.1187 +0100",
        "OS Version:          iPhone OS 14.4 (18D52)",
        "Release Type:        User",
        "Baseband Version:    2.04.01",
        "Report Version:      104",
        "",
        "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
        "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000000",
        "Exception Codes: 0x0000000000000001, 0x0000000000000000",
        "VM Region Info: 0 is not in any region.  Bytes before following region: %d" % (app.image.start),
        "      REGION TYPE                 START - END      [ VSIZE] PRT/MAX SHRMOD  REGION DETAIL",
        "      UNUSED SPACE AT START",
        "--->  ",
        "      __TEXT                   %x-%x [%5dK] r-x/r-x SM=COW  ...App.app/App" % (
            app.image.start, app.image.end + 1, (app.image.end + 1 - app.image.start) // 1024),
        "",
        "Termination Signal: Segmentation fault: 11",
        "Termination Reason: Namespace SIGNAL, Code 0xb",
        "Terminating Process: exc handler [1234]",
        "Triggered by Thread:  0",
        "",
    )
    r.thread(0, ["Thread 0 name:  Dispatch queue: com.apple.main-thread", "Thread 0 Crashed:"], [
        crash,
        ret_process,
        app.ret("_app_did_finish_launching", "_process_records"),
        sys_frame(uik, 0x3C8D4, "-[UIApplication _handleDelegateCallbacksWithOptions:isSuspended:restoreState:]", 356),
        sys_frame(uik, 0x3E7A8, "-[UIApplication _callInitializationDelegatesWithActions:forCanvas:payload:fromOriginatingProcess:]", 3092),
        sys_frame(uik, 0x43F10, "-[UIApplication _runWithMainScene:transitionContext:completion:]", 1216),
        sys_frame(uik, 0x9F3B24),
        sys_frame(sysimg["fbs"], 0x2D8A0, "__FBSSERIALQUEUE_IS_CALLING_OUT_TO_A_BLOCK__", 40),
        sys_frame(cf, 0xA1F7C, "__CFRUNLOOP_IS_CALLING_OUT_TO_A_SOURCE0_PERFORM_FUNCTION__", 28),
        sys_frame(cf, 0xA1E7C),
        sys_frame(cf, 0xA1254, "__CFRunLoopRun", 2540),
        sys_frame(cf, 0x9B77C, "CFRunLoopRunSpecific", 572),
        sys_frame(sysimg["gs"], 0x3F40, "GSEventRunModal", 160),
        sys_frame(uik, 0xB8E91C, "-[UIApplication _run]", 1052),
        sys_frame(uik, 0xB93C68, "UIApplicationMain", 164),
        app.ret("_main", "_UIApplicationMain", form="symbol"),
        sys_frame(sysimg["dyld"], 0x1588, "start", 4),
    ])
    r.thread(1, ["Thread 1:"], [
        sys_frame(sysimg["kernel"], 0x2BC4, "swtch_pri", 8),
        sys_frame(sysimg["libc"], 0x5B9C8, "sched_yield", 16),
        app.ret("__ZN6engine9Scheduler7executeERNS_4TaskE", "_sched_yield"),
        app.ret("__ZN6engine9Scheduler3runEi", "__ZN6engine9Scheduler7executeERNS_4TaskE"),
        app.ret("_engine_run", "__ZN6engine9Scheduler3runEi"),
        app.ret("_engine_thread_main", "_engine_run"),
        sys_frame(sysimg["pthread"], 0x1CB4, "_pthread_start", 148),
        sys_frame(sysimg["pthread"], 0x87A8, "thread_start", 8),
    ])
    r.thread(2, ["Thread 2 name:  greeter", "Thread 2:"], [
        sys_frame(sysimg["kernel"], 0x1E3F8, "write", 8),
        greeter.ret("_greeter_emit", "_write"),
        greeter.ret("_greeter_say_hello", "_greeter_emit"),
        app.ret("_greeting_thread_main", "_greeter_say_hello"),
        sys_frame(sysimg["pthread"], 0x1CB4, "_pthread_start", 148),
        sys_frame(sysimg["pthread"], 0x87A8, "thread_start", 8),
    ])
    r.thread(3, ["Thread 3 name:  com.apple.uikit.eventfetch-thread", "Thread 3:"], [
        sys_frame(sysimg["kernel"], 0x14C4, "mach_msg_trap", 8),
        sys_frame(sysimg["kernel"], 0x0964, "mach_msg", 76),
        sys_frame(cf, 0xA6DC8, "__CFRunLoopServiceMachPort", 372),
        sys_frame(cf, 0xA0C74, "__CFRunLoopRun", 1212),
        sys_frame(cf, 0x9B77C, "CFRunLoopRunSpecific", 572),
        sys_frame(sysimg["foundation"], 0x11A50, "-[NSRunLoop(NSRunLoop) runMode:beforeDate:]", 232),
        sys_frame(sysimg["foundation"], 0x4DF6C, "-[NSRunLoop(NSRunLoop) runUntilDate:]", 88),
        sys_frame(uik, 0xC2F0B4, "-[UIEventFetcher threadMain]", 496),
        sys_frame(sysimg["foundation"], 0x17E240, "__NSThread__start__", 848),
        sys_frame(sysimg["pthread"], 0x1CB4, "_pthread_start", 148),
        sys_frame(sysimg["pthread"], 0x87A8, "thread_start", 8),
    ])
    r.thread(4, ["Thread 4:"], [
        sys_frame(sysimg["pthread"], 0x879C, "start_wqthread", 0),
    ])
    r.text("Thread 0 crashed with ARM Thread State (64-bit):")
    r.text(*arm64_state(pc=crash.addr, lr=ret_process.addr, fp=0x16B3D2F60, sp=0x16B3D2F10,
                        regs={"x0": app.image.start + 0x4048, "x1": 4, "x8": 0, "x9": app.image.start + 0x4020,
                              "x19": app.image.start + 0x4048, "x20": 2, "x21": app.image.start + 0x3F6B,
                              "x23": 3, "x24": 4, "x29": 0, "cpsr": 0x60000000},
                        esr="0x92000006 (Data Abort) byte read Translation fault"))
    r.text("")
    r.binary_images([app.image, greeter.image] + list(sysimg.values()))
    r.text("", "EOF")
    return r


MAC_APP = "/Applications/App.app/Contents/MacOS/App"


def make_x86_64_report(ctx, name, dsym_rel, exe_rel, load, fault_line=None, fault_file="parser.c"):
    app = Fixture(fixture_image(ctx.build, "App", dsym_rel, "x86_64", load, MAC_APP,
                                bundle="com.example.App", version="1.0 - 1", frame_name="com.example.App"),
                  Disassembly(os.path.join(ctx.build, exe_rel), "x86_64"))
    arch = "x86_64"
    kernel = system_image("libsystem_kernel.dylib", 0x7FFF20339000, 0x2F000, arch,
                          "/usr/lib/system/libsystem_kernel.dylib", version="7195.81.3")
    pthread = system_image("libsystem_pthread.dylib", 0x7FFF20368000, 0xB000, arch,
                           "/usr/lib/system/libsystem_pthread.dylib", version="454.80.2")
    libc = system_image("libsystem_c.dylib", 0x7FFF201B6000, 0x7F000, arch,
                        "/usr/lib/system/libsystem_c.dylib", version="1439.40.11")
    dyld = system_image("libdyld.dylib", 0x7FFF20387000, 0x36000, arch,
                        "/usr/lib/system/libdyld.dylib", version="832.7.3")
    tables = line_tables(os.path.join(ctx.build, dsym_rel), "x86_64")
    fault_vm = pc_of_line(tables, app.dis.function("_parse_record"), fault_file, fault_line or ctx.fault_line)
    crash = app.pc(fault_vm)
    busy_vm = pc_of_line(tables, app.dis.function("__ZN6engine9Scheduler3runEi"), "engine.cpp", ctx.lambda_line)
    digest_vm = pc_of_line(tables, app.dis.function("_record_digest"), "checksum.h", ctx.rotl_line)

    r = Report(name, "macos11", "x86_64")
    r.text(
        "Process:               App [4127]",
        "Path:                  " + MAC_APP,
        "Identifier:            com.example.App",
        "Version:               1.0 (1)",
        "Code Type:             X86-64 (Native)",
        "Parent Process:        ??? [1]",
        "Responsible:           App [4127]",
        "User ID:               501",
        "",
        "Date/Time:             2021-03-14 10:02:17.284 +0100",
        "OS Version:            macOS 11.2.3 (20D91)",
        "Report Version:        12",
        "Bridge OS Version:     5.2 (18P4347)",
        "Anonymous UUID:        0B5F2A3C-7E91-4D68-A0C4-2F9E8B1D6A37",
        "",
        "",
        "Time Awake Since Boot: 14000 seconds",
        "",
        "System Integrity Protection: enabled",
        "",
        "Crashed Thread:        0  Dispatch queue: com.apple.main-thread",
        "",
        "Exception Type:        EXC_BAD_ACCESS (SIGSEGV)",
        "Exception Codes:       KERN_INVALID_ADDRESS at 0x0000000000000000",
        "Exception Note:        EXC_CORPSE_NOTIFY",
        "",
        "Termination Signal:    Segmentation fault: 11",
        "Termination Reason:    Namespace SIGNAL, Code 0xb",
        "Terminating Process:   exc handler [4127]",
        "",
        "VM Regions Near 0:",
        "--> ",
        "    __TEXT                      %016x-%016x [   %2dK] r-x/r-x SM=COW  %s" % (
            app.image.start, app.image.end + 1, (app.image.end + 1 - app.image.start) // 1024, MAC_APP),
        "",
        "Application Specific Information:",
        "dyld3 mode",
        "",
    )
    r.thread(0, ["Thread 0 Crashed:: Dispatch queue: com.apple.main-thread"], [
        crash,
        app.ret("_process_records", "_parse_record"),
        app.ret("_app_did_finish_launching", "_process_records"),
        app.ret("_main", "_app_did_finish_launching"),
        Frame(dyld, dyld.start + 0x15621, "symbol", "start", 1),
    ])
    r.thread(1, ["Thread 1:: engine"], [
        app.pc(busy_vm),
        app.ret("_engine_run", "__ZN6engine9Scheduler3runEi"),
        app.ret("_engine_thread_main", "_engine_run"),
        Frame(pthread, pthread.start + 0x6950, "symbol", "_pthread_start", 224),
        Frame(pthread, pthread.start + 0x247B, "symbol", "thread_start", 15),
    ])
    r.thread(2, ["Thread 2:"], [
        app.pc(digest_vm),
        app.ret("_greeting_thread_main", "_record_digest"),
        Frame(pthread, pthread.start + 0x6950),
        Frame(pthread, pthread.start + 0x247B),
    ])
    r.thread(3, ["Thread 3:"], [
        Frame(kernel, kernel.start + 0x1DDE, "symbol", "__workq_kernreturn", 10),
        Frame(pthread, pthread.start + 0x1623, "symbol", "_pthread_wqthread", 290),
        Frame(pthread, pthread.start + 0x246B, "symbol", "start_wqthread", 15),
    ])
    r.text("Thread 0 crashed with X86 Thread State (64-bit):")
    r.text(*x86_64_state(crash.addr, {
        "rax": app.image.start + 0x3048, "rbx": 3, "rcx": 0, "rdx": 4, "rdi": app.image.start + 0x3040,
        "rsi": 0, "rbp": 0x7FFEE1B0F8D0, "rsp": 0x7FFEE1B0F8B0, "r8": 0, "r9": 0, "r10": 0, "r11": 0x246,
        "r12": 0, "r13": 0, "r14": app.image.start + 0x1069, "r15": 4, "rfl": 0x10246, "cr2": 0}))
    r.text("",
           "Logical CPU:     2",
           "Error Code:      0x00000004 (no mapping for user data read)",
           "Trap Number:     14",
           "",
           "Thread 0 instruction stream not available.",
           "",
           "Thread 0 last branch register state not available.",
           "",
           "")
    r.binary_images([app.image, kernel, pthread, libc, dyld])
    r.text("",
           "External Modification Summary:",
           "  Calls made by other processes targeting this process:",
           "    task_for_pid: 0",
           "    thread_create: 0",
           "    thread_set_state: 0",
           "",
           "VM Region Summary:",
           "ReadOnly portion of Libraries: Total=512.4M resident=0K(0%) swapped_out_or_unallocated=512.4M(100%)",
           "Writable regions: Total=8.5M written=0K(0%) resident=0K(0%) swapped_out=0K(0%) unallocated=8.5M(100%)")
    return r


def make_universal_arm64_report(ctx, name, dsym_rel, exe_rel, load):
    app = Fixture(fixture_image(ctx.build, "App", dsym_rel, "arm64", load, MAC_APP,
                                bundle="com.example.App", version="1.0"),
                  Disassembly(exe_rel, "arm64"))
    arch = "arm64e"
    kernel = system_image("libsystem_kernel.dylib", 0x1A5B2C000, 0x38000, arch,
                          "/usr/lib/system/libsystem_kernel.dylib")
    pthread = system_image("libsystem_pthread.dylib", 0x1A5B64000, 0xC000, arch,
                           "/usr/lib/system/libsystem_pthread.dylib")
    dyld = system_image("dyld", 0x104D44000, 0x5C000, arch, "/usr/lib/dyld")
    tables = line_tables(os.path.join(ctx.build, dsym_rel), "arm64")
    crash = app.pc(pc_of_line(tables, app.dis.function("_parse_record"), "parser.c", ctx.fault_line))
    ret_process = app.ret("_process_records", "_parse_record")
    greeting_vm = pc_of_line(tables, app.dis.function("_greeter_say_hello"), "greeter.c", ctx.append_line)

    r = Report(name, "macos12", "arm64")
    r.text(
        "Process:               App [2788]",
        "Path:                  " + MAC_APP,
        "Identifier:            com.example.App",
        "Version:               1.0 (1)",
        "Code Type:             ARM-64 (Native)",
        "Parent Process:        launchd [1]",
        "User ID:               501",
        "",
        "Date/Time:             2022-02-21 16:45:09.6621 +0100",
        "OS Version:            macOS 12.2.1 (21D62)",
        "Report Version:        12",
        "Anonymous UUID:        61D8C3F0-2A4B-4E7D-9B15-C0E2F7A8D394",
        "",
        "",
        "Time Awake Since Boot: 52000 seconds",
        "",
        "System Integrity Protection: enabled",
        "",
        "Crashed Thread:        0  Dispatch queue: com.apple.main-thread",
        "",
        "Exception Type:        EXC_BAD_ACCESS (SIGSEGV)",
        "Exception Codes:       KERN_INVALID_ADDRESS at 0x0000000000000000",
        "Exception Codes:       0x0000000000000001, 0x0000000000000000",
        "Exception Note:        EXC_CORPSE_NOTIFY",
        "",
        "Termination Reason:    Namespace SIGNAL, Code 11 Segmentation fault: 11",
        "Terminating Process:   exc handler [2788]",
        "",
        "VM Region Info: 0 is not in any region.  Bytes before following region: %d" % app.image.start,
        "      REGION TYPE                    START - END         [ VSIZE] PRT/MAX SHRMOD  REGION DETAIL",
        "      UNUSED SPACE AT START",
        "--->  ",
        "      __TEXT                      %x-%x [   %2dK] r-x/r-x SM=COW  ...App.app/Contents/MacOS/App" % (
            app.image.start, app.image.end + 1, (app.image.end + 1 - app.image.start) // 1024),
        "",
    )
    r.thread(0, ["Thread 0 Crashed::  Dispatch queue: com.apple.main-thread"], [
        crash,
        ret_process,
        app.ret("_app_did_finish_launching", "_process_records", form="image"),
        app.ret("_main", "_app_did_finish_launching", form="symbol"),
        Frame(dyld, dyld.start + 0x50F4, "symbol", "start", 520),
    ])
    r.thread(1, ["Thread 1:: greeter"], [
        app.pc(greeting_vm),
        app.ret("_greeting_thread_main", "_greeter_say_hello"),
        Frame(pthread, pthread.start + 0x726C, "symbol", "_pthread_start", 148),
        Frame(pthread, pthread.start + 0x208C, "symbol", "thread_start", 8),
    ])
    r.thread(2, ["Thread 2:"], [
        Frame(kernel, kernel.start + 0x1D70, "symbol", "swtch_pri", 8),
        app.ret("__ZN6engine9Scheduler7executeERNS_4TaskE", "_sched_yield"),
        app.ret("__ZN6engine9Scheduler3runEi", "__ZN6engine9Scheduler7executeERNS_4TaskE"),
        app.ret("_engine_run", "__ZN6engine9Scheduler3runEi"),
        app.ret("_engine_thread_main", "_engine_run"),
        Frame(pthread, pthread.start + 0x726C),
        Frame(pthread, pthread.start + 0x208C),
    ])
    r.text("Thread 0 crashed with ARM Thread State (64-bit):")
    r.text(*arm64_state(pc=crash.addr, lr=ret_process.addr, fp=0x16B6B2F40, sp=0x16B6B2F00,
                        regs={"x0": app.image.start + 0x8048, "x1": 4, "x9": app.image.start + 0x8020,
                              "x19": app.image.start + 0x8048, "x20": 2, "x23": 3, "x24": 4, "cpsr": 0x80001000},
                        esr="0x92000006 (Data Abort) byte read Translation fault", far=0))
    r.text("")
    r.binary_images([app.image, kernel, pthread, dyld],
                    leading=["%18s - %18s ??? (*) <00000000-0000-0000-0000-000000000000> ???" % ("0x0", "0xffffffffffffffff")])
    return r


# --------------------------------------------------------------------------
# .ips twins
#
# The layout follows real .ips files of iOS 15+ / macOS 12+ (such as the inputs of lldb's
# crashlog tests, llvm-project lldb/test/Shell/ScriptInterpreter/Python/Crashlog/Inputs/*.ips):
# line 1 is the metadata object; the body has one member per line ("key" : value), with
# osVersion, usedImages, sharedCache and legacyInfo pretty-printed and everything else,
# threads included, compact; "/" is written "\/". Nothing is copied from those files.

IPS_PRETTY = {"osVersion", "usedImages", "sharedCache", "legacyInfo"}


def header_fields(report):
    """Every "Key: value" line before the first thread, as key -> [values]; and the lines of
    Application Specific Information."""
    fields = {}
    information = []
    lines = iter(report.lines)
    for line in lines:
        if line.startswith("Thread "):
            break
        if line == "Application Specific Information:":
            for more in lines:
                if not more.strip():
                    break
                information.append(more)
            continue
        m = re.match(r"^([A-Za-z][A-Za-z /()-]*):\s+(.*)$", line)
        if m:
            fields.setdefault(m.group(1), []).append(m.group(2))
    return fields, information


def name_and_number(text):
    """"App [1234]" -> ("App", 1234)."""
    m = re.match(r"^(.*?)\s*\[(\d+)\]$", text)
    return (m.group(1), int(m.group(2))) if m else (text, None)


def thread_name_and_queue(headers):
    name = queue = None
    for header in headers:
        m = re.match(r"^Thread \d+(?: name:| Crashed:*|:*)\s*(.*)$", header)
        text = m.group(1).strip() if m else ""
        if text.startswith("Dispatch queue: "):
            queue = text[len("Dispatch queue: "):]
        elif text:
            name = text
    return name, queue


def ips_thread_state(report):
    """The crashed thread's registers, read back from the report's thread state block."""
    registers = {}
    esr = None
    in_block = False
    for line in report.lines:
        if " crashed with " in line and "Thread State" in line:
            in_block = True
            continue
        if not in_block:
            continue
        if not line.strip():
            break
        m = re.search(r"esr: (0x[0-9a-f]+) (.*)$", line)
        if m:
            esr = {"value": int(m.group(1), 16), "description": m.group(2)}
            line = line[:m.start()]
        for name, value in re.findall(r"(\w+): (0x[0-9a-f]+)", line):
            registers[name] = int(value, 16)
    if report.arch.startswith("arm64"):
        state = {"x": [{"value": registers.get("x%d" % i, 0)} for i in range(29)],
                 "flavor": "ARM_THREAD_STATE64",
                 "lr": {"value": registers.get("lr", 0)},
                 "cpsr": {"value": registers.get("cpsr", 0)},
                 "fp": {"value": registers.get("fp", 0)},
                 "sp": {"value": registers.get("sp", 0)}}
        if esr:
            state["esr"] = esr
        state["pc"] = {"value": registers.get("pc", 0), "matchesCrashFrame": 1}
        state["far"] = {"value": registers.get("far", 0)}
        return state
    state = {}
    for name in ["r13", "rax", "rflags", "cpu", "r14", "rsi", "r8", "cr2", "rdx", "r10", "r9", "r15", "rbx",
                 "trap", "err", "r11", "rip", "rbp", "rsp", "r12", "rcx"]:
        value = registers.get("rfl" if name == "rflags" else name, 0)
        state[name] = {"value": value, "matchesCrashFrame": 1} if name == "rip" else {"value": value}
    state["flavor"] = "x86_THREAD_STATE"
    state["rdi"] = {"value": registers.get("rdi", 0)}
    return state


def ips_image(image):
    entry = {"source": "P", "arch": image.arch, "base": image.start}
    if image.bundle:
        short, _, build = (image.version or "").partition(" - ")
        entry["CFBundleShortVersionString"] = short
        entry["CFBundleIdentifier"] = image.bundle
    entry["size"] = image.end - image.start + 1
    entry["uuid"] = uuid_style(image.uuid, "lower")
    entry["path"] = image.path
    entry["name"] = image.name
    if image.bundle:
        entry["CFBundleVersion"] = build or "1"
    return entry


def ips_frame(frame, image_index):
    entry = {"imageOffset": frame.addr - frame.image.start}
    if frame.form == "symbol":
        entry["symbol"] = frame.symbol
        entry["symbolLocation"] = frame.symbol_offset
    entry["imageIndex"] = image_index[id(frame.image)]
    return entry


def ips_metadata(report, fields, bug_type):
    name, _ = name_and_number(fields["Process"][0])
    app = next(i for i in report.images if i.app and i.name == name)
    first, _, second = fields["Version"][0].partition(" (")
    second = second.rstrip(")")
    short, build = (second, first) if report.style == "ios" else (first, second)
    date = fields["Date/Time"][0]
    m = re.match(r"^(\S+ \d+:\d+:\d+)\.\d+ (.*)$", date)
    return {
        "app_name": name,
        "timestamp": "%s.00 %s" % (m.group(1), m.group(2)) if m else date,
        "app_version": short,
        "slice_uuid": uuid_style(app.uuid, "lower"),
        "build_version": build,
        "platform": 2 if report.style == "ios" else 1,
        "bundleID": fields["Identifier"][0],
        "share_with_app_devs": 0,
        "is_first_party": 0,
        "bug_type": bug_type,
        "os_version": fields["OS Version"][0],
        "roots_installed": 0,
        "name": name,
        "incident_id": ips_incident(report, fields),
    }


def ips_incident(report, fields):
    if "Incident Identifier" in fields:
        return fields["Incident Identifier"][0]
    return uuid_style(hashlib.md5(("fixture-incident:" + report.name).encode()).hexdigest(), "upper")


def ips_body(report, fields, information):
    name, pid = name_and_number(fields["Process"][0])
    parent, parent_pid = name_and_number(fields["Parent Process"][0])
    train, _, build = fields["OS Version"][0].rpartition(" (")
    exception_type, _, signal = fields["Exception Type"][0].partition(" (")
    codes = [c for c in fields.get("Exception Codes", []) if c.startswith("0x")]
    subtype = fields.get("Exception Subtype", []) + [c for c in fields.get("Exception Codes", []) if not c.startswith("0x")]
    codes = codes[0] if codes else "0x0000000000000001, 0x0000000000000000"
    faulting = int((fields.get("Triggered by Thread") or fields["Crashed Thread"])[0].split()[0])
    reason = (fields.get("Termination Reason") or [""])[0]
    m = re.match(r"^Namespace (\w+), Code (0x[0-9a-f]+|\d+) ?(.*)$", reason)
    indicator = (fields.get("Termination Signal") or [m.group(3) if m else ""])[0]
    terminator, terminator_pid = name_and_number((fields.get("Terminating Process") or ["exc handler [%d]" % pid])[0])

    # Images in order of first use, as reports list them; then the others.
    images = []
    for _, _, frames in report.threads:
        for frame in frames:
            if frame.image not in images:
                images.append(frame.image)
    images += [i for i in sorted(report.images, key=lambda i: i.start) if i not in images]
    image_index = {id(image): k for k, image in enumerate(images)}
    used = [ips_image(i) for i in images]
    if report.leading_images:
        used.append({"size": 0, "source": "A", "base": 0, "uuid": "00000000-0000-0000-0000-000000000000"})

    threads = []
    queue_of_crashed = None
    for number, headers, frames in report.threads:
        thread_name, queue = thread_name_and_queue(headers)
        entry = {}
        if number == faulting:
            entry["triggered"] = True
        entry["id"] = 0x2A1F0 + number * 7
        if thread_name:
            entry["name"] = thread_name
        if number == faulting:
            entry["threadState"] = ips_thread_state(report)
            queue_of_crashed = queue
        if queue:
            entry["queue"] = queue
        entry["frames"] = [ips_frame(f, image_index) for f in frames]
        threads.append(entry)

    vm_region = []
    for k, line in enumerate(report.lines):
        if line.startswith("VM Region Info: "):
            vm_region.append(line[len("VM Region Info: "):])
            for more in report.lines[k + 1:]:
                if not more.strip():
                    break
                vm_region.append(more)
            break

    system = [i for i in report.images if not i.app]
    body = [
        ("uptime", 14000),
        ("procRole", "Foreground"),
        ("version", 2),
        ("userID", 501),
        ("deployVersion", 210),
        ("modelCode", (fields.get("Hardware Model") or ["MacBookPro16,1"])[0]),
        ("coalitionID", 611),
        ("osVersion", {"train": train, "build": build.rstrip(")"), "releaseType": "User"}),
        ("captureTime", fields["Date/Time"][0]),
        ("incident", ips_incident(report, fields)),
        ("pid", pid),
        ("cpuType", fields["Code Type"][0].split(" (")[0]),
        ("roots_installed", 0),
        ("bug_type", "309"),
    ]
    if "Launch Time" in fields:
        body.append(("procLaunch", fields["Launch Time"][0]))
    body += [
        ("procStartAbsTime", 2451832750712),
        ("procExitAbsTime", 2451842630418),
        ("procName", name),
        ("procPath", fields["Path"][0]),
        ("bundleInfo", {"CFBundleShortVersionString": ips_metadata(report, fields, "309")["app_version"],
                        "CFBundleVersion": ips_metadata(report, fields, "309")["build_version"],
                        "CFBundleIdentifier": fields["Identifier"][0]}),
        ("parentProc", parent),
        ("parentPid", parent_pid),
        ("coalitionName", fields["Identifier"][0]),
        ("crashReporterKey", (fields.get("CrashReporter Key") or fields.get("Anonymous UUID"))[0]),
    ]
    exception = {"codes": codes,
                 "rawCodes": [int(c, 16) for c in codes.split(", ")],
                 "type": exception_type,
                 "signal": signal.rstrip(")")}
    if subtype:
        exception["subtype"] = subtype[0]
    body.append(("exception", exception))
    body.append(("termination", {"flags": 0, "code": int(m.group(2), 0) if m else 11,
                                 "namespace": m.group(1) if m else "SIGNAL", "indicator": indicator,
                                 "byProc": terminator, "byPid": terminator_pid}))
    if vm_region:
        body.append(("vmRegionInfo", "\n".join(vm_region)))
    if information:
        body.append(("asi", {"dyld": information}))
    body += [
        ("faultingThread", faulting),
        ("threads", threads),
        ("usedImages", used),
        ("sharedCache", {"base": min(i.start for i in system) & ~0xFFFFFF, "size": 3921182720,
                         "uuid": uuid_style(fake_uuid("shared cache " + report.style), "lower")}),
    ]
    if queue_of_crashed:
        body.append(("legacyInfo", {"threadTriggered": {"queue": queue_of_crashed}}))
    return body, images


def ips_text(metadata, body):
    members = []
    for key, value in body:
        if key in IPS_PRETTY:
            text = json.dumps(value, indent=2, separators=(",", " : "))
        else:
            text = json.dumps(value, separators=(",", ":"))
        members.append("  %s : %s" % (json.dumps(key), text.replace("/", "\\/")))
    return json.dumps(metadata, separators=(",", ":")) + "\n{\n" + ",\n".join(members) + "\n}\n"


def exception_variant(report, body, images):
    """The body of an uncaught Objective-C exception: its Last Exception Backtrace and the same
    backtrace as text in asiBacktraces, both made of CoreFoundation and libobjc frames on top of
    the crashed thread's return addresses (frames 1 and up of thread 0)."""
    cf = next(i for i in images if i.name == "CoreFoundation")
    objc = system_image("libobjc.A.dylib", 0x1BA8A3000, 0x3A000, "arm64e", "/usr/lib/libobjc.A.dylib")
    crashed = next(frames for number, _, frames in report.threads if number == 0)
    frames = [sys_frame(cf, 0x10A2B8, "__exceptionPreprocess", 220),
              sys_frame(objc, 0x6C80, "objc_exception_throw", 56)] + crashed[1:]
    used = dict(body)["usedImages"]
    image_index = {id(image): k for k, image in enumerate(images)}
    image_index[id(objc)] = len(used)
    used.insert(len(images), ips_image(objc))
    text = "\n".join(frame_line("ios", k, f) for k, f in enumerate(frames))
    variant = []
    for key, value in body:
        if key == "exception":
            value = {"codes": "0x0000000000000000, 0x0000000000000000", "rawCodes": [0, 0],
                     "type": "EXC_CRASH", "signal": "SIGABRT"}
        elif key == "termination":
            value = dict(value, code=6, indicator="Abort trap: 6", byProc="App")
        elif key == "vmRegionInfo":
            continue
        elif key == "faultingThread":
            variant.append(("asi", {"libsystem_c.dylib": ["abort() called"]}))
            variant.append(("asiBacktraces", [text]))
            variant.append(("lastExceptionBacktrace", [ips_frame(f, image_index) for f in frames]))
        variant.append((key, value))
    return variant


def write_ips_twins(build, reports):
    """NAME.ips (bug_type 309) for every report, the exception variant of App-arm64, and the
    macOS 11 report as bug_type 109."""
    directory = os.path.join(build, "ips")
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):
        if stale.endswith(".ips"):
            os.remove(os.path.join(directory, stale))
    for report in reports:
        fields, information = header_fields(report)
        metadata = ips_metadata(report, fields, "309")
        body, images = ips_body(report, fields, information)
        with open(os.path.join(directory, report.name + ".ips"), "w") as f:
            f.write(ips_text(metadata, body))
        if report.name == "App-arm64":
            with open(os.path.join(directory, report.name + "-exception.ips"), "w") as f:
                f.write(ips_text(metadata, exception_variant(report, body, images)))
        if report.name == "App-x86_64":
            metadata = json.dumps(ips_metadata(report, fields, "109"), separators=(",", ":"))
            with open(os.path.join(directory, report.name + "-109.ips"), "w") as f:
                f.write(metadata + "\n" + "\n".join(report.lines) + "\n")


# --------------------------------------------------------------------------
# Manifest


def elf_info(readelf, path):
    notes = run(readelf, "-n", path, quiet=True)
    m = re.search(r"Build ID:\s*([0-9a-f]+)", notes)
    if not m:
        fail("no build-id in " + path)
    header = run(readelf, "-h", path, quiet=True)
    machine = re.search(r"Machine:\s*(.*)", header).group(1)
    arch = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64",
            "Intel 80386": "i386", "ARM": "arm"}.get(machine.strip(), machine.strip())
    vaddr = None
    for line in run(readelf, "-lW", path, quiet=True).splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            vaddr = int(fields[2], 16)
            break
    if vaddr is None:
        fail("no PT_LOAD in " + path)
    return m.group(1), arch, vaddr


def write_manifest(build, readelf):
    lines = []
    macho = os.path.join(build, "macho")
    for entry in sorted(os.listdir(macho)):
        if not entry.endswith(".dSYM"):
            continue
        dwarf_dir = os.path.join(macho, entry, "Contents", "Resources", "DWARF")
        for f in sorted(os.listdir(dwarf_dir)):
            rel = os.path.relpath(os.path.join(dwarf_dir, f), build)
            for s in macho_slices(os.path.join(dwarf_dir, f)):
                lines.append("%s\t%s\t%s\t%#x" % (rel, s.uuid, s.arch, s.text_vmaddr))
    for f in ["app-gcc-dwarf4", "app-gcc-dwarf4.debug", "app-zlib.debug", "app-clang-dwarf5",
              "app-gcc-dwarf2", "app-gcc-dwarf3", "app-armv7-thumb", "swift-shapes", "app-nopie",
              "libgreeter.so", "relative-compdir-gcc", "relative-compdir-clang"]:
        build_id, arch, vaddr = elf_info(readelf, os.path.join(build, "elf", f))
        lines.append("%s\t%s\t%s\t%#x" % ("elf/" + f, build_id, arch, vaddr))
    with open(os.path.join(build, "manifest.txt"), "w") as out:
        out.write("".join(line + "\n" for line in lines))


# --------------------------------------------------------------------------


class Context:
    pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the build directory (Fixtures/build)")
    parser.add_argument("--src", required=True, help="the source directory (Fixtures/src)")
    parser.add_argument("--readelf", default="readelf")
    args = parser.parse_args()

    ctx = Context()
    ctx.build = os.path.abspath(args.build)
    ctx.fault_line = source_line(args.src, "app/parser.c", "return payload->words[index];")
    ctx.lambda_line = source_line(args.src, "app/engine.cpp", "return acc + w;")
    ctx.rotl_line = source_line(args.src, "app/checksum.h", "return (value << shift) | (value >> (32 - shift));")
    ctx.append_line = source_line(args.src, "greeter/greeter.c", "out->data[out->length++] = c;")
    reports = os.path.join(ctx.build, "reports")
    os.makedirs(reports, exist_ok=True)

    dwarf = "macho/%s.dSYM/Contents/Resources/DWARF/%s"
    twins = []
    twins.append(make_arm64_report(ctx, "App-arm64", dwarf % ("App-arm64", "App-arm64"), "macho/App-arm64",
                                   load=0x104A30000, greeter_load=0x1051C0000,
                                   greeter_dsym_rel=dwarf % ("libGreeter.dylib", "libGreeter.dylib"),
                                   greeter_rel="macho/libGreeter.dylib"))
    twins.append(make_arm64_report(ctx, "App-arm64-dwarf5", dwarf % ("App-arm64-dwarf5", "App-arm64-dwarf5"),
                                   "macho/App-arm64-dwarf5", load=0x1002F4000, greeter_load=0x100A1C000,
                                   greeter_dsym_rel=dwarf % ("libGreeter.dylib", "libGreeter.dylib"),
                                   greeter_rel="macho/libGreeter.dylib"))
    twins.append(make_x86_64_report(ctx, "App-x86_64", dwarf % ("App-x86_64", "App-x86_64"), "macho/App-x86_64",
                                    load=0x10A2F1000))
    # The arm64 slice of the universal executable, extracted for disassembly.
    with tempfile.TemporaryDirectory() as tmp:
        thin = os.path.join(tmp, "App-universal-arm64")
        subprocess.run([LIPO, os.path.join(ctx.build, "macho/App-universal"), "-thin", "arm64", "-output", thin],
                       check=True)
        twins.append(make_universal_arm64_report(ctx, "App-universal-arm64",
                                                 dwarf % ("App-universal", "App-universal"), thin, load=0x102D28000))
    for report in twins:
        report.write(reports)
    write_ips_twins(ctx.build, twins)
    write_metrickit_twins(ctx.build, twins, header_fields)
    write_kscrash_twins(ctx.build, twins, header_fields)
    write_manifest(ctx.build, args.readelf)


if __name__ == "__main__":
    main()
