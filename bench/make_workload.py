#!/usr/bin/env python3
"""Writes the crash reports of one benchmark input and the addresses llvm-symbolizer is asked.

    make_workload.py elf   --out DIR --binary FILE --module-path /srv/app/bin/NAME
    make_workload.py macho --out DIR --dsym DWARF_FILE --slice arm64=EXE [--slice x86_64=EXE]

Every app address comes from the binary's real code (llvm-objdump -d): the first frame of each
backtrace is an instruction inside a function (a PC), every other app frame a return address,
the instruction right after a call. A fixed seed makes the same reports every time.

Each report has 40 frames (two backtraces of 20); a fifth of them (8, at random places) lie in
images that have no debug file. ELF inputs get AddressSanitizer-style logs
(`    #N 0xABS  (/path/prog+0xOFF) (BuildId: ...)`, addresses already moved to the call, as the
sanitizers print them); Mach-O inputs get classic Apple .crash reports (threads, frames
`N  App  0xADDR 0xLOAD + OFF`, Binary Images with `<uuid>`, a load address other than the
__TEXT vmaddr). With two slices, even reports are arm64 and odd ones x86_64.

Written to DIR:
  reports/NNNN.log|.crash    the reports (1,000)
  oracle/all.txt             llvm-symbolizer's standard input for all app frames, in report order
  oracle/NNNN.txt            the same for report NNNN alone (the first 100 reports)
  workload.json              what measure.py needs: debug folder and file, llvm-symbolizer
                             arguments, counts, the single address of workload (c)
"""

import argparse
import hashlib
import json
import os
import random
import re
import struct
import subprocess
import sys

REPORTS = 1000
FRAMES_PER_THREAD = 20
THREADS = 2
NO_DEBUG_FRAMES = 8           # a fifth of 40
PER_REPORT_FILES = 100        # reports with an oracle file of their own (workload b)
SEED = 20261122
OBJDUMP = os.environ.get("LLVM_OBJDUMP", "/opt/swift/usr/bin/llvm-objdump")


def log(message):
    print("[make_workload] " + message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Code: instructions and call sites, from llvm-objdump


class Code:
    """Instruction addresses and return addresses (the instruction after each call) of one
    file's code, as llvm-objdump disassembles it."""

    INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)")

    def __init__(self, path, arch, extra_args=()):
        is_call = (lambda m: m in ("bl", "blr")) if arch.startswith("arm64") else (lambda m: m.startswith("call"))
        self.instructions = []
        self.returns = []
        after_call = False
        proc = subprocess.Popen([OBJDUMP, "-d", "--no-show-raw-insn", *extra_args, path],
                                stdout=subprocess.PIPE, universal_newlines=True, bufsize=1 << 20)
        for line in proc.stdout:
            m = self.INSN.match(line)
            if not m:
                after_call = False  # a function label or a blank line: a new function
                continue
            addr = int(m.group(1), 16)
            self.instructions.append(addr)
            if after_call:
                self.returns.append(addr)
            after_call = is_call(m.group(2))
        if proc.wait() != 0:
            sys.exit("make_workload.py: llvm-objdump failed on " + path)
        if not self.returns:
            sys.exit("make_workload.py: no call instructions in " + path)

    def pc(self, rng):
        return rng.choice(self.instructions)

    def return_address(self, rng):
        return rng.choice(self.returns)


# --------------------------------------------------------------------------
# ELF: build-id and the link-time base (first PT_LOAD vaddr)


