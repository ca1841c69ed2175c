#!/bin/sh
# check-runtime-lists.sh - every list of runtimes written by hand (help
# texts, the explorer's field ranges, the man pages, documents) names every
# runtime of RUNTIME_LIST (src/core/config.h). Messages print the list
# config.c makes and completion asks dippm; this catches the copies that
# must stay literal when a runtime is added. A runtime list runs over
# several lines (a help string, a man paragraph), so the unit is a block:
# text between blank lines or man-page paragraph macros (.TP, .PP, .SH,
# .SS, .IP). A block naming five or more runtimes is a list and must name
# them all; a block meant to name a subset (the GNN's featured runtimes, a
# runtime group) is allowed below, by file and the runtimes it lacks. The
# check then runs itself on a file with a stale list, which it must refuse.
#
#   tests/check-runtime-lists.sh [FILE...]   (make check: no arguments)
# Needs python3 (standard library only).
top=${TOP_SRCDIR:-$(dirname "$0")/..}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# FILE: RUNTIMES IT LACKS (space-separated) of blocks that are not meant whole
allowed='src/core/config.h: pytorch vllm
src/core/sim.c: pytorch-sdpa vllm
src/lab/eval_order.c: inductor inductor-graph onnxruntime onnxruntime-graph
src/lab/interval_gen.c: inductor inductor-graph onnxruntime onnxruntime-graph'

files() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files -- src ui man '*.md' | grep -v -e '^tests/' -e '^weights/'
    else
        (cd "$top" && find src ui man -type f && find . -path ./tests -prune -o \
            -path ./weights -prune -o -name '*.md' -print | sed 's|^\./||')
    fi
}

# Prints "FILE:LINE: ..." for each stale list; returns 1 if any.
check() { # CONFIG_H DIR FILE...
    config=$1 dir=$2
    shift 2
    ALLOWED=$allowed "$PY" - "$config" "$dir" "$@" <<'EOF'
import os, re, sys
config, top, files = sys.argv[1], sys.argv[2], sys.argv[3:]
names = re.findall(r'X\(RT_[A-Z0-9_]+, "([a-z0-9-]+)"\)', open(config).read())
if len(names) < 2:
    sys.exit("FAIL: could not read RUNTIME_LIST from " + config)
allowed = set(l.strip() for l in os.environ["ALLOWED"].splitlines() if l.strip())
word = {n: re.compile(r'(?<![\w-])' + re.escape(n) + r'(?![\w-])') for n in names}
bad = 0
for f in files:
    try:
        text = open(os.path.join(top, f), encoding="utf-8").read().replace("\\-", "-")
        text = re.sub(r"\\f[BIRP]", "", text)  # man font escapes around a name
    except (OSError, UnicodeDecodeError):
        continue
    line = 1
    for block in re.split(r'(\n\s*\n|\n(?=\.(?:TP|PP|SH|SS|IP)\b))', text):
        have = [n for n in names if word[n].search(block)]
        missing = [n for n in names if n not in have]
        if len(have) >= 5 and missing and "%s: %s" % (f, " ".join(missing)) not in allowed:
            at = line + len(block) - len(block.lstrip("\n"))
            print("FAIL: %s:%d: a runtime list without %s" % (f, at, ", ".join(missing)))
            bad = 1
        line += block.count("\n")
sys.exit(bad)
EOF
}

if [ $# -gt 0 ]; then
    check "$top/src/core/config.h" . "$@"
    exit
fi
# shellcheck disable=SC2046
check "$top/src/core/config.h" "$top" $(files) || exit 1
echo "ok: every runtime list names every runtime of RUNTIME_LIST"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
names=$(sed -n 's/^ *X(RT_[A-Z0-9_]*, "\([a-z0-9-]*\)").*/\1/p' "$top/src/core/config.h" |
    tr '\n' ' ')
printf 'pytorch, pytorch-sdpa, inductor, tensorrt\nor tensorrt-graph\n\n%s\n' "$names" >"$tmp/h.c"
if check "$top/src/core/config.h" "$tmp" h.c >"$tmp/out"; then
    echo "FAIL: the check accepted a list without vllm"; exit 1
fi
grep -qF 'h.c:1: a runtime list without vllm, inductor-graph' "$tmp/out" ||
    { echo "FAIL: the stale list was not named:"; cat "$tmp/out"; exit 1; }
! grep -q 'h.c:4' "$tmp/out" || { echo "FAIL: the full list was refused:"; cat "$tmp/out"; exit 1; }
echo "PASS: runtime lists follow RUNTIME_LIST; the check catches a stale one"
