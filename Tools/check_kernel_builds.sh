#!/usr/bin/env bash
# The SIMD kernels are compiled several times (Package.swift): for the baseline CPU, for AVX2 and for AVX-512.
# If two builds defined the same code symbol (e.g. a standard-library generic specialised in both), the linker
# would keep one copy for all callers, and baseline code could end up running AVX-512 instructions on a CPU
# without them. This fails when any function symbol is defined by more than one build. Run after
# `swift build -c release`. It also fails when the builds' file lists differ: SwiftsegKernelsAVX2 and
# SwiftsegKernelsAVX512 must hold exactly one symlink to each file of SwiftsegKernels (a file added to the
# kernels but not linked would leave the AVX builds without it, or with a stale copy).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
builds=(SwiftsegKernels SwiftsegKernelsAVX2 SwiftsegKernelsAVX512)
sources=$(cd Sources/SwiftsegKernels && ls)
for b in SwiftsegKernelsAVX2 SwiftsegKernelsAVX512; do
  if [ "$(cd "Sources/$b" && ls)" != "$sources" ]; then
    echo "Sources/$b does not hold the same files as Sources/SwiftsegKernels:" >&2
    diff <(echo "$sources") <(cd "Sources/$b" && ls) >&2 || true
    exit 1
  fi
  for f in $sources; do
    if [ "$(readlink "Sources/$b/$f")" != "../SwiftsegKernels/$f" ]; then
      echo "Sources/$b/$f is not a symlink to ../SwiftsegKernels/$f" >&2
      exit 1
    fi
  done
done
symbols() { nm --defined-only "$build/$1.build/"*.o | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u; }
shared=$(for b in "${builds[@]}"; do symbols "$b"; done | sort | uniq -d)
if [ -n "$shared" ]; then
  echo "code symbols defined by more than one kernel build (the linker would merge them):" >&2
  echo "$shared" | swift demangle >&2
  exit 1
fi
echo "kernel builds have the same $(echo "$sources" | wc -l) files and share no code symbols (${#builds[@]} builds, $(symbols SwiftsegKernelsAVX512 | wc -l) symbols each)"
