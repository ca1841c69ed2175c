#!/bin/sh
# check-debian-deps.sh - every library configure.ac looks for is in
# debian/control's Build-Depends, so the package built on a clean builder
# has what the source build has (a .deb without libzip-dev would not read
# .keras files).
#
# configure.ac is the one place that says which Debian package provides a
# library: the message of each dependency check says "install PKG". A check
# (PKG_CHECK_MODULES or AC_SEARCH_LIBS, other than libc's m and pthread) whose
# block names no package fails too. The check then runs itself on a copy of
# debian/control with one package removed, which it must refuse.
#
#   tests/check-debian-deps.sh [CONFIGURE_AC CONTROL]   (make check: no arguments)
top=${TOP_SRCDIR:-$(dirname "$0")/..}

# The Debian packages configure.ac names, one a line; a library check whose
# block names none is printed as "MISSING LIB" and makes it fail.
packages() { # configure.ac
    awk '
    function flush_missing() { for (l in pending) print "MISSING " l; delete pending }
    # a dependency check that starts a block (column 0): what is still
    # pending from the block before has no package named
    /^(PKG_CHECK_MODULES|AC_SEARCH_LIBS)\(/ { flush_missing() }
    {
        line = $0
        while (match(line, /(PKG_CHECK_MODULES\(\[[A-Za-z0-9_]+\]|AC_SEARCH_LIBS\(\[[A-Za-z0-9_]+\]),[ \t]*\[[^]]*\]/)) {
            m = substr(line, RSTART, RLENGTH)
            line = substr(line, RSTART + RLENGTH)
            sub(/^[^,]*,[ \t]*\[/, "", m)
            sub(/\]$/, "", m)
            n = split(m, libs, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                if (libs[i] ~ /^[<>=]/ || libs[i] ~ /^[0-9.]+$/ || libs[i] == "") continue
                if (libs[i] == "m" || libs[i] == "pthread") continue  # libc
                pending[libs[i]] = 1
            }
        }
        line = $0
        while (match(line, /install [a-z0-9][a-z0-9.+-]*-dev/)) {
            print substr(line, RSTART + 8, RLENGTH - 8)
            line = substr(line, RSTART + RLENGTH)
            delete pending
        }
    }
    END { flush_missing() }' "$1"
}

# The package names of debian/control's Build-Depends (every alternative),
# one a line, without versions, architectures or build profiles.
build_depends() { # control
    awk '
    /^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
    on && /^[ \t]/ { print; next }
    { on = 0 }' "$1" | tr ',|' '\n\n' |
        sed -e 's/([^)]*)//g' -e 's/\[[^]]*\]//g' -e 's/<[^>]*>//g' -e 's/[[:space:]]//g' |
        grep -v '^$'
}

# Prints what is wrong and returns 1, or returns 0.
check() { # configure.ac control
    pk=$(packages "$1") || return 1
    bd=$(build_depends "$2")
    bad=0
    for p in $(echo "$pk" | grep -v '^MISSING' | sort -u); do
        echo "$bd" | grep -qxF "$p" ||
            { echo "FAIL: $2: Build-Depends lacks $p (configure.ac: install $p)"; bad=1; }
    done
    for l in $(echo "$pk" | sed -n 's/^MISSING //p'); do
        echo "FAIL: $1: the check for library $l names no Debian package (\"install PKG\")"
        bad=1
    done
    return $bad
}

if [ $# -eq 2 ]; then
    check "$1" "$2"
    exit
fi
check "$top/configure.ac" "$top/debian/control" || exit 1
echo "ok: every library configure.ac checks for is in Build-Depends"

# The check must notice a package missing from Build-Depends and a library
# check that names no package.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
grep -v 'libzip-dev' "$top/debian/control" >"$tmp/control"
if check "$top/configure.ac" "$tmp/control" >"$tmp/out"; then
    echo "FAIL: the check accepted a control file without libzip-dev"; exit 1
fi
grep -q 'lacks libzip-dev' "$tmp/out" || { echo "FAIL: libzip-dev not named:"; cat "$tmp/out"; exit 1; }
cat "$top/configure.ac" >"$tmp/configure.ac"
printf 'PKG_CHECK_MODULES([FOO], [libfoo], [], [AC_MSG_ERROR([no foo])])\n' >>"$tmp/configure.ac"
if check "$tmp/configure.ac" "$top/debian/control" >"$tmp/out"; then
    echo "FAIL: the check accepted a library check that names no package"; exit 1
fi
grep -q 'library libfoo names no Debian package' "$tmp/out" ||
    { echo "FAIL: libfoo not named:"; cat "$tmp/out"; exit 1; }
echo "PASS: Build-Depends complete; the check catches a missing package"
