#!/bin/sh
# accuracy_tables.sh - the accuracy tables of README.md and weights/README.md,
# and weights/accuracy.tsv (the About screen's figures), are exactly what
# tools/accuracy_tables.py writes from the files that
# measure accuracy (weights/*.json, weights/kernels.md, weights/calibration.md,
# NeuSight's baselines), and the check notices a hand-edited figure or a
# measurement file that changed under the tables. Needs python3.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOP=${TOP_SRCDIR:-.}
"$PY" "$TOP/tools/accuracy_tables.py" --top="$TOP" --check || { echo "FAIL: committed tables differ"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
copy() {
    rm -rf "$tmp/t" && mkdir -p "$tmp/t/weights" "$tmp/t/tests/data/neusight" &&
    cp "$TOP/README.md" "$tmp/t/" &&
    cp "$TOP"/weights/*.json "$TOP"/weights/*.csv "$TOP"/weights/*.md "$TOP/weights/accuracy.tsv" \
        "$tmp/t/weights/" &&
    cp "$TOP/tests/data/neusight/baselines.tsv" "$tmp/t/tests/data/neusight/"
}
# the copy passes as the tree does
copy && "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check ||
    { echo "FAIL: the copied tree does not pass"; exit 1; }
# a figure edited by hand in README.md's table
copy && sed -i '/<!-- accuracy:summary -->/,/<!-- \/accuracy:summary -->/ s/| 40 | [0-9.]*%/| 40 | 1.0%/' \
    "$tmp/t/README.md"
grep -q '| 40 | 1.0%' "$tmp/t/README.md" || { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check 2>"$tmp/err"; then
    echo "FAIL: --check accepted a hand-edited README figure"; exit 1
fi
grep -q 'README.md' "$tmp/err" || { echo "FAIL: README.md not named"; cat "$tmp/err"; exit 1; }
# the calibration report changed under the tables
copy && sed -i 's/^\(Leave-one-source-family-out MAPE.*latency_ms \)[0-9.]*%/\199.9%/' \
    "$tmp/t/weights/calibration.md"
grep -q 'latency_ms 99.9%' "$tmp/t/weights/calibration.md" || { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check 2>/dev/null; then
    echo "FAIL: --check accepted tables older than calibration.md"; exit 1
fi
# a figure edited by hand in accuracy.tsv, and the file missing
copy && sed -i 's/^\(measured\tNeuSight.s end-to-end[^\t]*\tdippm\t40\t\)[0-9.]*/\11.0/' \
    "$tmp/t/weights/accuracy.tsv"
grep -q '	dippm	40	1.0	' "$tmp/t/weights/accuracy.tsv" || { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check 2>"$tmp/err"; then
    echo "FAIL: --check accepted a hand-edited accuracy.tsv figure"; exit 1
fi
grep -q 'weights/accuracy.tsv' "$tmp/err" || { echo "FAIL: accuracy.tsv not named"; cat "$tmp/err"; exit 1; }
copy && rm "$tmp/t/weights/accuracy.tsv"
if "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check 2>/dev/null; then
    echo "FAIL: --check accepted a missing accuracy.tsv"; exit 1
fi
# the calibration goals changed under accuracy.tsv (its goals come from there)
copy && sed -i 's/^\(| energy per image [^|]*| 5 | \)10\.0%/\19.0%/' "$tmp/t/weights/calibration.md"
grep -q '| energy per image [^|]*| 5 | 9.0%' "$tmp/t/weights/calibration.md" ||
    { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/accuracy_tables.py" --top="$tmp/t" --check 2>"$tmp/err"; then
    echo "FAIL: --check accepted an accuracy.tsv older than calibration.md's goals"; exit 1
fi
grep -q 'weights/accuracy.tsv' "$tmp/err" || { echo "FAIL: accuracy.tsv not named"; cat "$tmp/err"; exit 1; }
echo "PASS: the accuracy tables are the measurement files' figures; --check catches edits and a missing accuracy.tsv"
