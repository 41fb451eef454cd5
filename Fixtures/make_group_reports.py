#!/usr/bin/env python3
"""Writes build/group/: crash reports made to fall into known groups, for `symbolicate group`.
Standard library only; run by build.sh after make_reports.py, whose report makers it reuses.

Every report is made from the fixture builds as make_reports.py makes its own (real return
addresses, crash PCs from the DWARF line table), then varied: another load address, another
build (UUID), another architecture, another source layout (App-arm64-v2 is the iOS build of
sources with three lines added at the top of main.c and parser.c, so every line number moved),
another crash site, another crashed thread, another date and version. Each .crash report also
gets its .ips twin (bug_type 309).

build/group/groups.tsv names the group each report must fall into, one line per report:

    report-file    group-label

The labels mean nothing to the tool: a test checks that it puts two reports in one group
exactly when their labels are equal.

  null-deref    parse_record reading through a NULL payload: load_word <- payload_header <-
                header_is_valid inlined into it. Five builds (App-arm64, App-arm64-dwarf5,
                App-arm64-v2, App-x86_64, the arm64 slice of App-universal), three load
                addresses of App-arm64.
  rejected      parse_record itself, at `g_rejected++` (another bug in the same function): arm64
                and x86_64.
  checksum      parse_record again, in rotl32 <- mix32 <- checksum_words inlined into it (a third
                bug in that function): App-arm64 and App-arm64-v2.
  greeter       thread 2 crashed (write <- greeter_emit <- greeter_say_hello in libGreeter.dylib,
                an app image of its own): the crashed thread, not thread 0, decides.
  watchdog      killed by the watchdog while the crashed thread was in system code only: no app
                frame, so the exception type and termination reason decide; two reports of
                different processes and dates.
  jetsam-code   the same, with another termination code: another group.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_reports as mr  # noqa: E402

DWARF = "macho/%s.dSYM/Contents/Resources/DWARF/%s"
GREETER = dict(greeter_dsym_rel=DWARF % ("libGreeter.dylib", "libGreeter.dylib"), greeter_rel="macho/libGreeter.dylib")


def replace_line(report, prefix, new):
    """Replaces the first line starting with prefix (which must exist) by new."""
    for i, line in enumerate(report.lines):
        if line.startswith(prefix):
            report.lines[i] = new
            return
    mr.fail("%s: no line starting with %r" % (report.name, prefix))


def restyle(report, date, version):
    """Another date and app version, keeping the column the report's layout aligns values at."""
    for key, value in (("Date/Time:", date), ("Version:", version)):
        line = next(line for line in report.lines if line.startswith(key))
        width = len(line) - len(line[len(key):].lstrip())
        replace_line(report, key, key.ljust(width) + value)


def crash_thread(report, number):
    """Makes thread `number` the crashed one (iOS layout)."""
    replace_line(report, "Triggered by Thread:", "Triggered by Thread:  %d" % number)
    report.lines = [line[:-len(" Crashed:")] + ":" if line.startswith("Thread ") and line.endswith(" Crashed:") else line
                    for line in report.lines]
    report.lines = [line[:-1] + " Crashed:" if line == "Thread %d:" % number else line for line in report.lines]
    threads = []
    for n, headers, frames in report.threads:
        headers = [h.replace(" Crashed:", ":") for h in headers]
        if n == number:
            headers = [h[:-1] + " Crashed:" if h == "Thread %d:" % n else h for h in headers]
        threads.append((n, headers, frames))
    report.threads = threads


def killed(report, code):
    """A watchdog kill while thread 4 (system frames only) was the one reported."""
    crash_thread(report, 4)
    replace_line(report, "Exception Type:", "Exception Type:  EXC_CRASH (SIGKILL)")
    replace_line(report, "Exception Subtype:", "Exception Subtype: none")
    replace_line(report, "Termination Signal:", "Termination Signal: Killed: 9")
    replace_line(report, "Termination Reason:", "Termination Reason: Namespace FRONTBOARD, Code %s" % code)


