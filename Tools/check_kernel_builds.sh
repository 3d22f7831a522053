#!/usr/bin/env bash
# The SIMD kernels are compiled several times (Package.swift): for the baseline CPU, for AVX2 and for AVX-512.
# If two builds defined the same code symbol (e.g. a standard-library generic specialised in both), the linker
# would keep one copy for all callers, and baseline code could end up running AVX-512 instructions on a CPU
# without them. This fails when any function symbol is defined by more than one build. Run after
# `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
builds=(SwiftsegKernels SwiftsegKernelsAVX2 SwiftsegKernelsAVX512)
symbols() { nm --defined-only "$build/$1.build/"*.o | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u; }
shared=$(for b in "${builds[@]}"; do symbols "$b"; done | sort | uniq -d)
if [ -n "$shared" ]; then
  echo "code symbols defined by more than one kernel build (the linker would merge them):" >&2
  echo "$shared" | swift demangle >&2
  exit 1
fi
echo "kernel builds share no code symbols (${#builds[@]} builds, $(symbols SwiftsegKernelsAVX512 | wc -l) symbols each)"
