#!/bin/sh
# The host-speed knob of the eager runtimes (--dispatch-us, the explorer's
# :set dispatch_us=US): its default is the calibrated constant of
# src/core/sim_fitted.h, the teacher's host time is proportional to it, a
# faster host shortens a launch-bound run, the report says when the host
# dominates, and the other runtimes refuse it.
# Env: DIPPM (binary), TOP_SRCDIR. Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
TOP=${TOP_SRCDIR:-$(dirname "$0")/../..}
. "$(dirname "$0")/lib.sh"
# cmp NAME EXPR A B: awk's EXPR of a and b holds
cmp() {
    if awk -v a="$3" -v b="$4" "BEGIN { exit !($2) }"; then ok "$1 ($3, $4)"; else bad "$1: a=$3 b=$4"; fi
}
export XDG_CONFIG_HOME="$T/none"
M=zoo:resnet

# the calibrated constant, read from the source
cal=$(sed -n 's/^#define FIT_DISPATCH_US_PYTORCH \([0-9.]*\)$/\1/p' "$TOP/src/core/sim_fitted.h")
[ -n "$cal" ] && ok "calibrated dispatch_us[pytorch] = $cal" || bad "no dispatch_us in sim_fitted.h"

run "default" 0 "$DIPPM" predict $M --json && cp "$T/out" "$T/default.json" &&
    cmp "JSON dispatch_us is the calibrated one" "a == b" "$(num dispatch_us "$T/out")" "$cal"
run "the calibrated value given" 0 "$DIPPM" predict $M --json --dispatch-us "$cal" &&
    cmp "giving the calibrated value changes nothing" "a == b" "$(num latency_ms "$T/out")" \
        "$(num latency_ms "$T/default.json")"
if run "--dispatch-us 10" 0 "$DIPPM" predict $M --json --dispatch-us 10; then
    cmp "JSON dispatch_us is the option" "a == 10" "$(num dispatch_us "$T/out")" 0
    # the host issues the same ops: its time scales with the dispatch
    h0=$(num teacher_host_ms "$T/default.json") h1=$(num teacher_host_ms "$T/out")
    cmp "host time x 10/$cal" "a > 0 && (a / b - 10 / $cal)^2 < 1e-6" "$h1" "$h0"
    cmp "a faster host: lower latency" "a < b" "$(num latency_ms "$T/out")" \
        "$(num latency_ms "$T/default.json")"
    cmp "a faster host: less energy" "a < b" "$(num energy_j "$T/out")" \
        "$(num energy_j "$T/default.json")"
    cmp "memory unchanged" "a == b" "$(num memory_mib "$T/out")" "$(num memory_mib "$T/default.json")"
fi
run "sdpa takes it" 0 "$DIPPM" predict $M --json --runtime pytorch-sdpa --dispatch-us 10 &&
    cmp "sdpa dispatch_us" "a == 10" "$(num dispatch_us "$T/out")" 0

# the report says when the host's dispatch dominates
run "launch-bound text" 0 "$DIPPM" predict $M &&
    check "launch-bound said" "$T/out" \
        "^            launch-bound: host dispatch [0-9]*% of the time (--dispatch-us to change; now "
run "a fast host" 0 "$DIPPM" predict $M --dispatch-us 1 &&
    lacks "not launch-bound at 1 us per op" "$T/out" "launch-bound"
run "a big batch" 0 "$DIPPM" predict $M --batch 256 &&
    lacks "not launch-bound when the kernels are long" "$T/out" "launch-bound"
run "tensorrt JSON" 0 "$DIPPM" predict $M --json --runtime tensorrt &&
    lacks "no dispatch_us for an engine" "$T/out" '"dispatch_us"'

# refused values and runtimes
for rt in tensorrt tensorrt-graph vllm inductor; do
    run "$rt refuses it" 2 "$DIPPM" predict $M --runtime $rt --dispatch-us 10 &&
        check "$rt named" "$T/err" "only the eager runtimes (pytorch, pytorch-sdpa) .*; $rt does not"
done
for v in 0 -5 abc 1e6; do
    run "--dispatch-us $v" 2 "$DIPPM" predict $M --dispatch-us "$v" &&
        check "--dispatch-us $v refused" "$T/err" "expected microseconds above 0"
done

# sweep
if run "sweep default" 0 "$DIPPM" sweep $M --batch 1 --csv && cp "$T/out" "$T/s0" &&
    run "sweep --dispatch-us" 0 "$DIPPM" sweep $M --batch 1 --csv --dispatch-us 10; then
    cmp "sweep: a faster host, lower latency" "a < b" "$(sed -n 2p "$T/out" | cut -d, -f6)" \
        "$(sed -n 2p "$T/s0" | cut -d, -f6)"
fi
if run "generation with a faster host" 0 "$DIPPM" predict zoo:gpt --input-tokens 32 \
        --output-tokens 8 --json --dispatch-us 10 && cp "$T/out" "$T/g1" &&
    run "generation default" 0 "$DIPPM" predict zoo:gpt --input-tokens 32 --output-tokens 8 --json; then
    cmp "generation: a faster host, shorter TPOT" "a < b" "$(num tpot_ms "$T/g1")" "$(num tpot_ms "$T/out")"
fi

# the explorer: :set dispatch_us=US
explore() { # KEYS: the screen after KEYS in $T/screen
    printf '%s:dump-screen %s<Enter>q' "$1" "$T/screen" >"$T/keys"
    rm -f "$T/screen"
    DIPPM_NO_DISPLAY=1 DIPPM_SCRIPT="$T/keys" DIPPM_COLS=140 "$DIPPM" $M >"$T/out" 2>&1
}
lat() { sed -n 's/^Latency (GNN) \([0-9.]*\) ms.*/\1/p; s/^Latency (teacher) \([0-9.]*\) ms.*/\1/p' "$T/screen"; }
explore '' && l0=$(lat)
explore ':set dispatch_us=10<Enter>' && l1=$(lat)
cmp "explorer: dispatch_us=10 lowers the latency" "a > 0 && a < b" "$l1" "$l0"
explore ':set dispatch_us=10<Enter>:set dispatch_us=0<Enter>' &&
    cmp "explorer: dispatch_us=0 is the calibrated one" "a == b" "$(lat)" "$l0"
explore ':set dispatch_us=fast<Enter>' && check "explorer: a bad value" "$T/screen" \
    "dispatch_us=fast: expected microseconds"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
