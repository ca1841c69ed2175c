#!/bin/sh
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for
# SECONDS (default 10) from its seed corpus, then replays every saved
# regression input (tests/fuzz/regress/TARGET-*). Usage: run.sh [SECONDS]
set -eu
secs=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${FUZZ_BUILD:-$top/build-fuzz}
mkdir -p "$out/obj"
CC=${CLANG:-clang}
flags="-std=c11 -D_DEFAULT_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
inc="-iquote $top/src -iquote $top -iquote $out -DDIPPM_DATADIR=\"/nonexistent\" -DDIPPM_SRCDIR=\"$top\""
deps=$(pkg-config --cflags --libs libprotobuf-c libcjson openblas 2>/dev/null || echo "-lprotobuf-c -lcjson -lopenblas")
# the Keras file readers when their libraries are there (else those targets are not built)
have_zip=no have_hdf5=no
if pkg-config --exists libzip; then
    have_zip=yes; flags="$flags -DHAVE_LIBZIP=1 $(pkg-config --cflags libzip)"; deps="$deps $(pkg-config --libs libzip)"
fi
if pkg-config --exists hdf5; then
    have_hdf5=yes; flags="$flags -DHAVE_HDF5=1 $(pkg-config --cflags hdf5)"; deps="$deps $(pkg-config --libs hdf5)"
fi
# the dippm core and the lab (the dataset and measured-row readers), without
# the CLI and the UI
srcs=$(ls "$top"/src/util/*.c "$top"/graph/*.c "$top"/graph/*/*.c "$top"/src/core/*.c "$top"/src/lab/*.c)
[ -f "$out/dippm_config.h" ] || printf '#define PACKAGE_VERSION "fuzz"\n' >"$out/dippm_config.h"
objs=""
# an object is stale when its source or any header is newer (no dependency files here)
newest_h=$(ls -t "$top"/src/util/*.h "$top"/graph/*.h "$top"/graph/*/*.h "$top"/src/core/*.h "$top"/src/lab/*.h | head -1)
for s in $srcs; do
    o="$out/obj/$(echo "$s" | sed "s|$top/||; s|/|_|g; s|\.c$|.o|")"
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
        # shellcheck disable=SC2086
        $CC $flags $inc $(pkg-config --cflags libprotobuf-c libcjson 2>/dev/null) -c "$s" -o "$o"
    fi
    objs="$objs $o"
done
pass=0
fail=0
for h in "$here"/fuzz_*.c; do
    t=$(basename "$h" .c)
    t=${t#fuzz_}
    case "$t:$have_zip:$have_hdf5" in
    keras_zip:no:* | keras_h5:*:no) echo "fuzz_$t: not built (its library is not installed)"; continue ;;
    esac
    # shellcheck disable=SC2086
    $CC $flags -fsanitize=fuzzer $inc "$h" $objs $deps -lm -o "$out/fuzz_$t"
    corpus="$out/corpus_$t"
    mkdir -p "$corpus"
    [ -d "$here/corpus/$t" ] && cp -r "$here/corpus/$t/." "$corpus/" 2>/dev/null || true
    # regressions first: each saved crash input must now pass
    for r in "$here"/regress/"$t"-*; do
        [ -f "$r" ] || continue
        if "$out/fuzz_$t" "$r" >"$out/$t.regress.log" 2>&1; then
            pass=$((pass + 1))
        else
            echo "FAIL: regression $(basename "$r")"; tail -20 "$out/$t.regress.log"; fail=$((fail + 1))
        fi
    done
    echo "fuzzing $t for ${secs}s"
    if "$out/fuzz_$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$out/$t-" "$corpus" >"$out/$t.log" 2>&1; then
        grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$out/$t.log" | tail -1
        pass=$((pass + 1))
    else
        echo "FAIL: fuzz_$t found a crash:"; tail -30 "$out/$t.log"; fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
