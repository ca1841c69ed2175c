#!/bin/sh
# The cost of a prediction (--price-per-hour, --price-of, the price table
# $XDG_CONFIG_HOME/dippm/prices, the explorer's :price): every cost is checked
# against price / 3600 / throughput x units, from the throughput the same run
# reports; the table's errors name the file and line.
# Env: DIPPM (binary). Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
. "$(dirname "$0")/lib.sh"
# close NAME GOT WANT: within 0.1% (the throughput is printed to 2 decimals)
close() {
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 1e-3 * w) }'
    then ok "$1 ($2)"; else bad "$1: got '$2', expected $3"; fi
}
# A price of 3.6 per hour is 0.001 per second: 1,000 units cost 1 / (units/s).
inv() { awk -v r="$1" -v k="$2" 'BEGIN { printf "%.10g", k / r }'; }

mkdir -p "$T/none" "$T/cfg/dippm"
export XDG_CONFIG_HOME="$T/none"

# ---- --price-per-hour on predict --------------------------------------------
run "predict without a price" 0 "$DIPPM" predict zoo:resnet --json &&
    lacks "no cost without a price" "$T/out" '"cost"'
run "predict text without a price" 0 "$DIPPM" predict zoo:resnet &&
    lacks "no cost line without a price" "$T/out" '^cost '
if run "predict --price-per-hour --json" 0 "$DIPPM" predict zoo:resnet --price-per-hour 3.6 --json; then
    tp=$(num throughput_per_s "$T/out")
    close "cost per 1,000 samples = price / throughput" "$(num per_1k_samples "$T/out")" "$(inv "$tp" 1)"
    check "price in JSON" "$T/out" '"price_per_hour": 3.6,'
    check "price source in JSON" "$T/out" '"price_source": "--price-per-hour"'
fi
run "predict --price-per-hour text" 0 "$DIPPM" predict zoo:resnet --price-per-hour 3.6 &&
    check "cost line" "$T/out" '^cost        [0-9.]* per 1,000 samples  (3.60 per hour: --price-per-hour)$'
if run "generation cost" 0 "$DIPPM" predict zoo:gpt --input-tokens 64 --output-tokens 16 \
        --runtime tensorrt --price-per-hour 3.6 --json; then
    tps=$(num output_tokens_per_s "$T/out")
    close "cost per million output tokens = price / tokens/s" \
        "$(num per_1m_output_tokens "$T/out")" "$(inv "$tps" 1000)"
fi
run "generation cost text" 0 "$DIPPM" predict zoo:gpt --input-tokens 64 --output-tokens 16 \
    --runtime tensorrt --price-per-hour 3.6 &&
    check "cost per million output tokens line" "$T/out" '^cost        [0-9.]* per million output tokens  ('
if run "pipeline cost" 0 "$DIPPM" predict zoo:unet --steps 4 --precision fp16 --price-per-hour 3.6 --json; then
    ips=$(num images_per_s "$T/out")
    close "cost per 1,000 images = price / images/s" "$(num per_1k_images "$T/out")" "$(inv "$ips" 1)"
fi
# --price-of gpu: a 1g slice of an A100 costs 1/7 of the GPU's price
run "price of the GPU for a slice" 0 "$DIPPM" predict zoo:resnet --gpu a100:1g.5gb \
    --price-per-hour 7 --price-of gpu --json && {
    check "slice share of the GPU price" "$T/out" '"price_per_hour": 1,'
    check "share named" "$T/out" '"price_source": "--price-per-hour 7 for the GPU x 1/7 for the slice"'; }
run "price of the slice (default)" 0 "$DIPPM" predict zoo:resnet --gpu a100:1g.5gb \
    --price-per-hour 7 --json && check "slice price as given" "$T/out" '"price_per_hour": 7,'
run "--price-of alone" 2 "$DIPPM" predict zoo:resnet --price-of gpu &&
    check "--price-of needs a price" "$T/err" "give both"
run "--price-of bad" 2 "$DIPPM" predict zoo:resnet --price-per-hour 1 --price-of card &&
    check "--price-of values" "$T/err" "expected gpu or slice"
for v in 0 -1 abc 1e9; do
    run "--price-per-hour $v" 2 "$DIPPM" predict zoo:resnet --price-per-hour "$v" &&
        check "--price-per-hour $v refused" "$T/err" "expected a price above 0"
done

# ---- the price table ------------------------------------------------------------
export XDG_CONFIG_HOME="$T/cfg"
printf '# prices per hour\na100 7   # whole GPU\n\na100:3g.20gb 2.5\nh100-sxm5-80gb 3.6\n' \
    >"$T/cfg/dippm/prices"
run "table: a slice's own line" 0 "$DIPPM" predict zoo:resnet --gpu a100:3g.20gb --json && {
    check "slice line" "$T/out" '"price_per_hour": 2.5,'
    check "slice line named" "$T/out" "prices:4\""; }
run "table: GPU line for a slice" 0 "$DIPPM" predict zoo:resnet --gpu a100:1g.5gb --json && {
    check "GPU price x 1/7" "$T/out" '"price_per_hour": 1,'
    check "share named" "$T/out" "prices:2, x 1/7 for the slice\""; }
if run "table: alias h100" 0 "$DIPPM" predict zoo:resnet --gpu h100 --json; then
    close "table price costs as the option" "$(num per_1k_samples "$T/out")" \
        "$(inv "$(num throughput_per_s "$T/out")" 1)"
fi
run "table: a GPU not in it" 0 "$DIPPM" predict zoo:resnet --gpu l4 --json &&
    lacks "no cost for an unpriced GPU" "$T/out" '"cost"'
