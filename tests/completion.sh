#!/bin/bash
# The bash completion (completion/dippm.bash) against independent listings:
# subcommands from src/cli/cli.h, each subcommand's options from its option
# table in src/cli/cli_*.c, GPU names, MIG profiles, precisions and runtimes from
# the program's error messages, zoo families and parameters from
# `dippm zoo list/show --json`. Fails when the completion and the program drift.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
dippm=${DIPPM:-$top/build/dippm}
case $dippm in /*) ;; *) dippm=$PWD/$dippm ;; esac
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# shellcheck source=/dev/null
source "$top/completion/dippm.bash"
# comp LINE: the completions bash would offer at the end of LINE, sorted, one
# per line (COMP_WORDBREAKS as bash sets it by default).
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
comp() {
    COMP_LINE=$1 COMP_POINT=${#1} COMPREPLY=()
    _dippm
    printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}
# same LABEL GOT WANT: both are newline lists; order and repeats do not matter.
same() {
    local g w
    g=$(sort -u <<<"$2" | sed '/^$/d'); w=$(sort -u <<<"$3" | sed '/^$/d')
    if [ "$g" = "$w" ] && [ -n "$w" ]; then ok "$1"; else
        bad "$1"; diff <(echo "$w") <(echo "$g") | sed 's/^/    (want <, got >) /'; fi
}
empty=$(mktemp -d) && trap 'rm -rf "$empty"' EXIT
cd "$empty" || exit 1

# subcommands: the X(name, ...) entries of CLI_SUBCOMMANDS
subs=$(sed -n '/#define CLI_SUBCOMMANDS/,/^$/p' "$top/src/cli/cli.h" | grep -oE 'X\([a-z]+,' | sed 's/X(//; s/,//')
same "subcommands offered = CLI_SUBCOMMANDS" "$(comp "$dippm " | grep -v '^zoo:$')" "$subs"
same "a subcommand prefix completes" "$(comp "$dippm pre")" "predict"

# options: read from the option tables in the source. A subcommand accepts
# the options its cli_SUB.c declares ({"NAME", ...} entries), the groups it
# names (cli_gen_opts, cli_diff_opts), the common options its .common flags
# pick (src/cli/cli_opts.c; CLI_C_SYMBOLS and CLI_C_CONFIG from cli_opts.h)
# and --help. The completion must offer exactly these, the program must take
# each, and it must refuse every other common option.
# option names of the tables in files $@: {"name", 0|'c', ...} or an X-macro row X(ID, "name", ...)
names() {
    grep -ohE '\{"[a-z][a-z0-9-]*", (0|'"'"'[a-z]'"'"'),|X\(CLI_OPT_[A-Z_]+, "[a-z][a-z0-9-]*",' "$@" |
        grep -oE '"[a-z0-9-]+"' | tr -d '"' | sed 's/^/--/'
}
flag_names() { # the long names of the common options of flags $@
    local f
    for f in "$@"; do
        grep -oE "\{$f, \{\"[a-z-]+\"" "$top/src/cli/cli_opts.c" | grep -oE '"[a-z-]+"' | tr -d '"' | sed 's/^/--/'
    done
}
flags_of() { # the CLI_C_ flags named in the .common of file $1, macros expanded
    local f
    for f in $(grep -E '^\s*\.common = ' "$1" | grep -oE 'CLI_C_[A-Z]+'); do
        if grep -qE "^#define $f " "$top/src/cli/cli_opts.h"; then
            grep -E "^#define $f " "$top/src/cli/cli_opts.h" | grep -oE 'CLI_C_[A-Z]+' | sed 1d
        else echo "$f"; fi
    done
}
allcommon=$(grep -oE '\{CLI_C_[A-Z]+, \{"[a-z-]+"' "$top/src/cli/cli_opts.c" | grep -oE '"[a-z-]+"' | tr -d '"' | sed 's/^/--/')
for s in $subs; do
    f=$top/src/cli/cli_$s.c
    own=$(names "$f")
    grep -q 'cli_gen_opts' "$f" && own=$(printf '%s\n%s' "$own" "$(names "$top/src/cli/cli_generation.c")")
    grep -q 'cli_diff_opts' "$f" && own=$(printf '%s\n%s' "$own" "$(names "$top/src/cli/cli_diffusion.c")")
    grep -q 'cli_training_opts' "$f" && own=$(printf '%s\n%s' "$own" "$(names "$top/src/cli/cli_training.c")")
    # shellcheck disable=SC2046
    want=$(printf '%s\n%s\n--help' "$own" "$(flag_names $(flags_of "$f"))" | sed '/^$/d' | sort -u)
    got=$(comp "$dippm $s --")
    same "$s: options offered = its option table" "$got" "$want"
    refused=""
    for o in $want; do
        "$dippm" "$s" "$o" x --help 2>&1 | grep -qE 'unknown option|not valid for' && refused="$refused $o"
    done
    if [ -z "$refused" ]; then ok "$s: takes every option it declares"
    else bad "$s: refuses options it declares:$refused"; fi
    taken=""
    for o in $allcommon; do
        grep -qx -- "$o" <<<"$want" && continue
        grep -q -- "^$o" <<<"$want" && continue # an abbreviation of one it takes
        "$dippm" "$s" "$o" x >/dev/null 2>&1
        [ $? -eq 2 ] && "$dippm" "$s" "$o" x 2>&1 | grep -q "not valid for '$s'" || taken="$taken $o"
    done
    if [ -z "$taken" ]; then ok "$s: refuses the common options it does not declare"
    else bad "$s: takes common options it does not declare:$taken"; fi
    undoc=""
    for o in $want; do
        [ "$o" = --help ] || grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$top/man/dippm.1" || undoc="$undoc $o"
    done
    if [ -z "$undoc" ]; then ok "$s: dippm(1) documents its options"
    else bad "$s: options dippm(1) does not document:$undoc"; fi
done

# GPUs: the names the program lists for an unknown --gpu, plus aliases that it accepts
known=$("$dippm" predict --gpu bogus zoo:mlp 2>&1 | sed -n 's/.*known: //p' | tr ' ' '\n')
gpus=$(comp "$dippm predict --gpu ")
same "GPU names offered = the GPU table" "$(grep -E '^[A-Z]+[0-9]' <<<"$gpus")" "$known"
rej=""
for g in $gpus; do "$dippm" predict --gpu "$g" zoo:mlp >/dev/null 2>&1 || rej="$rej $g"; done
if [ -z "$rej" ]; then ok "every GPU name or alias offered is accepted ($(echo "$gpus" | wc -l))"
else bad "GPU names offered but refused:$rej"; fi
for g in $known; do
    err=$("$dippm" predict --gpu "$g:bogus" zoo:mlp 2>&1)
    want=$(sed -n 's/.*profiles: \(.*\), or \(full\) (the whole GPU)$/\1 \2/p' <<<"$err" | tr ' ' '\n')
    if grep -q "has no MIG profiles" <<<"$err"; then # L4, T4, V100: none to offer
        got=$(comp "$dippm predict --gpu $g:")
        if [ -z "$got" ]; then ok "no MIG profiles offered for $g"
        else bad "MIG profiles offered for $g, which has none: $got"; fi
    else
        same "MIG profiles of $g" "$(comp "$dippm predict --gpu $g:")" "$want"
    fi
done
same "--gpu=ALIAS:PREFIX" "$(comp "$dippm sweep --gpu=a100:3")" "3g.20gb"
same "--precision values" "$(comp "$dippm predict --precision ")" \
    "$("$dippm" predict --precision x zoo:mlp 2>&1 | sed -n 's/.*expected //p' | sed 's/,* or /\n/; s/, /\n/g')"
same "--runtime values" "$(comp "$dippm predict --runtime ")" \
    "$("$dippm" predict --runtime x zoo:mlp 2>&1 | sed -n 's/.*expected //p' | sed 's/,* or /\n/; s/, /\n/g')"

# zoo: families, parameters and enum values from the JSON listings, as lines
# "FAMILY", "FAMILY PARAM=" and "FAMILY PARAM= VALUE"
table=$(python3 - "$dippm" <<'PY'
import json, subprocess, sys
run = lambda *a: json.loads(subprocess.run([sys.argv[1], "zoo", *a, "--json"], check=True,
                                           capture_output=True, text=True).stdout)
for f in run("list"):
    print(f["family"])
    for p in run("show", f["family"])["parameters"]:
        print(f["family"], p["name"] + "=")
        for c in p.get("choices") or []:
            print(f["family"], p["name"] + "=", c)
PY
)
fams=$(awk 'NF == 1' <<<"$table")
same "zoo families" "$(comp "$dippm zoo show ")" "$fams"
# bash replaces the text after the last ':' or '=', so that is what comes back
same "zoo: specs" "$(comp "$dippm predict zoo:")" "$fams"
same "zoo subcommand words" "$(comp "$dippm zoo ")" "$(printf '%s\nlist\nshow\nsample' "$fams")"
for f in $fams; do
    params=$(awk -v f="$f" '$1 == f && NF == 2 { print $2 }' <<<"$table")
    same "zoo $f: parameters" "$(comp "$dippm zoo $f ")" "$params"
    for p in $(awk -v f="$f" '$1 == f && NF == 3 { print $2 }' <<<"$table" | sort -u); do
        want=$(awk -v f="$f" -v p="$p" '$1 == f && $2 == p { print $3 }' <<<"$table")
        same "zoo $f $p values" "$(comp "$dippm zoo $f $p")" "$want"
    done
done
same "zoo:vit:FAMILY: parameters" "$(comp "$dippm info zoo:vit:")" \
    "$(awk '$1 == "vit" && NF == 2 { print $2 }' <<<"$table")"
same "zoo:vit:depth=12:preset= values" "$(comp "$dippm info zoo:vit:depth=12:preset=")" \
    "$(awk '$1 == "vit" && $2 == "preset=" { print $3 }' <<<"$table")"

# the diffusion pipeline's text encoders: every encoder predict derives for
# the Stable Diffusion presets is offered after --text-encoder, and the last
# spec of a comma list completes
want=$(for p in sd15 sd21 sdxl; do
    "$dippm" predict "zoo:unet:preset=$p" --steps 1 --json | python3 -c 'import json, sys
for t in json.load(sys.stdin)["diffusion"]["text_encoders"]: print(t["spec"])'
done | sort -u)
got=$(comp "$dippm predict zoo:unet --steps 1 --text-encoder ")
missing=$(comm -23 <(echo "$want") <(echo "$got"))
if [ -n "$want" ] && [ -z "$missing" ]; then ok "derived text encoders offered"
else bad "derived text encoders not offered: $(echo $missing)"; fi
# SD3's CLIP ViT-L/14 carries its text projection
sd3=$("$dippm" predict zoo:dit:preset=sd3-medium --steps 1 --json | python3 -c 'import json, sys
print(json.load(sys.stdin)["diffusion"]["text_encoders"][0]["spec"])')
if [ "$sd3" = "zoo:gpt:preset=clip-l:head=projection" ] && grep -qxF "$sd3" <<<"$got"; then
    ok "SD3's first text encoder offered"
else bad "SD3's first text encoder '$sd3' not offered"; fi
same "--text-encoder comma list" \
    "$(comp "$dippm predict zoo:unet --steps 1 --text-encoder zoo:gpt:preset=clip-l,zoo:t5:preset=t5-v")" \
    "t5-v1_1-xxl-encoder"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
