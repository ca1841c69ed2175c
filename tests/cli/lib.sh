# lib.sh - what the CLI test scripts of tests/cli share, sourced by each:
# a scratch directory $T (removed on exit), the pass and fail counts, and
#   ok NAME / bad NAME           count a check, saying so
#   run NAME EXPECTED_RC CMD...  CMD's stdout in $T/out, stderr in $T/err;
#                                a wrong exit status fails NAME
#   check NAME FILE PATTERN      FILE holds PATTERN (grep)
#   lacks NAME FILE PATTERN      FILE does not hold it
#   num KEY FILE                 the first JSON number of KEY in FILE
# A script ends with: echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
run() {
    name=$1 want=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    [ "$rc" -eq "$want" ] && return 0
    bad "$name: exit $rc, expected $want"; sed 's/^/  stderr: /' "$T/err" | head -5
    return 1
}
check() {
    if grep -q -- "$3" "$2"; then ok "$1"; else bad "$1: '$3' not in:"; sed 's/^/  | /' "$2" | head -8; fi
}
lacks() {
    if grep -q -- "$3" "$2"; then bad "$1: '$3' in $(basename "$2")"; else ok "$1"; fi
}
num() { sed -n "s/.*\"$1\": \([-0-9.e+]*\).*/\1/p" "$2" | head -1; }
