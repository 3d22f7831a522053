// Test support: counts heap allocations made by any thread while counting is on. The process's malloc family
// is replaced (allocation_counter.c) by thin wrappers over glibc's own entry points, so allocations from Swift,
// Foundation and Dispatch all pass through them. Linked into the test bundle only, never into the product.
#ifndef SWIFTSEG_ALLOCATION_COUNTER_H
#define SWIFTSEG_ALLOCATION_COUNTER_H

/// Whether the wrappers are active (glibc only; elsewhere counting reports -1).
int swiftseg_allocation_counter_available(void);
/// Starts counting from zero.
void swiftseg_allocation_counter_start(void);
/// Stops counting; returns the number of malloc/calloc/realloc/memalign-family calls since start, except
/// those made by OpenBLAS itself.
long swiftseg_allocation_counter_stop(void);
/// Of the counted calls, those of 4 KiB or more (buffer-sized: what a memory plan must never do per pass).
long swiftseg_allocation_counter_large(void);
/// The calls made by OpenBLAS itself since start (it mallocs work buffers inside some sgemm calls).
long swiftseg_allocation_counter_blas(void);

#endif
