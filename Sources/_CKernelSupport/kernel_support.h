// What the SIMD kernels need from C: software prefetch (Swift has no prefetch intrinsic), an optimisation
// barrier for vectors and a lane mask. Header-only and always inlined, so each kernel build gets the code in place and no symbol
// is shared between builds.
#ifndef SWIFTSEG_KERNEL_SUPPORT_H
#define SWIFTSEG_KERNEL_SUPPORT_H

/// Asks the CPU to bring the cache line holding `address` into the caches ahead of a read. Never faults.
static inline __attribute__((always_inline)) void swiftseg_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// The same ahead of a write.
static inline __attribute__((always_inline)) void swiftseg_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// 8 floats, imported into Swift as SIMD8<Float>.
typedef float swiftseg_float8 __attribute__((ext_vector_type(8)));

/// Returns `v` unchanged, hidden from the optimiser: LLVM's shuffle combiner merges chains of lane shuffles
/// into one and lowers that badly on AVX2 (lane by lane); a value passed through here starts a new chain.
static inline __attribute__((always_inline)) swiftseg_float8 swiftseg_opaque8(swiftseg_float8 v) {
#if defined(__x86_64__) && defined(__AVX__)
    __asm__("" : "+x"(v));
#endif
    return v;
}

/// Which of 16 lanes are nonzero in any of `count` vectors of 16 floats, `stride` floats apart from `p`: bit l
/// set when lane l is nonzero (or NaN) in one of them; -0 counts as zero. Swift's SIMD masks lower this lane by
/// lane; clang's vectors make it one OR a vector and one compare.
static inline __attribute__((always_inline)) unsigned short swiftseg_nonzero_lanes16(const float *p, long count,
                                                                                    long stride) {
    typedef unsigned int u32x16 __attribute__((ext_vector_type(16)));
    typedef _Bool bool16 __attribute__((ext_vector_type(16)));
    u32x16 any = 0;
    for (long i = 0; i < count; i++) {
        u32x16 v;
        __builtin_memcpy(&v, p + i * stride, sizeof v);
        any |= v;
    }
    bool16 nonzero = __builtin_convertvector((any & 0x7fffffffu) != 0, bool16);
    unsigned short bits;
    __builtin_memcpy(&bits, &nonzero, sizeof bits);
    return bits;
}

#endif
