#ifndef SWIFTSEG_EMBEDDED_WEIGHTS_H
#define SWIFTSEG_EMBEDDED_WEIGHTS_H
#include <stddef.h>
#include <stdint.h>

/// The bundled u2netp.safetensors, linked into the binary's read-only data (so the OS maps it from the
/// executable like any other constant: no copy, nothing to find on disk at run time).
const uint8_t *swiftseg_embedded_u2netp(size_t *size);

/// The bundled efficientnet-lite0.safetensors (ImageNet classifier), likewise.
const uint8_t *swiftseg_embedded_efficientnet_lite0(size_t *size);

#endif
