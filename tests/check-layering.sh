#!/bin/sh
# Fails when a curses, readline, protobuf-c or cJSON header is included
# outside the module that owns it (layers, top down: ui -> src -> graph -> util;
# see HACKING.md).
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
check 'protobuf-c/' '^graph/onnx' 'protobuf-c'
# cJSON belongs to the JSON file readers: dippm graphs, Keras/TF.js, measured
# rows, dataset JSONL and the calibration data -- all through the strict parser
# src/util/jsonr.
check 'cjson/' '^graph/(json_graph|keras[a-z_]*)\.c$|^src/(measured|dataset|calib)\.c$|^src/util/jsonr\.[ch]$|^tests/' 'cJSON'
# core tests must not link curses: no tests/test_*.c outside test_ui* includes ui headers
bad=$(grep -lE '#include "(ui|screen|term|theme)[a-z_]*\.h"' tests/test_*.c 2>/dev/null | grep -v 'tests/test_ui')
if [ -n "$bad" ]; then echo "FAIL: core tests include ui headers: $bad"; fail=1; else echo "ok: core tests curses-free"; fi
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
