#!/bin/bash
# Builds the Debian package from this tree (dpkg-buildpackage -us -uc -b),
# checks it with lintian (no errors allowed), installs it, deletes the build
# tree and runs the installed dippm from an empty directory: every subcommand
# that needs data files (weights, samples, calibration data) and the
# explorer's About screen must find the installed ones. Removes the package
# at the end. Needs root (or sudo) to install packages; installs dpkg-dev,
# debhelper, lintian and the build dependencies with apt-get when missing.
#
#   tests/deb/run.sh            (from a git checkout; .ci/run calls it)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C.UTF-8
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# the tools, and the first alternative of every Build-Depends of debian/control
# (dpkg-buildpackage refuses to build without them)
build_deps=$(sed -n '/^Build-Depends:/,/^[^[:space:]]/p' "$top/debian/control" |
    sed -e 's/^Build-Depends://' -e '/^[^[:space:]]/d' | tr ',' '\n' | sed -e 's/|.*//' \
        -e 's/([^)]*)//g' -e 's/<[^>]*>//g' -e 's/[[:space:]]//g' | grep -v '^debhelper-compat$' | grep .)
need="dpkg-dev debhelper lintian fakeroot build-essential $(echo $build_deps)"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "deb: installing:$missing"
    as_root apt-get update -q
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/dippm-deb.XXXXXX")
installed=no
cleanup() {
    [ "$installed" = yes ] && as_root dpkg -r dippm >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

# The tracked (and new, not ignored) files: no build trees, no generated files.
mkdir "$work/dippm"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | grep -zv '^debian/build' |
    tar --null -T - -cf -) | tar -C "$work/dippm" -xf -
echo "=== dpkg-buildpackage -us -uc -b"
start=$(date +%s)
if (cd "$work/dippm" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
        dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1); then
    ok "package built in $(($(date +%s) - start)) s"
else
    tail -40 "$work/build.log"; bad "dpkg-buildpackage failed"; echo "$pass passed, $fail failed"; exit 1
fi
deb=$(ls "$work"/dippm_*.deb)
echo "=== lintian $(basename "$deb")"
if lintian --fail-on error "$deb" >"$work/lintian.txt" 2>&1; then
    ok "lintian: no errors ($(grep -c '^W:' "$work/lintian.txt" || true) warnings)"
else
    bad "lintian reports errors:"; grep '^E:' "$work/lintian.txt" | sed 's/^/    /'
fi
cat "$work/lintian.txt"
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/dippm ./usr/share/man/man1/dippm.1.gz ./usr/share/man/man5/dippm-json.5.gz \
         ./usr/share/dippm/weights/dippm-gnn.dpw ./usr/share/dippm/weights/dippm-gnn.json \
         ./usr/share/dippm/samples/resnet50.onnx ./usr/share/dippm/samples/bert_base.onnx \
         ./usr/share/dippm/calibration/a100_published_calibration.jsonl \
         ./usr/share/bash-completion/completions/dippm; do
    grep -qxF "$f" <<<"$contents" || bad "package lacks $f"
done
ok "package contents ($(grep -c . <<<"$contents") entries)"

echo "=== install, delete the build tree, run from an empty directory"
as_root dpkg -i "$deb" >/dev/null
installed=yes
rm -rf "$work/dippm"
mkdir "$work/run" && cd "$work/run"
# no environment that points at data files
unset DIPPM_WEIGHTS DIPPM_WEIGHTS_DIR DIPPM_SAMPLES_DIR DIPPM_CALIBRATION_DIR DIPPM_DEFAULT_MODEL \
    SAMPLES_DIR TOP_SRCDIR DIPPM
run() { # run LABEL CMD...: CMD must succeed; its output is in $work/out
    if "${@:2}" >"$work/out" 2>&1; then ok "$1"; else bad "$1 (exit $?)"; sed 's/^/    /' "$work/out" | tail -20; fi
}
has() { # has LABEL TEXT: the last output contains TEXT
    if grep -qF -- "$2" "$work/out"; then ok "$1"; else bad "$1: no '$2' in:"; sed 's/^/    /' "$work/out" | head -20; fi
}
run "dippm --version" /usr/bin/dippm --version
has "version" "dippm "
run "dippm predict zoo:resnet --json" dippm predict zoo:resnet --json
has "predict uses the installed weights" '"/usr/share/dippm/weights/dippm-gnn.dpw'
run "dippm predict the installed sample" dippm predict /usr/share/dippm/samples/resnet50.onnx --gpu h100
has "predict: GNN figures" "GNN"
run "dippm (report on the default model)" dippm
has "default model is the installed sample" "/usr/share/dippm/samples/resnet50.onnx"
run "dippm eval (installed weights, rows sampled from the installed samples)" dippm eval --json --quiet
has "eval reads the installed weights" "/usr/share/dippm/weights/dippm-gnn.dpw"
run "dippm dataset (installed samples)" dippm dataset -o rows.dpds --n 24 --families samples,mlp --quiet
run "dippm dataset: rows written" test -s rows.dpds
run "dippm train on those rows" dippm train --data rows.dpds -o w.dpw --epochs 1 --quiet
run "dippm eval of the new weights" dippm eval --weights w.dpw --data rows.dpds --all-rows --quiet
run "dippm calibrate --no-fit (installed calibration data and samples)" \
    dippm calibrate --no-fit -o report.md
# the build tree is gone: the installed copy is the only one the report can come from
cp report.md "$work/out"
has "calibrate: report over the 402 installed rows" "(402 rows)"
printf '7:dump-screen %s<Enter>q' "$work/about.txt" >keys.txt
run "explorer About screen (headless)" env DIPPM_NO_DISPLAY=1 DIPPM_SCRIPT=keys.txt DIPPM_ROWS=160 \
    DIPPM_COLS=140 dippm
cp "$work/about.txt" "$work/out" 2>/dev/null || : >"$work/out"
has "About: the weights in use" "/usr/share/dippm/weights/dippm-gnn.dpw"
has "About: their manifest" "Weights manifest: /usr/share/dippm/weights/dippm-gnn.json"
has "About: the calibration report" "energy per output token (ML.ENERGY, predicted, not fitted)"
run "man page installed" test -s /usr/share/man/man1/dippm.1.gz
run "bash completion: dippm pre<Tab> -> predict" bash -c \
    'source /usr/share/bash-completion/completions/dippm; COMP_LINE="dippm pre"; COMP_POINT=9;
     _dippm; [ "${COMPREPLY[*]}" = predict ]'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
