#!/bin/sh
# ort_rows.sh - the published ONNX Runtime rows (tests/data/onnxruntime.jsonl)
# load: every row has its fields and dippm predicts it (tools/validate_ort.py
# --check), and the check refuses a row without its value and a row whose
# metric it does not know, naming the line. Needs python3 (standard library
# only) and the built dippm.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOP=${TOP_SRCDIR:-.}
DIPPM=${DIPPM:-./dippm}
DATA="$TOP/tests/data/onnxruntime.jsonl"
"$PY" "$TOP/tools/validate_ort.py" "$DATA" --dippm "$DIPPM" --check ||
    { echo "FAIL: the published rows do not all load"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# line 3 loses its value, line 5 gets a metric no tool reads
sed -e '3s/"value": [0-9.]*, //' -e '5s/"metric": "[a-z_]*"/"metric": "speedup"/' "$DATA" \
    >"$tmp/bad.jsonl"
cmp -s "$DATA" "$tmp/bad.jsonl" && { echo "FAIL: test edit did not apply"; exit 1; }
if "$PY" "$TOP/tools/validate_ort.py" "$tmp/bad.jsonl" --dippm "$DIPPM" --check 2>"$tmp/err"; then
    echo "FAIL: --check accepted rows without a value or with an unknown metric"; exit 1
fi
grep -q 'bad.jsonl:3: missing field(s) value' "$tmp/err" &&
    grep -q "bad.jsonl:5: metric 'speedup'" "$tmp/err" ||
    { echo "FAIL: the bad lines are not named"; cat "$tmp/err"; exit 1; }
echo "PASS: onnxruntime.jsonl loads and each row is predicted; --check names bad rows"
