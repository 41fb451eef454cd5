#!/usr/bin/env python3
"""Writes the manual page symbolicate(1) from the program's own command-line declarations.

swift-argument-parser's generate-manual writes the page from the program's
--experimental-dump-help: NAME, SYNOPSIS, and a DESCRIPTION holding the root
command's discussion as raw text, then one list of the root options and of the
subcommands with their options. This script runs it (once for the whole page,
once with --multi-page for each subcommand's synopsis) and lays its output out as
a manual page reader expects it:

  SYNOPSIS     one line per subcommand (the generator's synopsis of each), then
               the root options
  DESCRIPTION  the paragraphs of the root command's discussion
  OPTIONS      the root options (--version, --help)
  SUBCOMMANDS  each subcommand, its text without the paragraphs and sections the
               root's discussion already gives, and its options
  ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES, ...
               the sections of the root command's discussion (see
               Sources/symbolicate/HelpSections.swift for their layout), in
               their order there; in place of the generator's generic EXIT STATUS

Nothing in the page is typed here: every word comes from the declarations, so
that the page says what --help says.

Usage: manpage.py --binary BIN --generate-manual TOOL [--date YYYY-MM-DD] -o OUT
Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HEADING = re.compile(r"^[A-Z][A-Z ]*[A-Z]$")
ENTRY = re.compile(r"^  (\S(?:.*?\S)?)  +(\S.*)$")
PROSE = re.compile(r"^  \S")
DEEPER = re.compile(r"^   +\S")
COMMAND = re.compile(r"^    ")


def fail(message):
    sys.exit(f"manpage.py: {message}")


def run(arguments):
    result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def generate(tool, binary, date, multi_page):
    """generate-manual's pages, by file name."""
    with tempfile.TemporaryDirectory() as directory:
        arguments = [tool, binary, "--output-directory", directory]
        if date:
            arguments += ["--date", date]
        if multi_page:
            arguments.append("--multi-page")
        run(arguments)
        pages = {}
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), encoding="utf-8") as page:
                pages[name] = page.read().split("\n")
        return pages


def section(lines, title):
    """The lines of section `title` (after its .Sh line, up to the next .Sh)."""
    start = None
    for i, line in enumerate(lines):
        if line.startswith(".Sh "):
            if start is not None:
                return lines[start:i]
            if line[4:].strip('"') == title:
                start = i + 1
    if start is None:
        fail(f"generate-manual wrote no {title} section")
    return lines[start:]


def text_line(line):
    """A line of running text: one that starts with a dot or an apostrophe would be read as
    a request (generate-manual escapes only the first line of a discussion)."""
    if line.startswith((".", "'")):
        return "\\&" + line
    return line


def minus_signs(line):
    """Options (-d, --reports-from) spelled with minus signs, so that they can be copied and
    are not broken across lines at their hyphens."""
    return re.sub(r"(?:^|(?<=[\s(\[|]))--?[A-Za-z][A-Za-z0-9-]*", lambda m: "\\%" + m.group(0).replace("-", "\\-"), line)


def macro_argument(text):
    text = text.replace('"', "\\(dq")
    return f'"{text}"' if " " in text else text


def paragraphs(lines):
    """Blank-line-separated blocks of text lines."""
    blocks, current = [], []
    for line in lines:
        if line.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def render_prose(block):
    return [text_line(minus_signs(line.strip())) for line in block]


def render_section(title, block):
    """A headed block of the discussion as mdoc: entries as a tag list, prose as paragraphs,
    commands as literal displays."""
    items = []  # ("entry", term, [text]) | ("prose", [text]) | ("command", [lines])
    for line in block:
        if COMMAND.match(line) and items and items[-1][0] in ("prose", "command"):
            if items[-1][0] == "prose":
                items.append(("command", []))
            items[-1][1].append(line[4:])
        elif DEEPER.match(line) and items and items[-1][0] == "entry":
            items[-1][2].append(line.strip())
        elif (match := ENTRY.match(line)):
            items.append(("entry", match.group(1), [match.group(2)]))
        elif PROSE.match(line):
            if items and items[-1][0] == "prose" and title != "EXAMPLES":
                items[-1][1].append(line.strip())
            else:
                items.append(("prose", [line.strip()]))
        else:
            fail(f"section {title}: a line that is neither an entry, its text, prose nor a command: {line!r}")

    terms = [item[1] for item in items if item[0] == "entry"]
    width = max(terms, key=len) if terms and max(len(t) for t in terms) <= 18 else "Ds"
    out = [f".Sh {title}"]
    in_list = False
    for n, item in enumerate(items):
        if item[0] == "entry":
            if not in_list:
                out.append(f".Bl -tag -width {macro_argument(width)}")
                in_list = True
            term = item[1]
            if re.fullmatch(r"[A-Z_][A-Z0-9_]*", term):
                out.append(f".It Ev {term}")
            elif term.startswith(("/", "~", "$")):
                out.append(f".It Pa {macro_argument(term)}")
            else:
                out.append(f".It {macro_argument(term)}")
            out.append(text_line(minus_signs(" ".join(item[2]))))
            continue
        if in_list:
            out.append(".El")
            in_list = False
        if item[0] == "prose":
            if n > 0:
                out.append(".Pp")
            out.extend(text_line(minus_signs(line)) for line in item[1])
        else:
            out.append(".Bd -literal -offset indent")
            out.extend(text_line(line.replace("-", "\\-")) for line in item[1])
            out.append(".Ed")
    if in_list:
        out.append(".El")
    return out


