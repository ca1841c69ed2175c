#!/bin/sh
# --gpu and the price table on every row of tests/data/gpu-targets.tsv: the
# GPU and MIG slice `predict --json` reports, or exit 2 and the row's whole
# message after "dippm: --gpu: " (the price table: after "prices:1: ", exit 4).
# test_gpu checks the same rows on the core parser and test_ui_screens on the
# explorer's :gpu, so a CLI or explorer parsing on its own fails one of them.
# Env: DIPPM (binary), TOP_SRCDIR, SAMPLES_DIR. Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
top=${TOP_SRCDIR:-$(dirname "$0")/../..}
S=${SAMPLES_DIR:-$top/samples}
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/cfg/dippm"
export XDG_CONFIG_HOME="$T/none"
table="$top/tests/data/gpu-targets.tsv"
tab=$(printf '\t')

# same NAME LINE: stderr ($T/err) is exactly LINE
same() {
    if [ "$(cat "$T/err")" = "$2" ]; then ok "$1"; else bad "$1: got '$(cat "$T/err")', expected '$2'"; fi
}

rows=0
while IFS="$tab" read -r spec gpu expect; do
    case $spec in '#'*|'') continue ;; esac
    rows=$((rows + 1))
    if [ "$gpu" = error ]; then
        run "--gpu $spec refused" 2 "$DIPPM" predict --gpu "$spec" "$S/tiny_cnn.json" &&
            same "--gpu $spec: message" "dippm: --gpu: $expect"
        printf '%s 2\n' "$spec" >"$T/cfg/dippm/prices"
        run "price table $spec refused" 4 env XDG_CONFIG_HOME="$T/cfg" \
            "$DIPPM" predict "$S/tiny_cnn.json" &&
            same "price table $spec: message" "dippm: $T/cfg/dippm/prices:1: $expect"
        continue
    fi
    case $expect in -|full) mig=null ;; *) mig="\"$expect\"" ;; esac
    run "--gpu $spec" 0 "$DIPPM" predict --gpu "$spec" --json "$S/tiny_cnn.json" &&
        { check "--gpu $spec: GPU" "$T/out" "\"gpu\": \"$gpu\","
          check "--gpu $spec: slice" "$T/out" "\"mig\": $mig,"; }
done <"$table"
# No second parser: the CLI and the explorer reach targets only through
# gpu_target_parse; the one profile lookup left outside src/core is the
# explorer's app_mig_match (a slice of the same name on another GPU).
(cd "$top" && grep -n 'gpu_mig_find' src/cli/*.c ui/*.c) >"$T/lookups"
if [ "$(grep -c . "$T/lookups")" = 1 ] && grep -q '^ui/app.c:.*gpu_mig_find(ng, p->name)' "$T/lookups"
then ok "no profile lookup outside core but app_mig_match"
else bad "profile lookups outside core: $(cat "$T/lookups")"; fi
for f in src/cli/cli.c ui/app.c ui/session.c src/core/price.c; do
    grep -q 'gpu_target_parse(' "$top/$f" && ok "$f calls gpu_target_parse" ||
        bad "$f no longer calls gpu_target_parse"
done
[ "$rows" -ge 15 ] && ok "$rows rows read" || bad "only $rows rows read from $table"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
