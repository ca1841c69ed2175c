#!/bin/sh
# dippm set-up for Debian 12: installs what is missing, generates the build
# system, configures and builds in ./build.
#
#   ./setup.sh           install build dependencies, build          (then: build/dippm)
#   ./setup.sh check     also install test dependencies and run the whole test suite
#
# Extra arguments after the mode are passed to configure, e.g.
#   ./setup.sh build --enable-debug
set -eu
cd "$(dirname "$0")"
mode=${1:-build}
[ $# -gt 0 ] && shift
case "$mode" in
    build|check) ;;
    *) echo "usage: ./setup.sh [build|check] [configure options...]" >&2; exit 2 ;;
esac

build_pkgs="build-essential autoconf automake pkg-config libncurses-dev libprotobuf-c-dev
protobuf-c-compiler libcjson-dev libopenblas-dev libreadline-dev libcmocka-dev libzip-dev libhdf5-dev"
test_pkgs="tmux python3 python3-torch python3-torchvision python3-onnx libonnx-testdata clang
libclang-rt-14-dev valgrind util-linux"
pkgs=$build_pkgs
[ "$mode" = check ] && pkgs="$pkgs $test_pkgs"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "setup: installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        # shellcheck disable=SC2086
        apt-get install -y -q --no-install-recommends $missing
    elif command -v sudo >/dev/null 2>&1; then
        echo "setup: installing with sudo:$missing"
        sudo apt-get update -q
        # shellcheck disable=SC2086
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
    else
        echo "setup: these Debian packages are missing:$missing" >&2
        echo "setup: run as root:  apt-get install -y$missing" >&2
        exit 1
    fi
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    ./autogen.sh
fi
mkdir -p build
cd build
if [ ! -f Makefile ] || [ $# -gt 0 ]; then
    ../configure "$@"
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs"
if [ "$mode" = check ]; then
    make -j"$jobs" check || { echo "setup: tests failed; see build/test-suite.log" >&2; cat test-suite.log >&2 || true; exit 1; }
fi