def split_list(lines, start):
    """The items of the .Bl list opening at `start`: (items, end), each item its lines from
    its .It on (nested lists included), `end` the index of the list's .El."""
    items, depth = [], 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.startswith(".Bl"):
            depth += 1
        elif line.startswith(".El"):
            if depth == 0:
                return items, i
            depth -= 1
        elif line.startswith(".It") and depth == 0:
            items.append([])
        if items:
            items[-1].append(line)
    fail("generate-manual's list does not end")


def clean_list(lines):
    """A generated option list without empty lines (each becomes a paragraph break, as in a
    discussion) and without a paragraph break right before an item or the list's end."""
    out = []
    for line in lines:
        if line.startswith((".", "\\")):
            out.append(line)
        elif line.strip():
            out.append(text_line(minus_signs(line)))
        elif out and out[-1] != ".Pp":
            out.append(".Pp")
    cleaned = []
    for i, line in enumerate(out):
        if line == ".Pp" and (i + 1 == len(out) or out[i + 1].startswith((".It", ".El", ".Bl", ".Pp"))):
            continue
        cleaned.append(line)
    return cleaned


def subcommand_item(item, root_paragraphs, default):
    """A subcommand's item of the SUBCOMMANDS list: its title, its abstract, what its
    discussion adds to the root's, its options."""
    title = item[0]
    name = title.split()[-1]
    nested = next((i for i, line in enumerate(item) if line.startswith(".Bl")), len(item))
    text = ["" if line == ".Pp" else line for line in item[1:nested]]
    out = [title + (" Pq default" if name == default else "")]
    kept = []
    for block in paragraphs(text):
        joined = " ".join(line.strip() for line in block)
        if HEADING.match(block[0]) or joined in root_paragraphs:
            continue
        kept.append(render_prose(block))
    for n, block in enumerate(kept):
        if n > 0:
            out.append(".Pp")
        out.extend(block)
    return out + clean_list(item[nested:])


def synopsis(pages, root_name, subcommands, default):
    """One synopsis per subcommand, as generate-manual writes each subcommand's page, then
    the root's options."""
    out = [".Sh SYNOPSIS"]
    for name in subcommands:
        page = pages.get(f"{root_name}.{name}.1")
        if page is None:
            fail(f"generate-manual --multi-page wrote no page for {name}")
        lines = [line for line in section(page, "SYNOPSIS") if line]
        if not lines or lines[0] != ".Nm":
            fail(f"unexpected synopsis of {name}: {lines[:1]}")
        out.append(".Nm")
        out.append(f".Op Cm {name}" if name == default else f".Cm {name}")
        out.extend(lines[1:])
    root = [line for line in section(pages[f"{root_name}.1"], "SYNOPSIS") if line]
    options = [line for line in root if line.startswith(".Op Fl")]
    if options:
        out.append(".Nm")
        out.extend(options)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the built program")
    parser.add_argument("--generate-manual", required=True, help="swift-argument-parser's generate-manual")
    parser.add_argument("--date", help="the page's date, YYYY-MM-DD (default: today)")
    parser.add_argument("-o", "--output", required=True, help="the page to write")
    args = parser.parse_args()

    dump = json.loads(run([args.binary, "--experimental-dump-help"]))["command"]
    root_name = dump["commandName"]
    default = dump.get("defaultSubcommand")
    single = generate(args.generate_manual, args.binary, args.date, multi_page=False)
    multi = generate(args.generate_manual, args.binary, args.date, multi_page=True)
    page = single.get(f"{root_name}.1") or fail(f"generate-manual wrote no {root_name}.1")

    # Preamble and NAME, as generated (the one-line description without its full stop).
    description_at = page.index(".Sh DESCRIPTION")
    head = []
    for line in page[:page.index(".Sh SYNOPSIS")]:
        if line.startswith(".Nd ") and line.endswith('."'):
            line = line[:-2] + '"'
        head.append(line)

    # The root's discussion, up to its list; then the list of root options and subcommands.
    list_at = next(i for i in range(description_at, len(page)) if page[i].startswith(".Bl"))
    discussion = page[description_at + 1:list_at]
    items, _ = split_list(page, list_at)
    options = [item for item in items if not item[0].startswith(".It Em ")]
    subcommand_items = [item for item in items if item[0].startswith(".It Em ")]
    subcommands = [item[0].split()[-1] for item in subcommand_items]

    description, sections = [], []
    for block in paragraphs(discussion):
        if HEADING.match(block[0]):
            sections.append((block[0], block[1:]))
        elif sections:
            sections[-1][1].extend(["  " + line for line in block])
        else:
            description.append(block)
    root_paragraphs = {" ".join(line.strip() for line in block) for block in description}

    out = list(head)
    out += synopsis(multi, root_name, subcommands, default)
    out.append(".Sh DESCRIPTION")
    for n, block in enumerate(description):
        if n > 0:
            out.append(".Pp")
        out.extend(render_prose(block))
    out += [".Sh OPTIONS", ".Bl -tag -width 6n"]
    for item in options:
        out += clean_list(item)
    out.append(".El")
    out += [".Sh SUBCOMMANDS", ".Bl -tag -width 6n"]
    for item in subcommand_items:
        out += subcommand_item(item, root_paragraphs, default)
    out.append(".El")
    for title, block in sections:
        out += render_section(title, block)

    with open(args.output, "w", encoding="utf-8") as target:
        target.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
