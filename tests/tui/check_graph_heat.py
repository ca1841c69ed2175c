#!/usr/bin/env python3
"""Checks the Graph view's time colours (run-explorer-tests.sh): every node
row on a dumped screen carries the marker of its share of the predicted
time, as the Layers tab's CSV export gives the share: against an even
share 1/N of the N nodes that take time, below it, up to 4x, up to 16x,
beyond (utf8 shades, or . : * # with ascii), none for a node that takes
no time. Arguments: the dump, the CSV, utf8|ascii. Prints each
contradiction; exit 1 if any."""
import csv
import re
import sys


def main():
    dump, table, kind = sys.argv[1:4]
    marks = "░▒▓█" if kind == "utf8" else ".:*#"
    with open(table, encoding="utf-8") as f:
        share = {r["name"]: float(r["time_share"]) for r in csv.DictReader(f)}
    n = sum(1 for s in share.values() if s > 0)
    even = 1.0 / n
    edges = [even, 4 * even, 16 * even]
    with open(dump, encoding="utf-8") as f:
        screen = f.read().splitlines()
    bad, seen = [], 0
    if not any(re.search("time [" + marks + "]<", l) for l in screen):
        bad.append("no legend of the time colours")
    for l in screen:
        m = re.search(r"(.) ([A-Z]\w*) (\S+)  \[", l)
        if not m or m.group(3) not in share:
            continue
        s = share[m.group(3)]
        if any(abs(s - e) <= 0.01 * e for e in edges):
            continue  # on an edge: the CSV's six decimals cannot tell
        want = " " if s <= 0 else marks[sum(1 for e in edges if s >= e)]
        if m.group(1) != want:
            bad.append(f"{m.group(3)} ({s:.4%} of the time, even {even:.4%}) marked "
                       f"{m.group(1)!r}, expected {want!r}")
        seen += 1
    if seen < 10:
        bad.append(f"only {seen} node rows checked")
    if not any(share[k] > 16 * even for k in share):
        bad.append("no node beyond 16x the even share: the case does not test the top bucket")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
