#!/bin/sh
# Regenerates configure and Makefile.in (needs autoconf, automake, pkg-config).
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf -fi
