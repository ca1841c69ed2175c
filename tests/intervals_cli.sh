#!/bin/sh
# intervals_cli.sh - the 80% prediction intervals (src/core/interval.h) on
# the command line: predict's text and JSON and the sweep's JSON and CSV
# carry them with low <= prediction <= high; a runtime, GPU or precision
# with no measured row, or bounds from fewer than 3 source families, widen
# the interval and say so ("no measured ... rows for", "from only N source
# families"); --slo-upper judges the target by the upper bound; a broken table is
# an explained missing interval, never a failed prediction.
# Env: DIPPM (binary).
set -u
DIPPM=${DIPPM:-./dippm}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$3" || { bad "$1: '$2' not in:"; sed 's/^/  | /' "$3" | head -30; }; }
# num KEY FILE: the first JSON number of "KEY"
num() { sed -n "s/^ *\"$1\": \\([-0-9.e]*\\),*\$/\\1/p" "$2" | head -1; }
# ordered NAME LOW MID HIGH: LOW <= MID <= HIGH and LOW < HIGH
ordered() {
    [ -n "$2" ] && [ -n "$3" ] && [ -n "$4" ] &&
        awk -v l="$2" -v m="$3" -v h="$4" 'BEGIN { exit !(l <= m && m <= h && l < h) }' ||
        bad "$1: expected low <= point <= high, got '$2' '$3' '$4'"
}
# ratio A B: A / B
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

m=zoo:resnet
"$DIPPM" predict "$m" --json >"$tmp/j" 2>"$tmp/e" || bad "predict --json exit $?"
for k in latency_ms_low latency_ms_high throughput_per_s_low throughput_per_s_high \
    memory_mib_low memory_mib_high interval_coverage interval_note memory_interval_note; do
    grep -q "\"$k\":" "$tmp/j" || bad "predict json lacks $k"
done
ordered "latency" "$(num latency_ms_low "$tmp/j")" "$(num latency_ms "$tmp/j")" \
    "$(num latency_ms_high "$tmp/j")"
ordered "throughput" "$(num throughput_per_s_low "$tmp/j")" "$(num throughput_per_s "$tmp/j")" \
    "$(num throughput_per_s_high "$tmp/j")"
ordered "memory" "$(num memory_mib_low "$tmp/j")" "$(num memory_mib "$tmp/j")" \
    "$(num memory_mib_high "$tmp/j")"
has "coverage" '"interval_coverage": 0.80' "$tmp/j"
has "eager rows" 'held-out eager latency rows"' "$tmp/j"
# the prediction itself, for the run without a usable table below
lat=$(num latency_ms "$tmp/j")

"$DIPPM" predict "$m" >"$tmp/t" 2>&1 || bad "predict exit $?"
# each figure once, with its interval (the report once printed both forms)
for k in latency throughput energy memory; do
    n=$(grep -c "^$k " "$tmp/t")
    [ "$n" -eq 1 ] || bad "predict text: $n '$k' lines, expected 1"
done
grep -q "^latency     $(printf '%s' "$lat" | cut -c1-3)[0-9.]* ms \[[0-9.]* ms, [0-9.]* ms\] 80%  (GNN" "$tmp/t" ||
    { bad "text latency line lacks its interval"; cat "$tmp/t"; }
grep -q "^throughput  [0-9.]* samples/s \[[0-9.]*, [0-9.]*\] 80%" "$tmp/t" || bad "text throughput interval"

