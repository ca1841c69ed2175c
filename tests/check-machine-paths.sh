#!/bin/sh
# check-machine-paths.sh - no committed weight report, document or test data
# file holds a path of the machine it was made on (/work/..., /home/...,
# /tmp/..., /root/..., /Users/...): such a path means nothing to a reader and
# says where someone's files were. Files: weights/, tests/data/, man/ and
# every Markdown file (the git-tracked ones in a checkout, else what is on
# disk). A path a document must show (an example command writing to /tmp)
# is allowed below, by file and exact path. The check then runs itself on a
# file with such a path, which it must refuse.
#
#   tests/check-machine-paths.sh [FILE...]   (make check: no arguments)
top=${TOP_SRCDIR:-$(dirname "$0")/..}
pattern='/(work|home|tmp|root|Users)/[^[:space:]`"'"'"')]*'

# FILE PATH: example commands in the documentation, not machine paths
allowed='BENCHMARKS.md /tmp/dippm-bench-resnet50-full.onnx
samples/README.md /tmp/dippm-resnet50-full.onnx
tools/measure/README.md /tmp/dry/measured.jsonl
tools/measure/README.md /tmp/out'

files() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files -- weights tests/data man '*.md'
    else
        (cd "$top" && find weights tests/data man -type f 2>/dev/null &&
            find . -name '*.md' -type f | sed 's|^\./||')
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
echo "ok: no machine paths in weights/, tests/data/, man/ and the Markdown files"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/data"
printf '{"data": "/home/someone/dippm/rows.jsonl"}\n' >"$tmp/tests/data/x.json"
if check "$tmp" tests/data/x.json >"$tmp/out"; then
    echo "FAIL: the check accepted a file with /home/someone/..."; exit 1
fi
grep -qF "tests/data/x.json: machine path /home/someone/dippm/rows.jsonl" "$tmp/out" ||
    { echo "FAIL: the path was not named:"; cat "$tmp/out"; exit 1; }
echo "PASS: no machine paths; the check catches one"
