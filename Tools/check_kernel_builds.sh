#!/usr/bin/env bash
# The SIMD kernels (the network's, SwiftsegKernels, and the image library's, SwiftsegImageKernels) are compiled
# several times each (Package.swift): for the baseline CPU, for AVX2 and for AVX-512.
# If two builds defined the same code symbol (e.g. a standard-library generic specialised in both), the linker
# would keep one copy for all callers, and baseline code could end up running AVX-512 instructions on a CPU
# without them. This fails when any function symbol is defined by more than one build. Run after
# `swift build -c release`. It also fails when a family's file lists differ: …AVX2 and …AVX512 must hold exactly
# one symlink to each file of the baseline folder (a file added to the kernels but not linked would leave the AVX
# builds without it, or with a stale copy).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build/release}
symbols() { nm --defined-only "$build/$1.build/"*.o | awk '$2 ~ /^[TtWw]$/ {print $3}' | sort -u; }
for family in SwiftsegKernels SwiftsegImageKernels; do
  builds=("$family" "${family}AVX2" "${family}AVX512")
  sources=$(cd "Sources/$family" && ls)
  for b in "${family}AVX2" "${family}AVX512"; do
    if [ "$(cd "Sources/$b" && ls)" != "$sources" ]; then
      echo "Sources/$b does not hold the same files as Sources/$family:" >&2
      diff <(echo "$sources") <(cd "Sources/$b" && ls) >&2 || true
      exit 1
    fi
    for f in $sources; do
      if [ "$(readlink "Sources/$b/$f")" != "../$family/$f" ]; then
        echo "Sources/$b/$f is not a symlink to ../$family/$f" >&2
        exit 1
      fi
    done
  done
  shared=$(for b in "${builds[@]}"; do symbols "$b"; done | sort | uniq -d)
  if [ -n "$shared" ]; then
    echo "code symbols defined by more than one $family build (the linker would merge them):" >&2
    echo "$shared" | swift demangle >&2
    exit 1
  fi
  echo "$family builds have the same $(echo "$sources" | wc -l) files and share no code symbols (${#builds[@]} builds, $(symbols "${family}AVX512" | wc -l) symbols each)"
done
# No other module may hold code of an AVX build: with cross-module optimisation a caller can copy a small public
# kernel (or a specialisation of it) into its own, baseline-compiled object — the AVX code then runs as baseline
# code (a multiply-add becomes a call to libm's fmaf), or the linker keeps that copy for the kernel's callers.
foreign=$(for dir in "$build"/*.build; do
  name=$(basename "$dir" .build)
  case "$name" in SwiftsegKernels*|SwiftsegImageKernels*) continue ;; esac
  ls "$dir"/*.o >/dev/null 2>&1 || continue
  nm --defined-only "$dir"/*.o | awk -v m="$name" '$2 ~ /^[TtWw]$/ && $3 ~ /(SwiftsegKernels|SwiftsegImageKernels)AVX/ {print m ": " $3}'
done)
if [ -n "$foreign" ]; then
  echo "modules outside the kernel builds define code of an AVX build (mark the kernel's entry @inline(never), or call it through a larger function):" >&2
  echo "$foreign" | swift demangle >&2
  exit 1
fi
echo "no other module holds code of an AVX build"
