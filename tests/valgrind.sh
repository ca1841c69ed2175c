#!/bin/sh
# Runs the bad-input corpus (tests/bad) and a few normal commands under
# valgrind memcheck: any invalid read/write, use of uninitialised memory or
# definitely-lost block fails the run. Usage: tests/valgrind.sh [DIPPM]
# (default ./dippm; `make check-valgrind` runs it from the build directory).
# Exit status 99 is reserved for valgrind's own findings, so they can never be
# mistaken for one of dippm's documented exit statuses.
set -u
DIPPM=${1:-${DIPPM:-./dippm}}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
command -v valgrind >/dev/null || { echo "FAIL: valgrind not installed (./setup.sh check installs it)"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# the bad corpus runs one case as an unprivileged user (when run as root):
# it must reach the wrapper and write its valgrind log
chmod 755 "$T"
mkdir "$T/logs"
chmod 1777 "$T/logs"
DIPPM=$(cd "$(dirname "$DIPPM")" && pwd)/$(basename "$DIPPM")
cat >"$T/vg-dippm" <<EOS
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \\
    --log-file="$T/logs/vg.%p.log" "$DIPPM" "\$@"
EOS
chmod +x "$T/vg-dippm"
fail=0
export OPENBLAS_NUM_THREADS=1

echo "== bad-input corpus under valgrind"
bin=$DIPPM # the binary behind the wrapper (prefix assignments expand in order)
BAD_SKIP_MILLION=1 DIPPM_BIN="$bin" DIPPM="$T/vg-dippm" sh "$here/bad/run.sh" >"$T/bad.log" 2>&1 || fail=1
grep -E "^FAIL|passed" "$T/bad.log"

echo "== normal commands under valgrind"
run() {
    "$T/vg-dippm" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL (exit $rc): dippm $*"; head -5 "$T/err"; fail=1
    else
        echo "ok: dippm $*"
    fi
}
run info "$top/samples/tiny_cnn.json"
run info "$top/samples/keras/tiny_cnn.json"
run info "$top/samples/tfjs/tiny_cnn.model.json"
run layers "$top/samples/resnet50.onnx"
run predict "$top/samples/tiny_cnn.json"
run predict "$top/samples/resnet50.onnx" --gpu h100 --batch 8 --json
run convert "$top/samples/keras/tiny_cnn.json" -o "$T/conv.json"

# every valgrind report, whatever the exit status said
for l in "$T"/logs/vg.*.log; do
    [ -s "$l" ] || continue
    echo "valgrind report ($l):"; head -40 "$l"; fail=1
done
[ "$fail" -eq 0 ] && echo "valgrind: clean" || echo "valgrind: FAILED"
exit "$fail"
