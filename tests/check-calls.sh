#!/bin/sh
# check-calls.sh - the layering of tests/check-layering.sh, by calls rather
# than includes: from the built objects, every symbol a layer's code uses
# must be defined in that layer or one below it (util < graph < core < ui <
# the program, src/cli). A call into a higher layer through a declaration
# written by hand, which no include check sees, fails here. Run in the build
# directory (make check does).
set -u
fail=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rank=0
for layer in util graph core ui cli; do
    if [ "$layer" = cli ]; then
        set -- src/cli/*.o
    else
        set -- "lib$layer.a"
    fi
    for f in "$@"; do
        [ -f "$f" ] || { echo "FAIL: $f not built (run make first)"; exit 1; }
    done
    nm -g --defined-only "$@" 2>/dev/null |
        awk -v r=$rank -v l=$layer 'NF == 3 && $2 ~ /^[TDBRCVW]$/ { print $3, r, l }' >> "$tmp/defs"
    nm -u "$@" 2>/dev/null | awk -v r=$rank -v l=$layer 'NF == 2 { print $2, r, l }' >> "$tmp/uses"
    rank=$((rank + 1))
done
sort -u -k1,1 "$tmp/defs" > "$tmp/defs.s"
sort -u "$tmp/uses" | sort -k1,1 > "$tmp/uses.s"
join "$tmp/uses.s" "$tmp/defs.s" | awk '$4 > $2 { print "  " $3 " uses " $1 " of " $5 }' > "$tmp/up"
if [ -s "$tmp/up" ]; then
    echo "FAIL: calls from a lower layer into a higher one:"
    cat "$tmp/up"
    fail=1
else
    echo "ok: $(wc -l < "$tmp/uses.s") symbol uses, none into a higher layer"
fi
exit $fail
