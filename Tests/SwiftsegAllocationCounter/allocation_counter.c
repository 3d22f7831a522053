// See include/AllocationCounter.h. glibc exports __libc_malloc and friends, so the wrappers call the real
// allocator directly (no dlsym, which could itself allocate and recurse).
#include "AllocationCounter.h"
#define _GNU_SOURCE
#include <errno.h>  // first, for <features.h>: it defines __GLIBC__
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_int counting;
static atomic_long allocations;
static atomic_long large_allocations;
static atomic_long blas_allocations;

/// Counts one allocation of `size` bytes requested from `caller`; OpenBLAS's own (it mallocs a work buffer
/// inside some sgemm calls) are counted apart, as they are not the runtime's to remove.
static void note(void *caller, size_t size) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed)) return;
    Dl_info info;
    if (dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "openblas")) {
        atomic_fetch_add_explicit(&blas_allocations, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    if (size >= 4096) atomic_fetch_add_explicit(&large_allocations, 1, memory_order_relaxed);
}

#define CALLER __builtin_return_address(0)
void *malloc(size_t size) { note(CALLER, size); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(CALLER, count * size); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { note(CALLER, size); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { note(CALLER, size); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { note(CALLER, size); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    note(CALLER, size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}

int swiftseg_allocation_counter_available(void) { return 1; }
void swiftseg_allocation_counter_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&large_allocations, 0);
    atomic_store(&blas_allocations, 0);
    atomic_store(&counting, 1);
}
long swiftseg_allocation_counter_large(void) { return atomic_load(&large_allocations); }
long swiftseg_allocation_counter_blas(void) { return atomic_load(&blas_allocations); }
long swiftseg_allocation_counter_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}
#else
int swiftseg_allocation_counter_available(void) { return 0; }
void swiftseg_allocation_counter_start(void) {}
long swiftseg_allocation_counter_stop(void) { return -1; }
long swiftseg_allocation_counter_large(void) { return -1; }
long swiftseg_allocation_counter_blas(void) { return -1; }
#endif
