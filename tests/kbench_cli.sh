#!/bin/sh
# kbench_cli.sh - end-to-end checks of the measured-kernel commands:
# `dippm eval --kernels` (report, errors, --rows, --fit) and
# `dippm dataset --kernels` (rows, splits, --exclude-gpu), and the dataset
# JSONL "timing" field.
set -u
DIPPM=${DIPPM:-./dippm}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { # name, expected substring, file
    grep -qF -- "$2" "$3" || { fail "$1: expected '$2' in:"; sed 's/^/  /' "$3" | head -20; }
}

k="$tmp/k.tsv"
printf 'split\tgpu\top\tb\tm\tn\tk\tlatency_us\tkernel\tgrid\n' > "$k"
printf 'train\ta100-pcie\tbmm\t4096\t512\t512\t64\t9000\tsgemm\tx\n' >> "$k"
printf 'train\tt4\tlinear\t1\t8192\t4096\t1024\t12000\tsgemm\tx\n' >> "$k"
printf 'test\tA100-PCIe-40GB\tlayernorm\t4096\t1024\t1\t1\t80\tln\tx\n' >> "$k"
printf 'test\tH100-SXM5-80GB\tmatmul\t64\t1024\t1024\t1024\t450\tsgemm\tx\n' >> "$k"
printf 'test\tTesla P100\tadd\t4\t4\t1\t1\t10\tadd\tx\n' >> "$k"
printf 'train\tT4\tconv\t8\t3136\t64\t576\t300\tconv\tx\n' >> "$k"

"$DIPPM" eval --kernels "$k" --teacher > "$tmp/out" 2>&1 || fail "eval --kernels: exit $?"
check "counts" "(4 rows; not loaded: 1 on GPUs the table lacks, 1 convolutions)" "$tmp/out"
check "test split line" "| test | layernorm | A100-PCIe-40GB | 1 |" "$tmp/out"
check "all rows line" "| all | all | all | 4 |" "$tmp/out"

"$DIPPM" eval --kernels "$k" --teacher --json > "$tmp/json" 2>&1 || fail "--json: exit $?"
check "json rows" '"rows": 4' "$tmp/json"
check "json interval" '"ci95_low"' "$tmp/json"

"$DIPPM" eval --kernels "$k" --teacher --rows "$tmp/rows.csv" > /dev/null 2>&1 ||
    fail "--rows: exit $?"
[ "$(wc -l < "$tmp/rows.csv")" -eq 5 ] || fail "--rows: expected a header and 4 rows"
check "rows header" "line,split,gpu,op,b,m,n,k,measured_us,teacher_us,gnn_us" "$tmp/rows.csv"
check "bmm read as matmul" ",train,A100-PCIe-40GB,matmul,4096,512,512,64,9000," "$tmp/rows.csv"
"$DIPPM" eval --kernels "$k" --teacher --rows "$tmp/rows.csv" > "$tmp/out" 2>&1
[ $? -eq 9 ] || fail "--rows over an existing file without --force: expected exit 9"

# the fit prints its constants and the families with train rows
"$DIPPM" eval --kernels "$k" --teacher --fit > /dev/null 2> "$tmp/fit"
check "fit constants" ".simt_k_half = " "$tmp/fit"
check "fit batched" ".batched_sgemm_eff = " "$tmp/fit"
check "fit family T4" '{"T4", ' "$tmp/fit"

# --write-params: the fitted constants as sim_fitted.h, the fitted T4 share
# in it (V100 has no row here: its compiled share stays); not over a file
# without --force, not without --fit
"$DIPPM" eval --kernels "$k" --teacher --fit --write-params "$tmp/fit.h" > /dev/null 2>&1 ||
    fail "--write-params: exit $?"
t4=$(sed -n 's/^    {"T4", \([0-9.]*\), .*/\1/p' "$tmp/fit")
check "header cuda_eff" "#define FIT_CUDA_EFF " "$tmp/fit.h"
check "header dispatch" "#define FIT_KBENCH_DISPATCH_US " "$tmp/fit.h"
awk -v t="$t4" '/^#define FIT_BOARD_T4 / { v = $3 + 0; d = v - t; if (d < 0) d = -d; ok = t > 0 && d < 1e-3 }
    END { exit !ok }' "$tmp/fit.h" || fail "--write-params: T4 share not the fitted $t4"
