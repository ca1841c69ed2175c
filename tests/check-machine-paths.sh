#!/bin/sh
# check-machine-paths.sh - no committed file holds a path of the machine it
# was made on (/work/..., /home/..., /tmp/..., /root/..., /Users/...): such a
# path means nothing to a reader and says where someone's files were. Files:
# every tracked file but the test scripts (which make such paths under their
# own temporary folders); tests/data/ is checked. In a checkout these are the
# git-tracked files; in an unpacked tarball weights/, tests/data/, man/, the
# Markdown files and the sources, scripts and build files. A path a file must
# show (an example command writing to /tmp, a default under /tmp) is allowed
# below, by file and exact path. The check then runs itself on a file with
# such a path, which it must refuse.
#
#   tests/check-machine-paths.sh [FILE...]   (make check: no arguments)
top=${TOP_SRCDIR:-$(dirname "$0")/..}
pattern='/(work|home|tmp|root|Users)/[^[:space:]`"'"'"')]*'

# FILE PATH: example commands and documented defaults, not machine paths
allowed='BENCHMARKS.md /tmp/dippm-bench-resnet50-full.onnx
Makefile.am /tmp/dippm-resnet50-full.onnx
samples/README.md /tmp/dippm-resnet50-full.onnx
tools/export_samples.py /tmp/resnet50_full.onnx
tools/measure/README.md /tmp/dry/measured.jsonl
tools/measure/README.md /tmp/out
tools/measure/device-run.sh /tmp/out
tools/measure/device-run.sh /tmp/dippm-measure:
tools/measure/device-run.sh /tmp/dippm-measure}'

files() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files | grep -v '^tests/' &&
            git -C "$top" ls-files -- tests/data
    else
        (cd "$top" && find weights tests/data man -type f 2>/dev/null &&
            find . -path ./tests -prune -o -type f \( -name '*.md' -o -name '*.[ch]' \
                -o -name '*.def' -o -name '*.py' -o -name '*.sh' -o -name '*.am' \
                -o -name '*.ac' -o -name '*.json' -o -name '*.in' \) -print |
            sed 's|^\./||')
    fi
}

# Prints "FILE: PATH" for each path not allowed; returns 1 if any.
check() { # DIR FILE...  (FILEs relative to DIR)
    dir=$1
    shift
    bad=0
    for f in "$@"; do
        for p in $(cd "$dir" && grep -aoE "$pattern" "$f" | sort -u); do
            echo "$allowed" | grep -qxF "$f $p" && continue
            echo "FAIL: $f: machine path $p"
            bad=1
        done
    done
    return $bad
}

if [ $# -gt 0 ]; then
    check . "$@"
    exit
fi
# shellcheck disable=SC2046
check "$top" $(files) || { echo "(a path a document must show goes in tests/check-machine-paths.sh)"; exit 1; }
echo "ok: no machine paths in the committed files (test scripts aside)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/data" "$tmp/weights" "$tmp/tools"
printf '{"data": "/home/someone/dippm/rows.jsonl"}\n' >"$tmp/tests/data/x.json"
printf '{"weights": "/work/main/build/w.dpw"}\n' >"$tmp/weights/dippm-gnn.eval.json"
printf 'DATA = "/root/dippm/rows.jsonl"\n' >"$tmp/tools/t.py"
for f in tests/data/x.json weights/dippm-gnn.eval.json tools/t.py; do
    if check "$tmp" "$f" >"$tmp/out"; then
        echo "FAIL: the check accepted $f with a machine path"; exit 1
    fi
    grep -qF "$f: machine path /" "$tmp/out" ||
        { echo "FAIL: the path in $f was not named:"; cat "$tmp/out"; exit 1; }
done
# Which files are checked: in a checkout, every tracked one but test scripts.
if command -v git >/dev/null 2>&1; then
    mkdir -p "$tmp/tests/cli" && printf 'T=/tmp/x\n' >"$tmp/tests/cli/t.sh"
    rm -f "$tmp/out"
    (cd "$tmp" && git init -q && git add -A) || exit 1
    listed=$(top=$tmp && files | sort | tr '\n' ' ')
    [ "$listed" = "tests/data/x.json tools/t.py weights/dippm-gnn.eval.json " ] ||
        { echo "FAIL: checked files in a checkout: $listed"; exit 1; }
fi
echo "PASS: no machine paths; the check catches one"