def shifted_sources(src, into):
    """src/ with three lines added at the top of app/main.c and app/parser.c (built by build.sh
    as App-arm64-v2): the line numbers the v2 report's crash site is found at."""
    ctx = mr.Context()
    ctx.fault_line = mr.source_line(into, "app/parser.c", "return payload->words[index];")
    ctx.rejected_line = mr.source_line(into, "app/parser.c", "g_rejected++;")
    ctx.rotl_line = mr.source_line(src, "app/checksum.h", "return (value << shift) | (value >> (32 - shift));")
    return ctx


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--v2-src", required=True, help="the shifted sources App-arm64-v2 was built from")
    args = parser.parse_args()

    ctx = mr.Context()
    ctx.build = os.path.abspath(args.build)
    ctx.fault_line = mr.source_line(args.src, "app/parser.c", "return payload->words[index];")
    ctx.rejected_line = mr.source_line(args.src, "app/parser.c", "g_rejected++;")
    ctx.lambda_line = mr.source_line(args.src, "app/engine.cpp", "return acc + w;")
    ctx.rotl_line = mr.source_line(args.src, "app/checksum.h", "return (value << shift) | (value >> (32 - shift));")
    ctx.append_line = mr.source_line(args.src, "greeter/greeter.c", "out->data[out->length++] = c;")
    v2 = shifted_sources(args.src, args.v2_src)
    for name in ("build", "lambda_line", "append_line"):
        setattr(v2, name, getattr(ctx, name))
    if v2.fault_line == ctx.fault_line:
        mr.fail("the v2 sources are not shifted")

    def arm64(name, context, build, load, fault=None, fault_file="parser.c"):
        return mr.make_arm64_report(context, name, DWARF % (build, build), "macho/" + build, load=load,
                                    greeter_load=load + 0x800000, fault_line=fault, fault_file=fault_file, **GREETER)

    groups = []

    def add(report, label, date, version):
        restyle(report, date, version)
        groups.append((report, label))

    # null-deref: one bug, five builds, three load addresses.
    add(arm64("null-deref-1", ctx, "App-arm64", 0x104A30000), "null-deref", "2021-03-14 09:26:53.5312 +0100", "1 (1.0)")
    add(arm64("null-deref-2", ctx, "App-arm64", 0x100E94000), "null-deref", "2021-03-15 18:02:11.0410 +0100", "1 (1.0)")
    add(arm64("null-deref-3", ctx, "App-arm64", 0x1022C8000), "null-deref", "2021-03-16 07:45:00.1200 +0000", "1 (1.0)")
    add(arm64("null-deref-dwarf5", ctx, "App-arm64-dwarf5", 0x1002F4000), "null-deref",
        "2021-04-02 12:00:00.0000 +0200", "2 (1.1)")
    add(arm64("null-deref-v2", v2, "App-arm64-v2", 0x104B5C000), "null-deref", "2021-05-20 21:13:37.9999 +0200", "3 (2.0)")
    add(mr.make_x86_64_report(ctx, "null-deref-x86_64", DWARF % ("App-x86_64", "App-x86_64"), "macho/App-x86_64",
                              load=0x10C1A3000), "null-deref", "2021-03-20 10:02:17.284 +0100", "1.0 (1)")
    with tempfile.TemporaryDirectory() as tmp:
        thin = os.path.join(tmp, "App-universal-arm64")
        subprocess.run([mr.LIPO, os.path.join(ctx.build, "macho/App-universal"), "-thin", "arm64", "-output", thin],
                       check=True)
        add(mr.make_universal_arm64_report(ctx, "null-deref-universal", DWARF % ("App-universal", "App-universal"),
                                           thin, load=0x102D28000),
            "null-deref", "2022-02-21 16:45:09.6621 +0100", "1.0 (1)")

    # rejected and checksum: two more bugs in parse_record.
    add(arm64("rejected-arm64", ctx, "App-arm64", 0x104A30000, fault=ctx.rejected_line), "rejected",
        "2021-03-17 08:00:00.0000 +0100", "1 (1.0)")
    add(mr.make_x86_64_report(ctx, "rejected-x86_64", DWARF % ("App-x86_64", "App-x86_64"), "macho/App-x86_64",
                              load=0x10A2F1000, fault_line=ctx.rejected_line), "rejected",
        "2021-03-18 09:00:00.000 +0100", "1.0 (1)")
    add(arm64("checksum-arm64", ctx, "App-arm64", 0x104A30000, fault=ctx.rotl_line, fault_file="checksum.h"),
        "checksum", "2021-03-19 10:00:00.0000 +0100", "1 (1.0)")
    add(arm64("checksum-v2", v2, "App-arm64-v2", 0x100E94000, fault=v2.rotl_line, fault_file="checksum.h"),
        "checksum", "2021-05-21 10:00:00.0000 +0200", "3 (2.0)")

    # greeter: another crashed thread.
    report = arm64("greeter", ctx, "App-arm64", 0x104A30000)
    crash_thread(report, 2)
    add(report, "greeter", "2021-03-21 11:00:00.0000 +0100", "1 (1.0)")

    # watchdog and jetsam-code: no app frame in the crashed thread.
    for name, code, date in (("watchdog-1", "0x8badf00d", "2021-03-22 12:00:00.0000 +0100"),
                             ("watchdog-2", "0x8badf00d", "2021-03-23 13:00:00.0000 +0100"),
                             ("jetsam-code", "0xdead10cc", "2021-03-24 14:00:00.0000 +0100")):
        report = arm64(name, ctx, "App-arm64", 0x104A30000)
        killed(report, code)
        replace_line(report, "Process:", "Process:             App [%d]" % (4000 + len(groups)))
        add(report, name.split("-")[0] if name.startswith("watchdog") else name, date, "1 (1.0)")

    directory = os.path.join(ctx.build, "group")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    lines = []
    for report, label in groups:
        report.write(directory)
        os.remove(os.path.join(directory, report.name + ".expect.tsv"))
        fields, information = mr.header_fields(report)
        body, _ = mr.ips_body(report, fields, information)
        with open(os.path.join(directory, report.name + ".ips"), "w") as f:
            f.write(mr.ips_text(mr.ips_metadata(report, fields, "309"), body))
        lines.append("%s.crash\t%s\n%s.ips\t%s" % (report.name, label, report.name, label))
    with open(os.path.join(directory, "groups.tsv"), "w") as f:
        f.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
