#!/usr/bin/env python3
"""Checks one configuration's explorer screens against each other and
against `dippm predict --json` (run-consistency-tests.sh). Arguments: the
folder with the dumps (main, sweep, m1..m5) and json, and the batch asked
for. Prints each contradiction; exit 1 if any."""
import json
import re
import sys

UNITS = {"B": 1 / 1048576, "KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "TiB": 1048576}
SIZE = r"(\d[\d.]*) (B|KiB|MiB|GiB|TiB)"
TIME = r"\d[\d.]* (?:ns|µs|ms|s|min|h)"


def mib(num, unit):
    return float(num) * UNITS[unit]


def ms(text):
    """A time as the explorer prints it, in ms."""
    num, unit = text.split()
    return float(num) * {"ns": 1e-6, "µs": 1e-3, "ms": 1, "s": 1e3, "min": 6e4, "h": 3.6e6}[unit]


def rate(text):
    """A number as fmt_num prints it (1.57k, 2.3M, 0.5)."""
    m = re.fullmatch(r"(\d[\d.]*)\s*([kMGT]?)", text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)] \
        if m else float("nan")


def close(text_mib, value):
    """A figure printed to three significant figures is within 0.6%."""
    return abs(text_mib - value) <= 0.006 * max(abs(value), 1e-9)


def read(d, name):
    try:
        with open(f"{d}/{name}", encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError:
        return []


def main():
    d, batch = sys.argv[1], int(sys.argv[2])
    bad = []
    with open(f"{d}/json", encoding="utf-8") as f:
        js = json.load(f)
    main_ = read(d, "main")
    sweep = read(d, "sweep")
    if not main_ or not sweep:
        print("no screen dumped")
        return 1
    adv = js["mig_advice"]
    sugg = adv["suggestion"]
    prof = {p["profile"]: p for p in adv["profiles"]}

    # header: the configuration itself
    hdr = next((l for l in main_ if l.startswith("GPU ")), "")
    m = re.match(r"GPU (\S+)  (\S+)  (\S+)  batch (\d+)", hdr)
    if not m:
        bad.append(f"no configuration line: {hdr!r}")
    elif (m.group(1), m.group(2), m.group(3), int(m.group(4))) != (
            js["gpu"], js["precision"], js["runtime"], batch) or js["batch"] != batch:
        bad.append(f"header {m.groups()} vs predict {js['gpu']} {js['precision']} "
                   f"{js['runtime']} {js['batch']} (asked batch {batch})")
    lat = re.search(r"Latency \((?:GNN|teacher)\) (" + TIME + ")", "\n".join(main_))

    # the memory bar: the header's pass, and the fit rule
    mem_line = next((l for l in main_ if l.startswith("Memory ")), "")
    mm = re.search(SIZE + " of " + SIZE, mem_line)
    if not mm:
        bad.append(f"no memory figure: {mem_line!r}")
    else:
        if not close(mib(mm.group(1), mm.group(2)), js["memory_mib"]):
            bad.append(f"memory bar {mm.group(1)} {mm.group(2)}, predict {js['memory_mib']} MiB")
        if ("does not fit" in mem_line) == js["fits"]:
            bad.append(f"memory bar {'does not fit' if not js['fits'] else 'fits'} is missing; "
                       f"predict fits={js['fits']}: {mem_line!r}")

    # the MIG line
    mig_line = next((l for l in main_ if l.startswith("MIG ")), "")
    if sugg:
        mg = re.match(r"MIG (\S+): (" + TIME + r"), (\S+)/s there(?: \(meets SLO [^)]*\))?; "
                      r"predicted " + SIZE + " [+]", mig_line)
        if not mg or mg.group(1) != sugg:
            bad.append(f"MIG line {mig_line!r}, predict suggests {sugg}")
        else:
            if not close(mib(mg.group(4), mg.group(5)), prof[sugg]["memory_mib"]):
                bad.append(f"MIG line memory {mg.group(4)} {mg.group(5)}, predict's {sugg} "
                           f"{prof[sugg]['memory_mib']} MiB")
            # the latency and throughput on the suggested slice
            if not close(ms(mg.group(2)), prof[sugg]["latency_ms"]):
                bad.append(f"MIG line latency {mg.group(2)}, predict's {sugg} "
                           f"{prof[sugg]['latency_ms']} ms")
            if not close(rate(mg.group(3)), batch * 1e3 / prof[sugg]["latency_ms"]):
                bad.append(f"MIG line throughput {mg.group(3)}/s, predict's {sugg} "
                           f"{batch * 1e3 / prof[sugg]['latency_ms']:.4g}/s")
    elif prof and not mig_line.startswith("MIG no "):
        bad.append(f"MIG line {mig_line!r}, predict suggests none")
    elif not prof and "has no MIG profiles" not in mig_line:
        bad.append(f"MIG line {mig_line!r} for a GPU without MIG")

    # the sweep's row of the configuration and its fits
    rows = {}
    for l in sweep:
        r = re.search(r"\s(\d+)\s+(" + TIME + r")\s+\S+\s+(\d[\d.]* (?:B|KiB|MiB|GiB|TiB))(!?)\s*$", l)
        if r:
            rows[int(r.group(1))] = r.groups()[1:]
    if batch not in rows:
        bad.append(f"the sweep has no row for batch {batch}")
    else:
        s_lat, s_mem, s_bang = rows[batch]
        if lat and s_lat != lat.group(1):
            bad.append(f"sweep latency {s_lat}, header {lat.group(1)}")
        if mm and s_mem != f"{mm.group(1)} {mm.group(2)}":
            bad.append(f"sweep memory {s_mem}, memory bar {mm.group(1)} {mm.group(2)}")
        if (s_bang == "!") == js["fits"]:
            bad.append(f"sweep row marked {'!' if s_bang else 'fits'}, predict fits={js['fits']}")
    fl = (re.search(r"batch (\d+): fits (full GPU|\S+)", "\n".join(sweep)) or
          re.search(r"()fits: (full GPU|\S+)", "\n".join(sweep)))
    want = sugg if sugg else ("full GPU" if not prof and js["fits"] else "none")
    if not fl:
        bad.append("the sweep shows no 'fits'")
    elif not fl.group(1) or int(fl.group(1)) != batch or fl.group(2) != want:
        bad.append(f"sweep '{fl.group(0)}', expected batch {batch}: fits {want}")

    # the MIG table
    table = next((read(d, f"m{k}") for k in range(1, 6)
                  if any("Every MIG profile" in l for l in read(d, f"m{k}"))), [])
    if prof and not table:
        bad.append("no MIG table")
    seen = 0
    for l in table:
        t = re.match(r"(\S+)\s+" + TIME + r"\s+" + SIZE + r"\s+" + SIZE + r"\s+(yes|no)(.*)", l)
        if not t or t.group(1) not in prof:
            continue
        seen += 1
        p = prof[t.group(1)]
        if (t.group(6) == "yes") != p["fits"]:
            bad.append(f"MIG table {t.group(1)} fits {t.group(6)}, predict {p['fits']}")
        if ("suggested" in t.group(7)) != (t.group(1) == sugg):
            bad.append(f"MIG table suggests {t.group(1)!r} line {l!r}, predict {sugg}")
    if prof and seen != len(prof):
        bad.append(f"MIG table shows {seen} of {len(prof)} profiles")

    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
