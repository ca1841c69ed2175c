#!/bin/sh
# The training options dippm train and dippm eval share (src/cli/cli_training.c):
# every option both accept (but the output ones, and --data: rows to train on
# in one, to evaluate in the other) has the same --help entry in both; where the entry gives a range ("LO to HI)"), both take LO and HI and
# refuse one below LO and one above HI with the same message, which names the
# range the help gives. A range typed twice that drifted (--teacher-weight at
# most 10 in one, 1000 in the other) fails here.
# Env: DIPPM (binary). Prints "N passed, M failed".
DIPPM=${DIPPM:-./dippm}
. "$(dirname "$0")/lib.sh"

# entry SUB OPTION: OPTION's entry of `dippm SUB --help`, on one line, blanks squeezed
entry() {
    "$DIPPM" "$1" --help | awk -v o="  --$2 " '
        index($0, o) == 1 { on = 1; printf "%s", $0; next }
        on && /^  +[^ -]/ { sub(/^ +/, " "); printf "%s", $0; next }
        on { exit }' | tr -s ' '
}
# refused SUB OPTION VALUE: the usage message for it (exit 2), or "" when taken;
# train stops at its missing --data and eval --lomo at its missing --data after
# the options were read, so a value taken never starts a run.
refused() {
    case $1 in train) set -- "$@" ;; eval) set -- "$@" --lomo ;; esac
    sub=$1 opt=$2 val=$3
    shift 3
    err=$("$DIPPM" "$sub" "--$opt" "$val" "$@" 2>&1 >/dev/null)
    case $err in *"--$opt '"*) printf '%s' "$err" | head -1 ;; esac
}

"$DIPPM" __complete options train | sed -n 's/^--\([a-z-]*\).*/\1/p' | sort -u >"$T/train"
"$DIPPM" __complete options eval | sed -n 's/^--\([a-z-]*\).*/\1/p' | sort -u >"$T/eval"
shared=$(comm -12 "$T/train" "$T/eval" | grep -vxE 'help|output|force|data')
n=0
for opt in $shared; do
    n=$((n + 1))
    a=$(entry train "$opt") b=$(entry eval "$opt")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "--$opt: one help entry"
    else bad "--$opt: train's help '$a', eval's '$b'"; continue; fi
    range=$(printf '%s' "$a" | sed -n 's/.*; \([-0-9.e+]*\) to \([-0-9.e+]*\))$/\1 \2/p')
    [ -n "$range" ] || continue
    set -- $range
    lo=$1 hi=$2
    below=$(awk -v x="$lo" 'BEGIN { print x - 1 }') above=$(awk -v x="$hi" 'BEGIN { print x + 1 }')
    for sub in train eval; do
        for v in "$lo" "$hi"; do
            e=$(refused "$sub" "$opt" "$v")
            [ -z "$e" ] && ok "$sub --$opt $v taken" || bad "$sub --$opt $v refused: $e"
        done
        for v in "$below" "$above"; do
            e=$(refused "$sub" "$opt" "$v")
            case $e in
            *"from $lo to $hi") ok "$sub --$opt $v refused naming $lo to $hi" ;;
            *) bad "$sub --$opt $v: '$e', expected a refusal naming $lo to $hi" ;;
            esac
        done
    done
    [ "$(refused train "$opt" "$above")" = "$(refused eval "$opt" "$above")" ] &&
        ok "--$opt: one message" || bad "--$opt: the messages differ"
done
[ "$n" -ge 6 ] && ok "$n shared options" || bad "only $n shared options: $shared"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