run "option over the table" 0 "$DIPPM" predict zoo:resnet --gpu a100:3g.20gb --price-per-hour 9 --json &&
    check "--price-per-hour wins" "$T/out" '"price_per_hour": 9,'
bad_table() { # NAME CONTENT PATTERN
    printf "$2" >"$T/cfg/dippm/prices"
    run "table: $1" 4 "$DIPPM" predict zoo:resnet && check "table: $1 named" "$T/err" "$3"
    run "sweep table: $1" 4 "$DIPPM" sweep zoo:resnet --batch 1 && check "sweep table: $1" "$T/err" "$3"
}
bad_table "three words" 'a100 1\na100:1g.5gb 1 2\n' "cfg/dippm/prices:2: expected 'GPU\[:PROFILE\] PRICE'"
bad_table "one word" 'a100\n' "prices:1: expected 'GPU\[:PROFILE\] PRICE'"
bad_table "bad price" '# x\na100 cheap\n' "prices:2: price 'cheap': expected a number above 0"
bad_table "zero price" 'a100 0\n' "prices:1: price '0': expected a number above 0"
bad_table "unknown GPU" 'b200 5\n' "prices:1: unknown GPU 'b200'; known: A100-SXM4-40GB"
bad_table "unknown profile" 'a100:9g.99gb 5\n' "prices:1: A100-SXM4-40GB has no MIG profile '9g.99gb'"
bad_table "twice" 'a100 1\nA100-SXM4-40GB 2\n' "prices:2: A100-SXM4-40GB is already priced on line 1"
printf 'a100 1 2\n' >"$T/cfg/dippm/prices"
run "an option price does not read the table" 0 "$DIPPM" predict zoo:resnet --price-per-hour 2
mkdir -p "$T/home/.config/dippm" && printf 'a100 3.6\n' >"$T/home/.config/dippm/prices"
env -u XDG_CONFIG_HOME HOME="$T/home" "$DIPPM" predict zoo:resnet --json >"$T/out" 2>"$T/err" &&
    check "default table ~/.config/dippm/prices" "$T/out" '"price_source": ".*home/.config/dippm/prices:1"'

# ---- sweep: the cost column ---------------------------------------------------------
export XDG_CONFIG_HOME="$T/none"
if run "sweep csv cost column" 0 "$DIPPM" sweep zoo:resnet --batch 1,16 --csv --price-per-hour 3.6; then
    check "csv header ends with the cost" "$T/out" '^batch,.*,source,.*cost_per_1k_samples$'
    awk -F, 'NR > 1 { d = $NF - 1 / $7; if (d < 0) d = -d; if (d > 1e-3 * $NF) bad = 1; n++ }
             END { exit bad || n != 2 }' "$T/out" &&
        ok "every csv row: cost = price / throughput" || bad "csv cost rows: $(cat "$T/out")"
fi
run "sweep csv without a price" 0 "$DIPPM" sweep zoo:resnet --batch 1 --csv &&
    lacks "no cost column without a price" "$T/out" "cost"
run "sweep text cost column" 0 "$DIPPM" sweep zoo:resnet --batch 1 --price-per-hour 3.6 &&
    check "text header" "$T/out" "roofline     cost/1k$"
run "sweep json cost" 0 "$DIPPM" sweep zoo:resnet --batch 1 --json --price-per-hour 3.6 && {
    check "json price" "$T/out" '"price_per_hour": 3.6,'
    close "json row cost" "$(num cost_per_1k_samples "$T/out")" "$(inv "$(num throughput_per_s "$T/out")" 1)"; }
if run "generation sweep cost" 0 "$DIPPM" sweep zoo:gpt --input-tokens 64 --output-tokens 16 \
        --batch 4 --runtime tensorrt --csv --price-per-hour 3.6; then
    check "generation csv header" "$T/out" ',fits,cost_per_1m_output_tokens$'
    close "generation row cost" "$(sed -n 2p "$T/out" | cut -d, -f12)" \
        "$(inv "$(sed -n 2p "$T/out" | cut -d, -f7)" 1000)"
fi
if run "pipeline sweep cost" 0 "$DIPPM" sweep zoo:unet --steps 4 --batch 2 --precision fp16 \
        --csv --price-per-hour 3.6; then
    check "pipeline csv header" "$T/out" ',fits,cost_per_1k_images$'
    close "pipeline row cost" "$(sed -n 2p "$T/out" | cut -d, -f12)" \
        "$(inv "$(sed -n 2p "$T/out" | cut -d, -f8)" 1)"
fi

# ---- the explorer's header ------------------------------------------------------------
explore() { # KEYS: the screen after KEYS in $T/screen
    printf '%s:dump-screen %s<Enter>q' "$1" "$T/screen" >"$T/keys"
    rm -f "$T/screen"
    DIPPM_NO_DISPLAY=1 DIPPM_SCRIPT="$T/keys" DIPPM_COLS=140 "$DIPPM" zoo:resnet >"$T/out" 2>&1
}
explore '' && lacks "explorer: no cost without a price" "$T/screen" "cost "
explore ':price 3.6<Enter>' && check "explorer: :price shows the cost" "$T/screen" \
    "^GPU A100-SXM4-40GB  fp32  pytorch  batch 1  .* cost [0-9.]*/1k "
explore ':price cheap<Enter>' && check "explorer: a bad :price" "$T/screen" "price cheap: expected a price"
printf 'a100 3.6\n' >"$T/cfg/dippm/prices"
XDG_CONFIG_HOME="$T/cfg" explore '' && check "explorer: the table's price" "$T/screen" " cost [0-9.]*/1k "
printf 'a100 x\n' >"$T/cfg/dippm/prices"
XDG_CONFIG_HOME="$T/cfg" explore '' && check "explorer: a bad table is said" "$T/screen" \
    "prices:1: price 'x'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
