#!/bin/sh
# check-gpu-lists.sh - GPU names are normalised in one place, dippm's GPU table
# and its aliases (gpu_find, src/core/gpu.c); the Python tools that read
# measurements (tools/, tools/measure/) map vendor and publication names onto
# it. Every GPU name those tools write (a string such as "H100-SXM5-80GB" or
# "T4") must be one dippm accepts; where a tool maps a name dippm also accepts
# (NVML's "A100-PCIE-40GB", MLPerf's "H100-SXM"), both must mean the same GPU,
# unless the mapping is allowed below with its reason. The man page's --gpu
# list must name the table's GPUs in order, and its aliases must resolve.
# The check then runs itself on a tool with a stale name, which it must refuse.
#
#   tests/check-gpu-lists.sh [FILE.py...]   (make check: no arguments)
# Env: DIPPM (binary), TOP_SRCDIR.
top=${TOP_SRCDIR:-$(dirname "$0")/..}
DIPPM=${DIPPM:-./dippm}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }

# FILE: NAME -> GPU mappings that differ from dippm's meaning of NAME, and why
allowed='tools/calib_map.py: A100 -> A100-SXM4-80GB (TensorRT-LLM publishes A100 rows on 80 GB SXM boards; dippm a100 is the 40 GB one)'

check() { # FILE.py... (paths relative to the current directory)
    DIPPM="$DIPPM" ALLOWED="$allowed" python3 - "$@" <<'PY'
import ast, os, re, subprocess, sys

dippm = os.environ["DIPPM"]
allowed = set(l.split(" (")[0] for l in os.environ["ALLOWED"].splitlines() if l)
cache = {}

def resolve(name):
    """The table name dippm gives name, or None if it refuses it."""
    if name not in cache:
        p = subprocess.run([dippm, "predict", "--gpu", name, "zoo:mlp", "--json"],
                           capture_output=True, text=True)
        m = re.search(r'"gpu": "([^"]+)"', p.stdout) if p.returncode == 0 else None
        cache[name] = m.group(1) if m else None
    return cache[name]

def literals(pattern):
    """The literal names a regex alternative list matches: '^A|^B$' -> A, B."""
    out = []
    for alt in pattern.split("|"):
        a = alt.strip("^$")
        if a and not re.search(r"[\\()\[\]*+?.{}]", a):
            out.append(a)
    return out

TABLE = re.compile(r"(^|_)(GPUS|GPU_NAMES|GPU_MAP)$")

def table_pairs(tree):
    """(key, GPU) of the tools' name tables (module-level NAME_GPUS, GPU_NAMES,
    GPU_MAP): {"key": "GPU"}, [(r"^pat$|^pat2$", "GPU")], [(("key", ...), "GPU")]."""
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and TABLE.search(node.targets[0].id)):
            continue
        v = node.value
        if isinstance(v, ast.Dict):
            for k, g in zip(v.keys, v.values):
                yield k.value, g.value
            continue
        for e in v.elts:
            k, g = e.elts
            keys = [k.value] if isinstance(k, ast.Constant) else [x.value for x in k.elts]
            for key in keys:
                for lit in literals(key):
                    yield lit, g.value

bad = 0
for path in sys.argv[1:]:
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    # the names a tool writes: the values of its tables and its string literals that
    # look like a dippm table name ("H100-SXM5-80GB")
    pairs = list(table_pairs(tree))
    written = {g for _, g in pairs}
    written |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                and isinstance(n.value, str) and re.match(r"^[AHLTV][0-9]{1,3}-\S*[0-9]GB$", n.value)}
    for name in sorted(written):
        if resolve(name) is None:
            print(f"FAIL: {path}: GPU '{name}' is not a name or alias dippm accepts")
            bad = 1
    for key, value in pairs:
        mine, theirs = resolve(key), resolve(value)
        if mine is None or theirs is None or mine == theirs:
            continue
        if f"{path}: {key} -> {theirs}" in allowed:
            continue
        print(f"FAIL: {path}: maps '{key}' to {theirs}; dippm reads '{key}' as {mine}")
        bad = 1
sys.exit(bad)
PY
}

if [ $# -gt 0 ]; then
    check "$@"
    exit
fi
[ -x "$DIPPM" ] || { echo "FAIL: no dippm binary at $DIPPM"; exit 1; }
DIPPM=$(cd "$(dirname "$DIPPM")" && pwd)/$(basename "$DIPPM")
cd "$top" || exit 1
# shellcheck disable=SC2046
check $(ls tools/*.py tools/measure/*.py | grep -v '/test_') || exit 1
echo "ok: the tools' GPU names are dippm's"

# the man page's --gpu list: the table's names in order, then aliases that resolve
known=$("$DIPPM" predict --gpu bogus zoo:mlp 2>&1 | sed -n 's/.*known: //p')
man=$(sed -n '/^\.BI \\-\\-gpu " NAME\[:PROFILE\]"/,/^\.TP/p' man/dippm.1 | sed '1d' | tr '\n' ' ')
names=$(printf '%s' "$man" | sed 's/, or a short alias.*//; s/ (default)//' |
    tr -d ',' | tr -s ' ' | sed 's/ $//')
[ "$names" = "$known" ] || { echo "FAIL: man page --gpu names '$names', table '$known'"; exit 1; }
for a in $(printf '%s' "$man" | sed -n 's/.*or a short alias (\([^)]*\)).*/\1/p' | tr -d ','); do
    "$DIPPM" predict --gpu "$a" zoo:mlp >/dev/null 2>&1 || { echo "FAIL: man page alias '$a' refused"; exit 1; }
done
echo "ok: the man page lists the table's GPUs"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'X_GPUS = [(r"^H200$", "H200-SXM5-141GB"), (("A100-PCIe",), "A100-PCIe-80GB")]\n' >"$tmp/t.py"
if (cd "$tmp" && check t.py) >"$tmp/out"; then
    echo "FAIL: the check accepted a stale name"; exit 1
fi
grep -qF "t.py: GPU 'H200-SXM5-141GB' is not" "$tmp/out" &&
    grep -qF "t.py: maps 'A100-PCIe' to A100-PCIe-80GB; dippm reads 'A100-PCIe' as A100-PCIe-40GB" \
        "$tmp/out" || { echo "FAIL: the stale names were not named:"; cat "$tmp/out"; exit 1; }
echo "PASS: the tools' GPU names follow dippm's table; the check catches a stale one"
