#!/bin/sh
# check-calls.sh - the layering of tests/check-layering.sh, by calls rather
# than includes: from the built objects, every symbol a file's code uses
# must be defined in its own folder or in a lower layer (tests/layers.awk:
# util < graph/ir < graph/ops < the graph readers and templates < graph <
# core < the lab and ui < the program, src/cli; two folders of one layer,
# such as two readers or the lab and ui, must not call each other, and only
# the lab subcommands call into the lab). A call into a higher layer through a
# declaration written by hand, which no include check sees, fails here. Run
# in the build directory (make check does).
set -u
top=${TOP_SRCDIR:-$(dirname "$0")/..}
fail=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# symbols.awk: "SYMBOL PATH" for the symbols nm lists with its -A prefix,
# each object named by its source's path (an archive member libgraph_a-ir.o
# is ir.c in one of the library's folders).
cat > "$tmp/symbols.awk" <<'AWK'
BEGIN { while ((getline l < map) > 0) { split(l, a, " "); src[a[1]] = a[2] } }
function path(o) {
    sub(/:[^:]*$/, "", o); sub(/.*[:\/]/, "", o)
    sub(/^lib[a-z]+_a-/, "", o); sub(/\.o$/, "", o)
    return (o in src) ? src[o] : "?" o
}
NF == 3 && $2 ~ types { print $3, path($1) }
AWK
for unit in "libutil.a src/util" "libgraph.a graph graph/*" "libcore.a src/core" \
        "liblab.a src/lab" "libui.a ui" "cli src/cli"; do
    lib=${unit%% *} dirs=${unit#* }
    # shellcheck disable=SC2086 # $dirs: folders, globbed in the source tree
    (cd "$top" && for d in $dirs; do ls "$d"/*.c 2>/dev/null; done) |
        awk '{ n = $0; sub(/.*\//, "", n); sub(/\.c$/, "", n); print n, $0 }' > "$tmp/src"
    if [ "$lib" = cli ]; then
        set -- src/cli/*.o
    else
        set -- "$lib"
    fi
    for f in "$@"; do
        [ -f "$f" ] || { echo "FAIL: $f not built (run make first)"; exit 1; }
    done
    nm -A -g --defined-only "$@" 2>/dev/null |
        awk -v map="$tmp/src" -v types='^[TDBRCVW]$' -f "$tmp/symbols.awk" >> "$tmp/defs"
    nm -A -u "$@" 2>/dev/null |
        awk -v map="$tmp/src" -v types='^U$' -f "$tmp/symbols.awk" >> "$tmp/uses"
done
unknown=$(cat "$tmp/defs" "$tmp/uses" | awk '$2 ~ /^\?/ { print "  " substr($2, 2) }' | sort -u)
if [ -n "$unknown" ]; then echo "FAIL: objects without a source file:"; echo "$unknown"; exit 1; fi
sort -u -k1,1 "$tmp/defs" > "$tmp/defs.s"
sort -u "$tmp/uses" | sort -k1,1 > "$tmp/uses.s"
join "$tmp/uses.s" "$tmp/defs.s" | awk "$(cat "$top/tests/layers.awk")"'
    !may_use($2, $3) { print "  " $2 " uses " $1 " of " $3 }' > "$tmp/up"
if [ -s "$tmp/up" ]; then
    echo "FAIL: calls into a higher layer or across a layer:"
    cat "$tmp/up"
    fail=1
else
    echo "ok: $(wc -l < "$tmp/uses.s") symbol uses, none into a higher layer or across one"
fi
exit $fail
