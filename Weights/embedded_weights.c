// Embeds Weights/u2netp.safetensors and Weights/efficientnet-lite0.safetensors into the binary. `.incbin` resolves the file through the include path
// that Package.swift sets to this folder. SwiftPM does not see this dependency: after replacing the weights
// file, touch this file (or clean the build) so the binary picks it up.
#include "SwiftsegEmbeddedWeights.h"

#if defined(__APPLE__)
#define SECTION ".const_data"
#define SYM(name) "_" #name
#else
#define SECTION ".section .rodata"
#define SYM(name) #name
#endif

__asm__(SECTION "\n"
        ".balign 64\n"
        SYM(swiftseg_u2netp_begin) ":\n"
        ".incbin \"u2netp.safetensors\"\n"
        SYM(swiftseg_u2netp_end) ":\n"
        ".byte 0\n"
        ".balign 64\n"
        SYM(swiftseg_efficientnet_lite0_begin) ":\n"
        ".incbin \"efficientnet-lite0.safetensors\"\n"
        SYM(swiftseg_efficientnet_lite0_end) ":\n"
        ".byte 0\n"
        ".previous\n");

extern const uint8_t swiftseg_u2netp_begin[];
extern const uint8_t swiftseg_u2netp_end[];

const uint8_t *swiftseg_embedded_u2netp(size_t *size) {
    *size = (size_t)(swiftseg_u2netp_end - swiftseg_u2netp_begin);
    return swiftseg_u2netp_begin;
}

extern const uint8_t swiftseg_efficientnet_lite0_begin[];
extern const uint8_t swiftseg_efficientnet_lite0_end[];

const uint8_t *swiftseg_embedded_efficientnet_lite0(size_t *size) {
    *size = (size_t)(swiftseg_efficientnet_lite0_end - swiftseg_efficientnet_lite0_begin);
    return swiftseg_efficientnet_lite0_begin;
}
