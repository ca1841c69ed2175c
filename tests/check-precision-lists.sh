#!/bin/sh
# check-precision-lists.sh - every list of precisions written by hand (help
# texts, the explorer's field ranges, the man page, documents) names the
# precisions of PRECISION_LIST (src/core/config.h) in its order: all of them,
# or all storage ones (those config.c's prec_compute_only does not mark, a KV
# cache's). Messages print the lists config.c makes; this catches the copies
# that must stay literal when a precision is added or renamed. A line naming
# three or more precisions is a list; a list that is meant to be a subset
# (what the measuring harness runs) or the tail of a list begun on the line
# before is allowed below, by file and its names. The check then runs itself
# on a file with a stale list, which it must refuse.
#
#   tests/check-precision-lists.sh [FILE...]   (make check: no arguments)
top=${TOP_SRCDIR:-$(dirname "$0")/..}

# The names in table order, and the storage ones, space-separated.
all=$(sed -n 's/^ *X(PREC_[A-Z0-9_]*, "\([a-z0-9]*\)", [0-9]*).*/\1/p' "$top/src/core/config.h" |
    tr '\n' ' ' | sed 's/ $//')
compute=$(sed -n '/prec_compute_only\[/,/;/p' "$top/src/core/config.c" |
    grep -oE '\[PREC_[A-Z0-9_]+\] = true' | sed 's/\[PREC_\([A-Z0-9_]*\)\].*/\1/' |
    tr 'A-Z' 'a-z')
storage=$(for n in $all; do echo "$compute" | grep -qxF "$n" || printf '%s ' "$n"; done |
    sed 's/ $//')
[ -n "$all" ] && [ "$all" != "$storage" ] ||
    { echo "FAIL: could not read PRECISION_LIST and prec_compute_only"; exit 1; }
names=$(echo "$all" | tr ' ' '|')

# FILE: NAMES (as the check prints them) of lists that are not meant whole
allowed='man/dippm-measured.5: fp16 bf16 int8
src/cli/cli_predict.c: bf16 int8 fp8
src/core/gpu.h: fp32 tf32 fp16 bf16
tools/measure/README.md: fp32 tf32 fp16 bf16
tools/measure/README.md: tf32 fp16 bf16'

files() {
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files -- src ui man '*.md' | grep -v '^tests/'
    else
        (cd "$top" && find src ui man -type f && find . -path ./tests -prune -o -name '*.md' -print |
            sed 's|^\./||')
    fi
}

# Prints "FILE:LINE: ..." for each list that is neither; returns 1 if any.
check() { # DIR FILE...
    dir=$1
    shift
    (cd "$dir" && grep -nowE "$names" "$@" /dev/null) |
        awk -F: -v all="$all" -v storage="$storage" -v allowed="$allowed" '
        BEGIN { n_ok = split(allowed, oks, "\n"); for (i = 1; i <= n_ok; i++) ok[oks[i]] = 1 }
        { key = $1 ":" $2; if (!(key in seq)) order[++n] = key; seq[key] = seq[key] (seq[key] == "" ? "" : " ") $3; cnt[key]++ }
        END {
            bad = 0
            for (i = 1; i <= n; i++) {
                k = order[i]
                if (cnt[k] < 3 || seq[k] == all || seq[k] == storage) continue
                f = k; sub(/:[0-9]+$/, "", f)
                if ((f ": " seq[k]) in ok) continue
                print "FAIL: " k ": precisions \"" seq[k] "\", expected \"" all "\" or \"" storage "\""
                bad = 1
            }
            exit bad
        }'
}

if [ $# -gt 0 ]; then
    check . "$@"
    exit
fi
# shellcheck disable=SC2046
check "$top" $(files) || exit 1
echo "ok: every precision list names \"$all\" or \"$storage\""

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '"fp32, fp16, bf16 or int8"\n"fp32, tf32, fp16, bf16, int8 or fp8"\n' >"$tmp/h.c"
if check "$tmp" h.c >"$tmp/out"; then
    echo "FAIL: the check accepted a list without fp8"; exit 1
fi
grep -qF 'h.c:1: precisions "fp32 fp16 bf16 int8"' "$tmp/out" ||
    { echo "FAIL: the stale list was not named:"; cat "$tmp/out"; exit 1; }
! grep -q 'h.c:2' "$tmp/out" || { echo "FAIL: the full list was refused:"; cat "$tmp/out"; exit 1; }
echo "PASS: precision lists follow PRECISION_LIST; the check catches a stale one"
