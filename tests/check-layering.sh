#!/bin/sh
# Fails when a curses, readline, protobuf-c or cJSON header is included
# outside the module that owns it, when a file includes a header of a higher
# layer or of another folder of its own layer (the layers, bottom up: util,
# graph/ir, graph/ops, the graph readers and templates, graph, core, the lab
# beside ui, the program; tests/layers.awk, HACKING.md), when a file outside
# the lab subcommands includes a lab header, or when modules include one
# another in a circle.
top=${TOP_SRCDIR:-$(dirname "$0")/..}
cd "$top" || exit 1
fail=0
check() { # header-regex allowed-path-regex what
    bad=$(grep -rlE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($1)" src graph ui tests \
            --include='*.c' --include='*.h' 2>/dev/null | grep -vE "$2")
    if [ -n "$bad" ]; then
        echo "FAIL: $3 included outside its module:"; echo "$bad" | sed 's/^/  /'
        fail=1
    else
        echo "ok: $3 confined"
    fi
}
check 'n?curses(w)?\.h|ncursesw/|term\.h|panel\.h' '^ui/' 'curses'
check 'readline/' '^ui/prompt\.c$' 'readline'
check 'protobuf-c/' '^graph/onnx/' 'protobuf-c'
# cJSON belongs to the JSON file readers: dippm graphs, Keras/TF.js, measured
# rows, dataset JSONL and the calibration data -- all through the strict parser
# src/util/jsonr.
check 'cjson/' '^graph/(json/json_graph|keras/keras[a-z_]*)\.c$|^src/lab/(measured|dataset|calib)\.c$|^src/util/jsonr\.[ch]$|^tests/' 'cJSON'
# core tests must not link curses: no tests/test_*.c outside test_ui* includes ui headers
bad=$(grep -lE '#include "ui/' tests/test_*.c 2>/dev/null | grep -v 'tests/test_ui')
if [ -n "$bad" ]; then echo "FAIL: core tests include ui headers: $bad"; fail=1; else echo "ok: core tests curses-free"; fi
# Layers: tests/layers.awk. Includes name the layer folder ("core/sim.h").
# No file includes a header of a layer above its own or of another folder of
# its layer, no file but the lab subcommands' includes a lab header, and the
# modules (a header with its .c; NAME_impl.h belongs to NAME) include one
# another without a circle.
edges=$(for f in src/util/*.[ch] graph/*.[ch] graph/*/*.[ch] src/core/*.[ch] src/lab/*.[ch] \
        src/cli/*.[ch] ui/*.[ch]; do
    case $f in *.pb-c.[ch]) continue ;; esac
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do
            for p in "src/$inc" "$inc"; do
                if [ -f "$p" ]; then echo "$f $p"; break; fi
            done
        done
done)
bad=$(echo "$edges" | awk "$(cat tests/layers.awk)"'
    NF == 2 && !may_use($1, $2) { print "  " $1 " includes " $2 }')
if [ -n "$bad" ]; then
    echo "FAIL: an include points to a higher layer or across a layer:"; echo "$bad"; fail=1
else
    echo "ok: no upward or sideways include"
fi
# The rule itself, on fixed pairs (file, what it uses, 1 if allowed): only
# the lab subcommands reach the lab; the explorer, the product subcommands and
# core do not, and the lab does not reach the explorer.
bad=$(printf '%s\n' 'ui/app.c src/lab/train.h 0' 'src/cli/main.c src/lab/train.h 0' \
        'src/cli/cli_predict.c src/lab/calib.h 0' 'src/core/predict.c src/lab/dataset.h 0' \
        'src/lab/train.c ui/app.h 0' 'src/cli/cli_train.c src/lab/train.h 1' \
        'src/cli/cli_calibrate.c src/lab/calib.h 1' 'src/lab/train.c src/core/gnn.h 1' |
    awk "$(cat tests/layers.awk)"' may_use($1, $2) != $3 { print "  " $0 }')
if [ -n "$bad" ]; then
    echo "FAIL: tests/layers.awk decides these pairs wrongly (1: allowed):"; echo "$bad"; fail=1
else
    echo "ok: only the lab subcommands may use the lab"
fi
circle=$(echo "$edges" | awk '
    function mod(p) { sub(/\.[ch]$/, "", p); sub(/_impl$/, "", p); return p }
    function visit(v,  i, w) {
        state[v] = 1
        for (i = 1; i <= n[v]; i++) {
            w = to[v, i]
            if (state[w] == 1) { print "  " v " -> " w; found = 1 }
            else if (!state[w]) visit(w)
        }
        state[v] = 2
    }
    NF == 2 { a = mod($1); b = mod($2); if (a != b && !seen[a, b]++) to[a, ++n[a]] = b; nodes[a]; nodes[b] }
    END { for (v in nodes) if (!state[v]) visit(v) }')
if [ -n "$circle" ]; then echo "FAIL: modules include each other in a circle:"; echo "$circle"; fail=1; else echo "ok: no include circle"; fi
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
