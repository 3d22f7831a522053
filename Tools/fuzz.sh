#!/usr/bin/env bash
# libFuzzer on the parsers that read untrusted bytes: the image decoders (every ImageFormat: PNG, JPEG, WebP,
# HEIC, AVIF, TIFF, BMP, GIF; EXIF, ICC, limits) and the safetensors weights loader (Sources/swiftseg-fuzz/FuzzEntry.swift). Only the
# Swift code is instrumented: mutations reach libwebp, libheif, libtiff, giflib and their decoders, but its coverage does not
# guide them inside those.
#
#   Tools/fuzz.sh [libFuzzer options…]        e.g. Tools/fuzz.sh -max_total_time=600 -jobs=2
#
# Builds the harness with -sanitize=fuzzer into .build-fuzz/ (linked with lld: gold fails on it), seeds a
# corpus from Tests/Fixtures/decode and the committed weights' header, and runs until stopped (Ctrl-C) or a
# limit you pass. Crashes are saved in .build-fuzz/crashes/; replay one through a normal build:
#   swift run -c release swiftseg-fuzz .build-fuzz/crashes/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-fuzz
swift build -c release --product swiftseg-fuzz --scratch-path "$scratch" \
  -Xswiftc -sanitize=fuzzer -Xswiftc -DSWIFTSEG_LIBFUZZER -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
corpus="$scratch/corpus"
mkdir -p "$corpus" "$scratch/crashes"
cp Tests/Fixtures/decode/* "$corpus/"
# The weights file's 8-byte length and JSON header (its 4.7 MB of floats would only slow the fuzzer down).
header=$(od -An -t u8 -N8 Weights/u2netp.safetensors | tr -d ' ')
head -c $((8 + header)) Weights/u2netp.safetensors > "$corpus/u2netp-header.safetensors"
# Swift's own crash backtracer would catch the signal first, and libFuzzer would save no input: off.
SWIFT_BACKTRACE=enable=no exec "$scratch/release/swiftseg-fuzz" "$corpus" -artifact_prefix="$scratch/crashes/" -max_len=262144 \
  -rss_limit_mb=2048 -timeout=10 "$@"
