#!/usr/bin/env python3
"""Renders ui/README-keys.md (the explorer's screens, keys and commands) as the
EXPLORER section of man/dippm.1, between the markers
'.\\" BEGIN EXPLORER' and '.\\" END EXPLORER'. Run after editing the keys:
    python3 tools/keys2man.py ui/README-keys.md man/dippm.1
tests/check-keys-man.sh (make check) fails when the man page differs from what
this makes of README-keys.md, and tests/test_ui_keymap.c when README-keys.md's
key and command rows differ from the explorer's (ui/keymap.c, ui/actions.def).
"""
import re
import sys


def inline(t):
    t = t.replace("\\", "\\e")
    t = re.sub(r"\*\*(.+?)\*\*", r"\\fB\1\\fR", t)
    t = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", t)
    t = t.replace("-", "\\-")
    return t


def split_row(row):
    """Cells of a markdown table row; a | inside `code` is not a separator."""
    cells, cur, code = [], "", False
    for ch in row:
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return cells[1:-1]


def render(md):
    out = []
    lines = md.splitlines()
    i = 0
    para = []

    def flush():
        if para:
            text = inline(" ".join(para))
            if text.startswith("."):
                text = "\\&" + text
            out.append(".PP\n" + text)
            para.clear()

    while i < len(lines):
        ln = lines[i]
        if ln.startswith("# "):
            i += 1
            continue
        if ln.startswith("Text for dippm(1)"):  # note to the man page author
            while i < len(lines) and lines[i].strip():
                i += 1
            continue
        if ln.startswith("## "):
            flush()
            out.append(".SS " + ln[3:].strip())
        elif ln.startswith("- "):
            flush()
            item = [ln[2:].strip()]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out.append(".IP \\(bu 2\n" + inline(" ".join(item)))
            continue
        elif ln.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = split_row(lines[i].strip())
                if not all(set(c) <= set("-: ") for c in cells):
                    rows.append(cells)
                i += 1
            for r in rows[1:]:
                desc = " \u2014 ".join(r[1:]) if len(r) > 2 else r[-1]
                out.append(".TP\n" + inline(r[0]) + "\n" + inline(desc))
            continue
        elif not ln.strip():
            flush()
        else:
            para.append(ln.strip())
        i += 1
    flush()
    return "\n".join(out) + "\n"


def main():
    md = open(sys.argv[1], encoding="utf-8").read()
    man_path = sys.argv[2]
    man = open(man_path, encoding="utf-8").read()
    begin, end = '.\\" BEGIN EXPLORER\n', '.\\" END EXPLORER\n'
    body = ".SH EXPLORER\n" + render(md)
    if begin in man:
        a = man.index(begin) + len(begin)
        b = man.index(end)
        man = man[:a] + body + man[b:]
    else:
        man = man.replace("@EXPLORER@\n", begin + body + end)
    open(man_path, "w", encoding="utf-8").write(man)


main()