"$DIPPM" eval --kernels "$k" --teacher --fit --write-params "$tmp/fit.h" > "$tmp/err" 2>&1
[ $? -eq 9 ] || fail "--write-params over a file without --force: expected exit 9"
"$DIPPM" eval --kernels "$k" --teacher --write-params "$tmp/other.h" > "$tmp/err" 2>&1
[ $? -eq 2 ] || fail "--write-params without --fit: expected exit 2"
[ ! -e "$tmp/other.h" ] || fail "--write-params without --fit wrote a file"

# errors name the file, the line and the field (exit 4)
sed 's/\t80\tln/\t-3\tln/' "$k" > "$tmp/bad.tsv"
"$DIPPM" eval --kernels "$tmp/bad.tsv" --teacher > "$tmp/err" 2>&1
[ $? -eq 4 ] || fail "bad latency: expected exit 4"
check "bad latency message" "bad.tsv:4: field 'latency_us'" "$tmp/err"
printf 'test\ta100\tfft\t1\t1\t1\t1\t5\tk\tg\n' >> "$k.2"
cat "$k" "$k.2" > "$tmp/badop.tsv"
"$DIPPM" eval --kernels "$tmp/badop.tsv" --teacher > "$tmp/err" 2>&1
[ $? -eq 4 ] || fail "unknown op: expected exit 4"
check "unknown op message" "field 'op': unknown operator 'fft'" "$tmp/err"

# dataset --kernels: the train split by default, test with --kernel-split,
# a GPU left out with --exclude-gpu; labels carry the call cost (timing gpu)
"$DIPPM" dataset --kernels "$k" --jsonl -o "$tmp/train.jsonl" --quiet || fail "dataset: exit $?"
[ "$(wc -l < "$tmp/train.jsonl")" -eq 2 ] || fail "dataset: expected 2 train rows"
check "dataset spec" '"spec":"zoo:kernel:op=matmul:m=512:n=512:k=64"' "$tmp/train.jsonl"
check "dataset family" '"family":"kernel:linear"' "$tmp/train.jsonl"
"$DIPPM" dataset --kernels "$k" --kernel-split test --exclude-gpu h100 --jsonl \
    -o "$tmp/test.jsonl" --quiet || fail "dataset test split: exit $?"
[ "$(wc -l < "$tmp/test.jsonl")" -eq 1 ] || fail "dataset: expected 1 test row without H100"
"$DIPPM" dataset --kernels "$k" --exclude-gpu p100 -o "$tmp/x" > "$tmp/err" 2>&1
[ $? -eq 2 ] || fail "--exclude-gpu p100: expected exit 2"

# "timing": "gpu" adds the call cost to the label; another value is an error
row='"label":"measured","spec":"zoo:kernel:op=add:m=4096","gpu":"A100-PCIe-40GB","batch":1024,"latency_ms":1.0,"energy_j":null,"memory_mib":null'
printf '{%s,"timing":"wall"}\n' "$row" > "$tmp/wall.jsonl"
printf '{%s,"timing":"gpu"}\n' "$row" > "$tmp/gpu.jsonl"
printf '{%s,"timing":"cpu"}\n' "$row" > "$tmp/badt.jsonl"
"$DIPPM" eval --data "$tmp/wall.jsonl" --all-rows --rows "$tmp/w.csv" > /dev/null 2>&1 ||
    fail "timing wall: exit $?"
"$DIPPM" eval --data "$tmp/gpu.jsonl" --all-rows --rows "$tmp/g.csv" > /dev/null 2>&1 ||
    fail "timing gpu: exit $?"
w=$(sed -n 2p "$tmp/w.csv" | cut -d, -f10)
g=$(sed -n 2p "$tmp/g.csv" | cut -d, -f10)
awk -v w="$w" -v g="$g" 'BEGIN { exit !(w == 1 && g > 1) }' ||
    fail "timing: wall label $w should be 1, gpu label $g above it"
"$DIPPM" eval --data "$tmp/badt.jsonl" --all-rows > "$tmp/err" 2>&1
[ $? -eq 4 ] || fail "timing cpu: expected exit 4"
check "timing message" "\"timing\" is 'cpu', expected wall or gpu" "$tmp/err"

# zoo show prints integer ranges as integers (16777216, not 1.67772e+07)
"$DIPPM" zoo show kernel > "$tmp/zoo" 2>&1 || fail "zoo show kernel: exit $?"
check "integer range" "an integer from 1 to 16777216" "$tmp/zoo"

[ "$fails" -eq 0 ] && echo "kbench_cli: all checks passed"
exit $((fails > 0))
