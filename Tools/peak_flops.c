// One core's float32 peak with AVX-512 FMAs (twelve independent chains keep both FMA pipes busy): the ceiling
// against which PERF.md reads the classification goal. x86-64 with AVX-512 only.
//   gcc -O2 -mavx512f -mfma Tools/peak_flops.c -o /tmp/peak_flops && /tmp/peak_flops
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    __m512 acc[12];
    const __m512 m = _mm512_set1_ps(0.9999f), c = _mm512_set1_ps(0.0001f);
    for (int i = 0; i < 12; i++) acc[i] = _mm512_set1_ps((float)i);
    const long rounds = 200000000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long k = 0; k < rounds; k++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    float sum = 0;  // keeps the loop from being optimised away
    for (int i = 0; i < 12; i++) sum += _mm512_reduce_add_ps(acc[i]);
    printf("%.1f GFLOP/s float32 on one core (%.3f s; checksum %g)\n", rounds * 12.0 * 32 / seconds / 1e9, seconds, sum);
    return 0;
}
