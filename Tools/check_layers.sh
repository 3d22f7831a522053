#!/usr/bin/env bash
# The layers' dependency rule, checked on the sources' imports (docs/ARCHITECTURE.md, "Layers"): C shims →
# kernels → runtime (names no model) → models; image library (no network code) → requests → CLI / service / bench; the
# rectangle request builds on the image library alone.
# Package.swift declares the same edges; this also catches an import the build would let through (a module
# already built for another target). Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
forbid() {  # forbid TARGET MODULE…: no file of Sources/TARGET imports any MODULE
  local target="$1"; shift
  for module in "$@"; do
    if hits=$(grep -rlE "^(@_exported )?import $module\$" "Sources/$target" --include='*.swift'); then
      echo "Sources/$target must not import $module (docs/ARCHITECTURE.md, Layers): $hits" >&2
      status=1
    fi
  done
}
forbid SwiftsegImage SwiftsegRuntime SwiftsegModels Swiftseg SwiftsegKernels
forbid SwiftsegKernels SwiftsegRuntime SwiftsegModels Swiftseg SwiftsegImage
forbid SwiftsegImageKernels SwiftsegRuntime SwiftsegModels Swiftseg SwiftsegImage SwiftsegKernels
forbid SwiftsegRuntime SwiftsegModels Swiftseg SwiftsegImage
forbid SwiftsegModels Swiftseg SwiftsegImage
forbid Swiftseg/Rectangles SwiftsegRuntime SwiftsegModels SwiftsegKernels   # classic vision: the image library only
forbid Swiftseg SwiftsegService SwiftsegCLI _CMicroHTTPD                    # the library knows no front end
forbid SwiftsegService SwiftsegModels SwiftsegKernels SwiftsegImageKernels SwiftsegCLI _CPNG _CTurboJPEG  # routes call the pipelines
[ "$status" = 0 ] && echo "layers: imports follow the dependency rule"
exit "$status"
