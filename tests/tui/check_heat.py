#!/usr/bin/env python3
"""Checks the Sweep tab's heat map against `dippm predict --json`
(run-explorer-tests.sh). Arguments: a screen dump, then CHECK JSON pairs:
  cell        the selected cell's line (batch N, COLUMN: latency, rate,
              memory of usable) gives predict's latency, throughput, memory
  row=B:K     the K-th cell (0-based) of batch B's row: its figure is
              predict's latency and it is marked x exactly when predict
              says it does not fit, > exactly when it is over the SLO
              (slo=MS as a further argument sets the SLO the screen has)
Prints each contradiction; exit 1 if any."""
import json
import re
import sys

TIME = r"\d[\d.]* (?:ns|µs|ms|s|min|h)"
SCALE = {"ns": 1e-6, "µs": 1e-3, "ms": 1, "s": 1e3, "min": 6e4, "h": 3.6e6}
UNITS = {"B": 1 / 1048576, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "TiB": 1048576}


def ms(text):
    num, unit = text.split()
    return float(num) * SCALE[unit]


def rate(text):
    m = re.fullmatch(r"(\d[\d.]*)([kMGT]?)", text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]


def close(shown, value):
    """Three significant figures: within 0.6%."""
    return abs(shown - value) <= 0.006 * abs(value)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        screen = f.read().splitlines()
    args = sys.argv[2:]
    slo = 0.0
    bad = []
    checked = 0
    pairs = []
    for a in args:
        if a.startswith("slo="):
            slo = float(a[4:])
    rest = [a for a in args if not a.startswith("slo=")]
    pairs = list(zip(rest[0::2], rest[1::2]))
    for what, path in pairs:
        with open(path, encoding="utf-8") as f:
            js = json.load(f)
        col = js["mig"] or js["precision"]
        if what == "cell":
            line = next((l for l in screen if l.startswith(f"batch {js['batch']}, ")), "")
            m = re.match(r"batch (\d+), (\S+): (" + TIME + r"), (\S+)/s, (\d[\d.]*) (\w+) of ",
                         line)
            if not m:
                bad.append(f"no selected cell for batch {js['batch']}: {line!r}")
                continue
            if m.group(2) != col:
                bad.append(f"selected cell {m.group(2)}, predict ran {col}")
            if not close(ms(m.group(3)), js["latency_ms"]):
                bad.append(f"cell latency {m.group(3)}, predict {js['latency_ms']} ms")
            if not close(rate(m.group(4)), js["throughput_per_s"]):
                bad.append(f"cell throughput {m.group(4)}/s, predict {js['throughput_per_s']}/s")
            if not close(float(m.group(5)) * UNITS[m.group(6)], js["memory_mib"]):
                bad.append(f"cell memory {m.group(5)} {m.group(6)}, predict {js['memory_mib']} MiB")
            checked += 1
            continue
        b, k = what[4:].split(":")
        head = next((i for i, l in enumerate(screen) if l.startswith("  batch ")), len(screen))
        row = next((l for l in screen[head + 1:] if re.match(r"\s*" + b + r"\s", l)), "")
        cells = re.findall(r"(" + TIME + r")([✕x> ]?)", row)
        if len(cells) <= int(k):
            bad.append(f"batch {b} row has no cell {k}: {row!r}")
            continue
        shown, mark = cells[int(k)]
        if not close(ms(shown), js["latency_ms"]):
            bad.append(f"batch {b} cell {k} ({col}) {shown}, predict {js['latency_ms']} ms")
        if (mark in "✕x" and mark != "") == js["fits"]:
            bad.append(f"batch {b} cell {k} ({col}) marked {mark!r}, predict fits={js['fits']}")
        if mark not in "✕x" and (mark == ">") != (slo > 0 and js["latency_ms"] > slo):
            bad.append(f"batch {b} cell {k} ({col}) marked {mark!r}, latency "
                       f"{js['latency_ms']} ms against the SLO {slo} ms")
        checked += 1
    if checked != len(pairs):
        bad.append(f"checked {checked} of {len(pairs)} cells")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
