/* The FP32 multiply-add peak of this machine's cores, measured: one thread per core, each running
 * independent chains of vector FMAs (16 floats a vector, 12 chains to cover the FMA latency), so
 * a PoCL figure can be set beside what the cores can do at all. GCC's vector extensions with
 * -march=native become the widest FMA the CPU has (AVX-512 or AVX2 halves).
 * Build and run: cc -O2 -march=native -pthread scripts/cpu_fma_peak.c -o /tmp/fma && /tmp/fma
 * Prints the best of 5 rounds, GFLOP/s for all threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef float v16 __attribute__((vector_size(64)));
enum { CHAINS = 12, ITERS = 20000000 };

static void *chains(void *out) {
  v16 acc[CHAINS], x, y;
  for (int j = 0; j < 16; j++) { x[j] = 0.999999f; y[j] = 1e-7f; }
  for (int c = 0; c < CHAINS; c++) acc[c] = x * (float)c;
  for (long i = 0; i < ITERS; i++)
    _Pragma("GCC unroll 12") for (int c = 0; c < CHAINS; c++) acc[c] = acc[c] * x + y;
  float sum = 0;
  for (int c = 0; c < CHAINS; c++) for (int j = 0; j < 16; j++) sum += acc[c][j];
  *(float *)out = sum; /* keeps the chains live */
  return NULL;
}

int main(void) {
  long threads = sysconf(_SC_NPROCESSORS_ONLN);
  pthread_t *t = malloc(sizeof *t * threads);
  float *sums = malloc(sizeof *sums * threads);
  double best = 0;
  for (int round = 0; round < 5; round++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, chains, &sums[i]);
    for (long i = 0; i < threads; i++) pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    double gflops = 2.0 * 16 * CHAINS * (double)ITERS * threads / s / 1e9;
    if (gflops > best) best = gflops;
  }
  printf("%ld threads: FP32 FMA peak %.1f GFLOP/s (best of 5 rounds; checksum %g)\n", threads, best, sums[0]);
  return 0;
}
