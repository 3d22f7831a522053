// Software prefetch for the SIMD kernels (Swift has no prefetch intrinsic). Header-only and always inlined,
// so each kernel build gets the instruction in place and no symbol is shared between builds.
#ifndef SWIFTSEG_PREFETCH_H
#define SWIFTSEG_PREFETCH_H

/// Asks the CPU to bring the cache line holding `address` into the caches ahead of a read. Never faults.
static inline __attribute__((always_inline)) void swiftseg_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// The same ahead of a write.
static inline __attribute__((always_inline)) void swiftseg_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
