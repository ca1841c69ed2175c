#!/bin/sh
# check-keys-man.sh - the EXPLORER section of man/dippm.1 is generated from
# ui/README-keys.md by tools/keys2man.py, and README-keys.md's key and command
# rows are checked against the explorer's own tables (ui/keymap.c,
# ui/actions.def, ui/commands.c) by tests/test_ui_keymap.c. Fails when the man
# page is not what the tool makes of README-keys.md: one of them was edited
# without the other. The check then runs itself on a man page with one word
# changed inside the section, which it must refuse.
top=${TOP_SRCDIR:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# same MAN: whether MAN's EXPLORER section is what keys2man.py writes there
same() {
    grep -q '^\.\\" BEGIN EXPLORER$' "$1" && grep -q '^\.\\" END EXPLORER$' "$1" || {
        echo "$1: no '.\\\" BEGIN EXPLORER' / '.\\\" END EXPLORER' markers"; return 1; }
    cp "$1" "$tmp/gen.1" &&
        python3 "$top/tools/keys2man.py" "$top/ui/README-keys.md" "$tmp/gen.1" || return 1
    diff -u "$1" "$tmp/gen.1" > "$tmp/diff"
}

fail=0
if same "$top/man/dippm.1"; then
    echo "ok: man/dippm.1's EXPLORER section is ui/README-keys.md's"
else
    echo "FAIL: man/dippm.1 (-) differs from tools/keys2man.py ui/README-keys.md (+):"
    head -40 "$tmp/diff"
    echo "Edit ui/README-keys.md, then: python3 tools/keys2man.py ui/README-keys.md man/dippm.1"
    fail=1
fi
# the check itself: a stale word in the section must be found
sed '/^\.\\" BEGIN EXPLORER$/,/^\.\\" END EXPLORER$/s/Sweep/Sweeps/' "$top/man/dippm.1" > "$tmp/stale.1"
if cmp -s "$top/man/dippm.1" "$tmp/stale.1" || same "$tmp/stale.1" >/dev/null; then
    echo "FAIL: a man page edited by hand inside the EXPLORER section passes the check"
    fail=1
else
    echo "ok: a man page edited by hand inside the section is refused"
fi
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
