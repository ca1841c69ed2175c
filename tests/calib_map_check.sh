#!/bin/sh
# calib_map_check.sh - the committed mapping table tests/data/calib_map.tsv
# is exactly what tools/calib_map.py writes from the JSONL files beside it
# (values and line numbers), and the check notices a changed value or a
# missing line. Needs python3 (standard library only).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOP=${TOP_SRCDIR:-.}
"$PY" "$TOP/tools/calib_map.py" --top="$TOP" --check || { echo "FAIL: committed table differs"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/data"
cp "$TOP"/tests/data/*.jsonl "$TOP/tests/data/calib_map.tsv" "$tmp/tests/data/"
# a published value changed in the JSONL: the table no longer matches
sed -i '287s/"latency_ms": 7.68/"latency_ms": 7.69/' "$tmp/tests/data/a100_published_calibration.jsonl"
grep -q '"latency_ms": 7.69' "$tmp/tests/data/a100_published_calibration.jsonl" ||
    { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/calib_map.py" --top="$tmp" --check 2>"$tmp/err"; then
    echo "FAIL: --check accepted a table whose value differs from the JSONL"; exit 1
fi
grep -q 'calib_map.tsv:[0-9]*: differs' "$tmp/err" || { echo "FAIL: no line named"; cat "$tmp/err"; exit 1; }
# a line deleted from the table
cp "$TOP"/tests/data/*.jsonl "$tmp/tests/data/"
sed -i '10d' "$tmp/tests/data/calib_map.tsv"
if "$PY" "$TOP/tools/calib_map.py" --top="$tmp" --check 2>/dev/null; then
    echo "FAIL: --check accepted a table with a line missing"; exit 1
fi
echo "PASS: calib_map.tsv matches the JSONL files; --check catches edits"
