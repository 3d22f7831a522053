#!/usr/bin/env bash
# Fails when two tracked paths (files or folders) differ only by case: a clone on macOS's or Windows' default
# case-insensitive file system would merge them, and the package would not build there. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(git ls-files | awk -F/ '{p = ""; for (i = 1; i <= NF; i++) { p = p (i > 1 ? "/" : "") $i; print p } }' |
          sort -u | awk '{l = tolower($0); if (l in seen) print seen[l] " vs " $0; else seen[l] = $0}')
if [ -n "$clashes" ]; then
  echo "paths that differ only by case (a case-insensitive file system merges them):" >&2
  echo "$clashes" >&2
  exit 1
fi
echo "no two paths differ only by case ($(git ls-files | wc -l) files)"
