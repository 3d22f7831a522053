#!/usr/bin/env bash
# The SIMD kernels are compiled twice (Package.swift): for the baseline CPU and for AVX-512. If both object sets
# defined the same code symbol (e.g. a standard-library generic specialised in both), the linker would keep one
# copy for both callers, and baseline code could end up calling AVX-512 instructions on a CPU without them.
# This fails when any function symbol is defined by both builds. Run after `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
symbols() { nm --defined-only "$build/$1.build/"*.o | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u; }
shared=$(comm -12 <(symbols SwiftsegKernels) <(symbols SwiftsegKernelsAVX512))
if [ -n "$shared" ]; then
  echo "code symbols defined by both kernel builds (would be merged by the linker):" >&2
  echo "$shared" | swift demangle >&2
  exit 1
fi
echo "kernel builds share no code symbols ($(symbols SwiftsegKernelsAVX512 | wc -l) in the AVX-512 build)"