# a runtime no measured row has: wider (relative to its prediction), and says so.
# The shipped table may have measured rows of every runtime, so the case uses
# a copy without pytorch-sdpa's (its weights beside it)
W=${DIPPM_WEIGHTS_DIR:-weights}
mkdir -p "$tmp/nosdpa"
grep -v '^measured	latency	runtime	pytorch-sdpa$' "$W/intervals.tsv" >"$tmp/nosdpa/intervals.tsv"
for f in "$W"/*.dpw "$W"/*.json; do cp "$f" "$tmp/nosdpa/"; done
DIPPM_WEIGHTS_DIR="$tmp/nosdpa" "$DIPPM" predict "$m" --json >"$tmp/j0" 2>/dev/null
DIPPM_WEIGHTS_DIR="$tmp/nosdpa" "$DIPPM" predict "$m" --runtime pytorch-sdpa --json >"$tmp/s" 2>/dev/null
has "unmeasured runtime named" 'no measured latency rows for pytorch-sdpa' "$tmp/s"
w0=$(ratio "$(num latency_ms_high "$tmp/j0")" "$(num latency_ms_low "$tmp/j0")")
w1=$(ratio "$(num latency_ms_high "$tmp/s")" "$(num latency_ms_low "$tmp/s")")
gt "$w1" "$w0" || bad "pytorch-sdpa interval ($w1) not wider than pytorch's ($w0)"
ordered "pytorch-sdpa latency" "$(num latency_ms_low "$tmp/s")" "$(num latency_ms "$tmp/s")" \
    "$(num latency_ms_high "$tmp/s")"
DIPPM_WEIGHTS_DIR="$tmp/nosdpa" "$DIPPM" predict "$m" --runtime pytorch-sdpa >"$tmp/st" 2>/dev/null
has "text names the unmeasured runtime" "interval    latency: " "$tmp/st"
has "text names the unmeasured runtime" "no measured latency rows for pytorch-sdpa" "$tmp/st"

# bounds from fewer than 3 source families: widened and said so (a table by hand)
mkdir -p "$tmp/fam"
for f in "$W"/*.dpw "$W"/*.json; do cp "$f" "$tmp/fam/"; done
printf 'interval\tlatency\teager\t30\t0.9\t1.1\tgroup\t%s\nmeasured\tlatency\tgpu\tA100-SXM4-40GB\nmeasured\tlatency\tprecision\tfp32\nmeasured\tlatency\truntime\tpytorch\n' 2 \
    >"$tmp/fam/intervals.tsv"
DIPPM_WEIGHTS_DIR="$tmp/fam" "$DIPPM" predict "$m" --gpu a100-40gb --precision fp32 --runtime pytorch \
    --json >"$tmp/f2" 2>/dev/null
has "two families named" '80% interval from 30 held-out eager latency rows; from only 2 source families: widened x1.5"' "$tmp/f2"
sed -i 's/group\t2$/group\t3/' "$tmp/fam/intervals.tsv"
DIPPM_WEIGHTS_DIR="$tmp/fam" "$DIPPM" predict "$m" --gpu a100-40gb --precision fp32 --runtime pytorch \
    --json >"$tmp/f3" 2>/dev/null
has "three families: as measured" '"interval_note": "80% interval from 30 held-out eager latency rows"' "$tmp/f3"
ordered "two families wider" "$(ratio "$(num latency_ms_high "$tmp/f3")" "$(num latency_ms_low "$tmp/f3")")" \
    "$(ratio "$(num latency_ms_high "$tmp/f3")" "$(num latency_ms_low "$tmp/f3")")" \
    "$(ratio "$(num latency_ms_high "$tmp/f2")" "$(num latency_ms_low "$tmp/f2")")"

# memory: a GPU and a precision without measured memory rows (A100-SXM4-40GB fp16 has them)
"$DIPPM" predict "$m" --precision fp16 --json >"$tmp/a" 2>/dev/null
"$DIPPM" predict "$m" --precision fp16 --gpu h100 --json >"$tmp/h" 2>/dev/null
"$DIPPM" predict "$m" --precision int8 --runtime tensorrt --gpu h100 --json >"$tmp/i" 2>/dev/null
grep -q '"memory_interval_note": "[^"]*no measured' "$tmp/a" && bad "A100 fp16 memory called unmeasured"
has "unmeasured GPU named" 'no measured memory rows for H100-SXM5-80GB' "$tmp/h"
has "unmeasured precision named" 'no measured memory rows for H100-SXM5-80GB, int8' "$tmp/i"
wa=$(ratio "$(num memory_mib_high "$tmp/a")" "$(num memory_mib_low "$tmp/a")")
wh=$(ratio "$(num memory_mib_high "$tmp/h")" "$(num memory_mib_low "$tmp/h")")
gt "$wh" "$wa" || bad "H100 memory interval ($wh) not wider than A100's ($wa)"
ordered "H100 memory" "$(num memory_mib_low "$tmp/h")" "$(num memory_mib "$tmp/h")" \
    "$(num memory_mib_high "$tmp/h")"

# --slo-upper: a target between the prediction and its upper bound is met by
# the prediction and missed by the bound
hi=$(num latency_ms_high "$tmp/j")
slo=$(awk -v a="$lat" -v b="$hi" 'BEGIN { printf "%.4f", (a + b) / 2 }')
"$DIPPM" predict "$m" --slo-ms "$slo" >"$tmp/p" 2>/dev/null
has "target met by the prediction" ": met on the configured GPU" "$tmp/p"
"$DIPPM" predict "$m" --slo-ms "$slo" --slo-upper >"$tmp/u" 2>/dev/null
has "target missed by the upper bound" "NOT met on the configured GPU by the interval's upper bound" "$tmp/u"
has "MIG advice by the upper bound" "takes up to" "$tmp/u"
"$DIPPM" predict "$m" --slo-ms "$slo" --slo-upper --json >"$tmp/uj" 2>/dev/null
has "json slo_upper" '"slo_upper": true' "$tmp/uj"
has "json no suggestion" '"suggestion": null' "$tmp/uj"
"$DIPPM" predict "$m" --slo-upper >/dev/null 2>"$tmp/ue"
[ $? -eq 2 ] || bad "--slo-upper without --slo-ms is not a usage error"
has "--slo-upper alone" "--slo-upper needs --slo-ms" "$tmp/ue"

# sweep: JSON rows and CSV columns
"$DIPPM" sweep "$m" --batch 1,8 --json >"$tmp/w" 2>/dev/null || bad "sweep --json exit $?"
[ "$(grep -c '"latency_ms_low":' "$tmp/w")" -eq 2 ] || bad "sweep json rows lack latency_ms_low"
has "sweep json note" '"interval_note": "80% interval from' "$tmp/w"
"$DIPPM" sweep "$m" --batch 1,8 --csv >"$tmp/c" 2>/dev/null || bad "sweep --csv exit $?"
has "sweep csv header" ",source,latency_ms_low,latency_ms_high,memory_mib_low,memory_mib_high" "$tmp/c"
awk -F, 'NR > 1 { if (!($15 <= $6 && $6 <= $16 && $17 <= $10 && $10 <= $18)) bad = 1; n++ }
    END { exit bad || n != 2 }' "$tmp/c" || { bad "sweep csv bounds not ordered"; cat "$tmp/c"; }

# a broken table: the prediction stands, the interval is missing and says why
mkdir -p "$tmp/wd"
printf 'interval\tlatency\teager\t3\t1.2\t1.5\tgroup\n' >"$tmp/wd/intervals.tsv"
DIPPM_WEIGHTS_DIR="$tmp/wd" "$DIPPM" predict "$m" --json >"$tmp/b" 2>/dev/null ||
    bad "predict with a broken interval table exit $?"
has "broken table: null bound" '"latency_ms_low": null' "$tmp/b"
has "broken table: why" 'intervals.tsv:1: expected ROWS >= 0, 0 < LOW <= 1 <= HIGH' "$tmp/b"
[ "$(num latency_ms "$tmp/b")" = "$lat" ] || bad "the broken table moved the prediction"

# the generator's options
"$DIPPM" calibrate --neusight x.jsonl >/dev/null 2>"$tmp/g"
[ $? -eq 2 ] || bad "--neusight without --intervals is not a usage error"
has "--neusight alone" "--neusight is used with --intervals" "$tmp/g"
"$DIPPM" calibrate --resid x.tsv >/dev/null 2>"$tmp/g"
[ $? -eq 2 ] || bad "--resid without --intervals is not a usage error"
has "--resid alone" "--resid is used with --intervals" "$tmp/g"
# a broken residual file fails first, naming its line and field
H='family\ttarget\tkind\tgpu\tprecision\truntime\tmeasured\tpredicted\n'
printf "${H}x\ttime\tpass\tZ9\tfp16\tpytorch\t1\t2\n" >"$tmp/r1.tsv"
printf "${H}x\ttime\tpass\tT4\tfp16\tpytorch\t1\t-2\n" >"$tmp/r2.tsv"
printf "${H}x\ttime\n" >"$tmp/r3.tsv"
for c in "r1:2: field gpu: 'Z9' is not a GPU" "r2:2: field predicted: '-2' is not a number > 0" \
    "r3:2: 2 tab-separated fields, expected 8"; do
    f=${c%%:*}
    "$DIPPM" calibrate --intervals "$tmp/iv" --resid "$tmp/$f.tsv" >/dev/null 2>"$tmp/g"
    [ $? -eq 4 ] || bad "--resid $f.tsv: exit $?, expected 4 (a parse error)"
    has "--resid $f.tsv" "$tmp/$f.tsv:${c#*:}" "$tmp/g"
done
[ -e "$tmp/iv/intervals.tsv" ] && bad "a broken residual file still wrote the table"

[ "$fails" -eq 0 ] && echo "intervals_cli: all passed"
[ "$fails" -eq 0 ]