def elf_info(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("make_workload.py: %s is not a 64-bit little-endian ELF file" % path)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    base = None
    build_id = None
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and base is None:  # PT_LOAD
            base = p_vaddr
        if p_type == 4:  # PT_NOTE
            off, end = p_offset, p_offset + p_filesz
            while off + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", data, off)
                name = data[off + 12:off + 12 + namesz]
                desc_off = off + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and name.rstrip(b"\0") == b"GNU":  # NT_GNU_BUILD_ID
                    build_id = data[desc_off:desc_off + descsz].hex()
                off = desc_off + ((descsz + 3) & ~3)
    if build_id is None:
        sys.exit("make_workload.py: %s has no build-id" % path)
    return build_id, base or 0


# --------------------------------------------------------------------------
# Mach-O: UUID and __TEXT of each slice

CPU_NAMES = {0x01000007: "x86_64", 0x0100000C: "arm64"}


def macho_slices(path):
    """arch -> (UUID as 32 lower-case hex digits, __TEXT vmaddr, __TEXT vmsize)."""
    with open(path, "rb") as f:
        data = f.read()
    if struct.unpack_from(">I", data, 0)[0] == 0xCAFEBABE:
        count = struct.unpack_from(">I", data, 4)[0]
        offsets = [struct.unpack_from(">iiIII", data, 8 + 20 * i)[2] for i in range(count)]
    else:
        offsets = [0]
    slices = {}
    for base in offsets:
        magic, cputype, _, _, ncmds = struct.unpack_from("<IiiII", data, base)
        if magic != 0xFEEDFACF:
            sys.exit("make_workload.py: %s: not a 64-bit Mach-O slice" % path)
        offset, uuid, text = base + 32, None, None
        for _ in range(ncmds):
            cmd, cmdsize = struct.unpack_from("<II", data, offset)
            if cmd == 0x1B:  # LC_UUID
                uuid = data[offset + 8:offset + 24].hex()
            elif cmd == 0x19 and data[offset + 8:offset + 24].rstrip(b"\0") == b"__TEXT":
                text = struct.unpack_from("<QQ", data, offset + 24)
            offset += cmdsize
        slices[CPU_NAMES.get(cputype & 0xFFFFFFFF, "unknown")] = (uuid, text[0], text[1])
    return slices


# --------------------------------------------------------------------------
# Reports


def frame_plan(rng):
    """For each of the 40 frames: True when it lies in an image with a debug file."""
    plan = [True] * (THREADS * FRAMES_PER_THREAD)
    for i in rng.sample(range(len(plan)), NO_DEBUG_FRAMES):
        plan[i] = False
    return plan


def fake_build_id(name):
    return hashlib.sha1(("bench-no-debug-file:" + name).encode()).hexdigest()


def elf_workload(args, rng):
    """AddressSanitizer heap-use-after-free logs: an access stack and a free stack of 20 frames."""
    build_id, base = elf_info(args.binary)
    log("disassembling %s" % args.binary)
    code = Code(args.binary, "x86_64", ["--section=.text"])
    log("%d instructions, %d call sites" % (len(code.instructions), len(code.returns)))
    libs = [("/opt/vendor/lib/libvendor%d.so.1" % i, fake_build_id("libvendor%d" % i)) for i in range(1, 4)]
    module = "(%s+0x%%x) (BuildId: %s)" % (args.module_path, build_id)
    reports, oracle = [], []
    for n in range(REPORTS):
        pid = rng.randrange(1000, 99999)
        bias = 0x550000000000 + rng.randrange(0x10000, 0xFFFFFF) * 0x1000   # the PIE's load bias
        lib_base = [0x7F0000000000 + rng.randrange(0x10000, 0xFFFFFFF) * 0x1000 for _ in libs]
        heap = 0x602000000010 + rng.randrange(0, 0x100000) * 16
        plan = frame_plan(rng)
        lines = ["=================================================================",
                 None,  # the ERROR line, once frame 0 is known
                 "READ of size 4 at 0x%x thread T0" % heap]
        addresses = []
        first_pc = None
        for t in range(THREADS):
            if t == 1:
                lines += ["", "0x%x is located 0 bytes inside of 4-byte region [0x%x,0x%x)" % (heap, heap, heap + 4),
                          "freed by thread T0 here:"]
            for i in range(FRAMES_PER_THREAD):
                if plan[t * FRAMES_PER_THREAD + i]:
                    # The sanitizer prints the PC for #0 and each return address minus one (x86).
                    off = code.pc(rng) - base if i == 0 else code.return_address(rng) - 1 - base
                    absolute = bias + off
                    lines.append("    #%d 0x%x  %s" % (i, absolute, module % off))
                    addresses.append("0x%x" % (base + off))
                else:
                    k = rng.randrange(len(libs))
                    off = rng.randrange(0x10000, 0x200000)
                    absolute = lib_base[k] + off
                    lines.append("    #%d 0x%x  (%s+0x%x) (BuildId: %s)" % (i, absolute, libs[k][0], off, libs[k][1]))
                if t == 0 and i == 0:
                    first_pc = absolute
        lines[1] = ("==%d==ERROR: AddressSanitizer: heap-use-after-free on address 0x%x at pc 0x%x bp 0x%x sp 0x%x"
                    % (pid, heap, first_pc, 0x7FFC00000000 + rng.randrange(1 << 24) * 16, 0x7FFC00000000 + rng.randrange(1 << 24) * 16))
        lines += ["", "SUMMARY: AddressSanitizer: heap-use-after-free %s" % (lines[3].split("  ", 1)[1].strip()),
                  "==%d==ABORTING" % pid]
        reports.append(("%04d.log" % n, "\n".join(lines) + "\n"))
        oracle.append(addresses)
    spec = {
        "kind": "elf",
        "debug_file": os.path.abspath(args.binary),
        "debug_dir": os.path.dirname(os.path.abspath(args.binary)),
        # llvm-symbolizer: the module offset is the link-time address (plus the first PT_LOAD vaddr).
        "symbolizer_args": ["--obj=" + os.path.abspath(args.binary)],
        "one_address": oracle[0][1],
        "atos_args": [],
    }
    return reports, oracle, spec


IOS_SYSTEM = [("libsystem_kernel.dylib", 0x1C0A8A000, 0x32000, "/usr/lib/system/libsystem_kernel.dylib",
               ["__pthread_kill", "mach_msg_trap", "__psynch_cvwait", "__semwait_signal"]),
              ("libsystem_pthread.dylib", 0x1DD5BD000, 0xC000, "/usr/lib/system/libsystem_pthread.dylib",
               ["_pthread_start", "thread_start", "pthread_kill"]),
              ("CoreFoundation", 0x1A6FDF000, 0x3C8000, "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation",
               ["__CFRunLoopRun", "CFRunLoopRunSpecific", "__exceptionPreprocess"]),
              ("UIKitCore", 0x1A8F06000, 0x16F9000, "/System/Library/PrivateFrameworks/UIKitCore.framework/UIKitCore",
               ["UIApplicationMain", "-[UIApplication _run]", "-[UIApplication sendEvent:]"]),
              ("libdyld.dylib", 0x1A6D79000, 0x2000, "/usr/lib/system/libdyld.dylib", ["start"])]

APP_PATH = "/private/var/containers/Bundle/Application/5E1C2B9A-7D3F-4A8E-B6C0-9F2D1E4A7B35/App.app/App"


def macho_workload(args, rng):
    dwarf_slices = macho_slices(args.dsym)
    slices = []
    for item in args.slice:
        arch, exe = item.split("=", 1)
        uuid, vmaddr, vmsize = macho_slices(exe)[arch]
        if dwarf_slices.get(arch, (None,))[0] != uuid:
            sys.exit("make_workload.py: the dSYM's %s UUID differs from %s's" % (arch, exe))
        log("disassembling %s (%s)" % (exe, arch))
        code = Code(exe, arch, ["--arch=" + arch] if len(macho_slices(exe)) > 1 else [])
        log("%d instructions, %d call sites" % (len(code.instructions), len(code.returns)))
        slices.append((arch, uuid, vmaddr, vmsize, code))
    universal = len(dwarf_slices) > 1
    dsym = os.path.abspath(args.dsym)
    reports, oracle = [], []
    for n in range(REPORTS):
        arch, uuid, vmaddr, vmsize, code = slices[n % len(slices)]
        # ASLR: the image loaded at a slide of whole 16 KB pages (under 512 MB) from its __TEXT
        # vmaddr, below the system images.
        load = vmaddr + rng.randrange(1, 0x8000) * 0x4000
        plan = frame_plan(rng)
        code_type = "ARM-64 (Native)" if arch == "arm64" else "X86-64 (Native)"
        sys_arch = "arm64e" if arch == "arm64" else "x86_64"
        lines = [
            "Incident Identifier: %s" % "-".join(hashlib.md5(b"%d" % n).hexdigest().upper()[a:b] for a, b in
                                                   ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))),
            "CrashReporter Key:   %s" % hashlib.sha1(b"%d" % n).hexdigest(),
            "Hardware Model:      iPhone12,1",
            "Process:             App [%d]" % rng.randrange(100, 9999),
            "Path:                " + APP_PATH,
            "Identifier:          com.example.App",
            "Version:             1 (1.0)",
            "Code Type:           " + code_type,
            "Role:                Foreground",
            "Parent Process:      launchd [1]",
            "",
            "Date/Time:           2026-11-%02d 09:%02d:%02d.5312 +0100" % (1 + n % 28, n % 60, (n * 7) % 60),
            "OS Version:          iPhone OS 14.4 (18D52)",
            "Report Version:      104",
            "",
            "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)",
            "Exception Subtype: KERN_INVALID_ADDRESS at 0x0000000000000010",
            "Termination Signal: Segmentation fault: 11",
            "Triggered by Thread:  0",
            "",
        ]
        addresses = []
        crash_pc = None
        for t in range(THREADS):
            lines.append("Thread 0 name:  Dispatch queue: com.apple.main-thread" if t == 0 else "Thread %d:" % t)
            if t == 0:
                lines.append("Thread 0 Crashed:")
            for i in range(FRAMES_PER_THREAD):
                if plan[t * FRAMES_PER_THREAD + i]:
                    # Frame 0 is the PC, looked up as is; the others are return addresses,
                    # looked up at the call (arm64: 4 back; x86_64: 1 back).
                    vm = code.pc(rng) if i == 0 else code.return_address(rng)
                    addr = vm - vmaddr + load
                    text = "%-4d%s0x%016x 0x%x + %d" % (i, "App".ljust(36), addr, load, addr - load)
                    ask = vm if i == 0 else vm - (4 if arch == "arm64" else 1)
                    addresses.append(("%s:%s 0x%x" % (dsym, arch, ask)) if universal else "0x%x" % ask)
                else:
                    name, start, size, _, symbols = IOS_SYSTEM[rng.randrange(len(IOS_SYSTEM))]
                    off = rng.randrange(0x100, size) & ~3  # arm64 instructions are 4-aligned
                    addr = start + off
                    text = "%-4d%s0x%016x %s + %d" % (i, name.ljust(36), addr, rng.choice(symbols), rng.randrange(4, 900))
                if t == 0 and i == 0:
                    crash_pc = addr
                lines.append(text)
            lines.append("")
        if arch == "arm64":
            lines += ["Thread 0 crashed with ARM Thread State (64-bit):",
                      "    x0: 0x0000000000000000   x1: 0x0000000000000004   x2: 0x0000000000000000   x3: 0x0000000000000001",
                      "    fp: 0x000000016b3d2f60   lr: 0x%016x" % (load + 0x4000),
                      "    sp: 0x000000016b3d2f10   pc: 0x%016x cpsr: 0x60000000" % crash_pc, ""]
        else:
            lines += ["Thread 0 crashed with X86 Thread State (64-bit):",
                      "  rax: 0x0000000000000000  rbx: 0x0000000000000004  rcx: 0x0000000000000000  rdx: 0x0000000000000001",
                      "  rip: 0x%016x  rfl: 0x0000000000010246  cr2: 0x0000000000000010" % crash_pc, ""]
        images = [(load, load + vmsize - 1, "App", arch, uuid, APP_PATH)]
        for name, start, size, path, _ in IOS_SYSTEM:
            images.append((start, start + size - 1, name, sys_arch,
                           hashlib.md5(("bench-no-debug-file:" + name).encode()).hexdigest(), path))
        lines.append("Binary Images:")
        for start, end, name, image_arch, image_uuid, path in sorted(images):
            lines.append("%18s - %18s %s %s  <%s> %s" % ("%#x" % start, "%#x" % end, name, image_arch, image_uuid, path))
        reports.append(("%04d.crash" % n, "\n".join(lines) + "\n"))
        oracle.append(addresses)
    first_arch = slices[0][0]
    one = oracle[0][1].split()[-1]
    spec = {
        "kind": "macho",
        "debug_file": dsym,
        "debug_dir": dsym.split(".dSYM/")[0].rsplit("/", 1)[0],  # the folder holding App.dSYM
        # One llvm-symbolizer for all slices: `FILE:ARCH ADDR` lines when the dSYM is universal.
        "symbolizer_args": [] if universal else ["--obj=" + dsym],
        "one_address": one,
        "one_address_symbolizer_args": ["--obj=" + dsym] + (["--default-arch=" + first_arch] if universal else []),
        "atos_args": ["--arch", first_arch] if universal else [],
        "gsymutil_args": ["--arch", first_arch] if universal else [],
    }
    return reports, oracle, spec


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["elf", "macho"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", help="ELF: the executable with DWARF")
    parser.add_argument("--module-path", help="ELF: the module path the logs name")
    parser.add_argument("--dsym", help="Mach-O: the dSYM's DWARF file")
    parser.add_argument("--slice", action="append", default=[], help="Mach-O: ARCH=EXECUTABLE")
    args = parser.parse_args()
    rng = random.Random(SEED)
    reports, oracle, spec = (elf_workload if args.kind == "elf" else macho_workload)(args, rng)

    os.makedirs(os.path.join(args.out, "reports"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "oracle"), exist_ok=True)
    for name, text in reports:
        with open(os.path.join(args.out, "reports", name), "w") as f:
            f.write(text)
    with open(os.path.join(args.out, "oracle", "all.txt"), "w") as f:
        f.write("".join(a + "\n" for addresses in oracle for a in addresses))
    for n in range(PER_REPORT_FILES):
        with open(os.path.join(args.out, "oracle", "%04d.txt" % n), "w") as f:
            f.write("".join(a + "\n" for a in oracle[n]))
    spec.update({
        "reports": REPORTS,
        "frames_per_report": THREADS * FRAMES_PER_THREAD,
        "app_frames": sum(len(a) for a in oracle),
        "per_report_files": PER_REPORT_FILES,
        "report_suffix": os.path.splitext(reports[0][0])[1],
    })
    with open(os.path.join(args.out, "workload.json"), "w") as f:
        json.dump(spec, f, indent=1)
    log("%d reports, %d app frames in %s" % (REPORTS, spec["app_frames"], args.out))


if __name__ == "__main__":
    main()
