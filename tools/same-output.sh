#!/bin/sh
# same-output.sh - writes what `dippm layers --json` and `dippm predict --json`
# print for every zoo family (its defaults and sampled configurations) and
# every file under samples/ into DIR, one file per model and command, with
# the exit status and standard error. Run it with the program before and
# after a change that must not alter any output, then `diff -r` the two DIRs.
#
#   tools/same-output.sh DIPPM DIR [SAMPLES_PER_FAMILY]   (default 3)
set -u
dippm=$1
out=$2
per=${3:-3}
top=$(dirname "$0")/..
mkdir -p "$out" || exit 1

run() { # KEY MODEL
    for cmd in layers predict; do
        "$dippm" "$cmd" --json "$2" >"$out/$1.$cmd" 2>&1
        echo "exit $?" >>"$out/$1.$cmd"
    done
}

n=0
for fam in $("$dippm" zoo list | awk '{print $1}'); do
    run "zoo-$fam" "zoo:$fam"
    n=$((n + 1))
    i=0
    for spec in $("$dippm" zoo sample "$fam" --seed 7 --count "$per"); do
        run "zoo-$fam-$i" "$spec"
        echo "$spec" >>"$out/zoo-$fam-$i.layers"
        i=$((i + 1))
        n=$((n + 1))
    done
done
for f in $(cd "$top" && find samples -type f | sort); do
    run "$(echo "$f" | tr / _)" "$top/$f"
    n=$((n + 1))
done
echo "$n models, $((2 * n)) outputs in $out"
