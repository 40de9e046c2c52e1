/*
 * Why a copy of 512 MiB in the JVM takes ~1.5x numpy's: numpy copies with glibc's memcpy, which on
 * copies this large writes with non-temporal stores (they skip reading the destination's lines into
 * the cache first); the JVM's copies (the library's kernels and MemorySegment.copy alike) use plain
 * stores. This program times memcpy, plain AVX stores and non-temporal AVX stores on 64M doubles.
 * Build and run: cc -O2 -mavx2 -fno-tree-loop-distribute-patterns -o copy_stores copy_stores.c && ./copy_stores
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>
static double ms(struct timespec a, struct timespec b) { return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6; }
int main(void) {
    size_t n = (size_t) 64 << 20;
    double *x = aligned_alloc(64, n * 8), *y = aligned_alloc(64, n * 8);
    for (size_t i = 0; i < n; i++) { x[i] = 1.5; y[i] = 0; }
    for (int r = 0; r < 4; r++) {
        struct timespec t0, t1, t2, t3;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        memcpy(y, x, n * 8);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        for (size_t i = 0; i < n; i += 4) _mm256_store_pd(y + i, _mm256_load_pd(x + i));
        clock_gettime(CLOCK_MONOTONIC, &t2);
        for (size_t i = 0; i < n; i += 4) _mm256_stream_pd(y + i, _mm256_load_pd(x + i));
        _mm_sfence();
        clock_gettime(CLOCK_MONOTONIC, &t3);
        printf("memcpy %.1f ms, AVX stores %.1f ms, AVX non-temporal stores %.1f ms\n", ms(t0, t1), ms(t1, t2), ms(t2, t3));
    }
    return (int) y[n - 1] - 1;
}
