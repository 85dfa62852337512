// Warp-specialised SGEMM probe (not part of fewfit's kernel set).
//
// Row-major NN: C[m*N + n] = alpha * sum_k A[m*K + k] * B[k*N + n] + beta * C[m*N + n], A M x K
// (contiguous along K), B K x N (contiguous along N). One work-group per 128 x 128 tile of C:
// get_group_id(0) is the N tile, get_group_id(1) the M tile. M and N must be multiples of 128, K a
// multiple of 16, and M*K, K*N, M*N at most 2^31 - 1 (int indices); the host checks all of that.
//
// The group has 256 consumer work-items (16 x 16, 8 x 8 accumulators each, the shape of fewfit's
// 128 x 128 tile) and PRODUCERS producer work-items that only copy K slices of 16 from global into
// local memory. A and B slices go through NSTAGE local buffers. On NVIDIA (PORTABLE not defined)
// the two roles meet at PTX named barriers, so consumers never stop to store or to wait for a
// store phase of their own:
//   FULL(s)  = 1 + s           producers bar.arrive after filling stage s, consumers bar.sync on it
//   EMPTY(s) = 1 + NSTAGE + s  consumers bar.arrive after reading stage s, producers bar.sync on it
// Barrier 0 is OpenCL's barrier() and is not used. Each named barrier's count is the whole group
// (256 + PRODUCERS): both roles are whole warps, one side arrives and the other waits.
//
// Build options: -DNSTAGE=2|3 -DPRODUCERS=32|64|128 [-DPORTABLE]. With PORTABLE (any OpenCL
// device, e.g. PoCL for a correctness check) all work-items step through the slices in lockstep
// with barrier(CLK_LOCAL_MEM_FENCE); the index code is the same, only the synchronisation differs.

#ifndef NSTAGE
#error "NSTAGE (number of local buffers) must be defined"
#endif
#ifndef PRODUCERS
#error "PRODUCERS (producer work-items) must be defined"
#endif
#if PRODUCERS < 32 || PRODUCERS % 32 != 0 || 512 % PRODUCERS != 0
#error "PRODUCERS must be a multiple of 32 that divides 512"
#endif
// Named barriers 1 .. 2*NSTAGE must exist (16 per CTA); 3 stages already fill 48 KB of local memory.
#if NSTAGE < 1 || 2 * NSTAGE + 1 > 16
#error "NSTAGE out of range"
#endif

// 256 consumers hold 8 x 8 of C each (16 x 16 of them), 128 hold 8 x 16 (16 x 8): NVIDIA's OpenCL
// caps a kernel of 100-150 registers at 256 work-items, so 128 + 128 producers fit where 256 + P do not.
#ifndef CONSUMERS
#define CONSUMERS 256
#endif
#if CONSUMERS != 256 && CONSUMERS != 128
#error "CONSUMERS must be 256 or 128"
#endif
#define THREADS (CONSUMERS + PRODUCERS)
#define TILE 128                  // C tile is TILE x TILE
#define HALF 64                   // a consumer's two 4-wide row groups are HALF apart
#define TN (CONSUMERS / 16)       // consumers along N
#define NGROUPS (512 / CONSUMERS) // a consumer's 4-wide column groups, TN * 4 apart
#define NW (4 * NGROUPS)          // a consumer's columns
#define KS 16                     // K slice per stage
#define PER_P (512 / PRODUCERS)   // float4 loads per producer per slice, of A and of B each

#define FULL(s) (1 + (s))
#define EMPTY(s) (1 + NSTAGE + (s))

#ifndef PORTABLE
// bar.sync waits until `count` threads have arrived and acquires their prior shared-memory
// writes; bar.arrive signals without waiting and releases this thread's prior writes. The
// "memory" clobber keeps the compiler from moving local loads/stores across either.
// The barrier id is an immediate (one case per id), so that ptxas counts only the barriers used:
// with ids in registers it reserves all 16.
#define BAR_CASE(op, n) case n: asm volatile("bar." op " " #n ", %0;" :: "r"(THREADS) : "memory"); break;
#define BAR_CASES(op) BAR_CASE(op, 1) BAR_CASE(op, 2) BAR_CASE(op, 3) BAR_CASE(op, 4) BAR_CASE(op, 5) \
    BAR_CASE(op, 6) BAR_CASE(op, 7) BAR_CASE(op, 8) BAR_CASE(op, 9) BAR_CASE(op, 10) BAR_CASE(op, 11) \
    BAR_CASE(op, 12) BAR_CASE(op, 13) BAR_CASE(op, 14) BAR_CASE(op, 15)
#define BAR_SYNC(id) do { switch (id) { BAR_CASES("sync") } } while (0)
#define BAR_ARRIVE(id) do { switch (id) { BAR_CASES("arrive") } } while (0)
#endif

// Producer p's global loads of the slice at k0, into registers (all loads before any store, so
// their latencies overlap).
//   A (128 rows x 16 k, 4 float4 per row): load f = p + PRODUCERS * i takes row (f >> 1) & 127 and
//   float4 kq = (f & 1) | ((f >> 8) << 1). A warp's 32 loads cover 16 rows x 2 adjacent float4, so
//   every 32-byte sector it touches is used whole; the transposed stores then hit 16 banks (2-way).
//   B (16 k x 128 columns, 32 float4 per k): load f takes k = f >> 5, float4 n4 = f & 31; a warp
//   reads 512 contiguous bytes of one k row.
static inline void load_slice(const __global float* a_tile, const __global float* b_tile, const int K,
                       const int N, const int k0, const int p, float4* ra, float4* rb) {
#pragma unroll
    for (int i = 0; i < PER_P; i++) {
        const int f = p + PRODUCERS * i;
        const int row = (f >> 1) & (TILE - 1);
        const int kq = (f & 1) | ((f >> 8) << 1);
        ra[i] = *(const __global float4*)(a_tile + row * K + k0 + kq * 4);
        const int k = f >> 5;
        const int n4 = f & 31;
        rb[i] = *(const __global float4*)(b_tile + (k0 + k) * N + n4 * 4);
    }
}

// Producer p's stores of the registers from load_slice into one stage: As k-major (A transposed,
// 4 scalar stores per float4), Bs k-major as loaded (one float4 store).
static inline void store_slice(__local float* as, __local float* bs, const int p, const float4* ra,
                        const float4* rb) {
#pragma unroll
    for (int i = 0; i < PER_P; i++) {
        const int f = p + PRODUCERS * i;
        const int row = (f >> 1) & (TILE - 1);
        const int kq = (f & 1) | ((f >> 8) << 1);
        as[(kq * 4 + 0) * TILE + row] = ra[i].x;
        as[(kq * 4 + 1) * TILE + row] = ra[i].y;
        as[(kq * 4 + 2) * TILE + row] = ra[i].z;
        as[(kq * 4 + 3) * TILE + row] = ra[i].w;
        const int k = f >> 5;
        const int n4 = f & 31;
        *(__local float4*)(bs + k * TILE + n4 * 4) = rb[i];
    }
}

// A consumer's 16 k-steps on one stage: rows tm*4 + i and 64 + tm*4 + i, columns tn*4 + j and
// 64 + tn*4 + j; two float4 of As and two of Bs per step, then 64 FMAs.
static inline void multiply_slice(__local const float* as, __local const float* bs, const int tm,
                           const int tn, float acc[8][NW]) {
#pragma unroll
    for (int k = 0; k < KS; k++) {
        const float4 a0 = *(__local const float4*)(as + k * TILE + tm * 4);
        const float4 a1 = *(__local const float4*)(as + k * TILE + HALF + tm * 4);
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        float b[NW];
#pragma unroll
        for (int h = 0; h < NGROUPS; h++) {
            const float4 bh = *(__local const float4*)(bs + k * TILE + h * TN * 4 + tn * 4);
            b[4 * h] = bh.x, b[4 * h + 1] = bh.y, b[4 * h + 2] = bh.z, b[4 * h + 3] = bh.w;
        }
#pragma unroll
        for (int i = 0; i < 8; i++) {
#pragma unroll
            for (int j = 0; j < NW; j++) {
                acc[i][j] = mad(a[i], b[j], acc[i][j]);
            }
        }
    }
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void ws_sgemm(const int M, const int N, const int K, const float alpha, const float beta,
              const __global float* restrict A, const __global float* restrict B,
              __global float* restrict C) {
    (void)M;  // the grid gives the M tile; kept in the signature for clarity
    // Aligned for the float4 accesses: NVIDIA faults on a misaligned 16-byte local access.
    __local float As[NSTAGE][KS][TILE] __attribute__((aligned(16)));
    __local float Bs[NSTAGE][KS][TILE] __attribute__((aligned(16)));

    const int lid = (int)get_local_id(0);
    const int n0 = (int)get_group_id(0) * TILE;
    const int m0 = (int)get_group_id(1) * TILE;
    const int nslices = K / KS;
    // Whole warps: CONSUMERS is a multiple of 32, so the role branch never splits a warp.
    const bool producer = lid >= CONSUMERS;
    const int p = lid - CONSUMERS;  // producer index (negative for consumers, unused there)
    const int tm = lid % 16;
    const int tn = lid / 16;
    const __global float* a_tile = A + m0 * K;  // this group's 128 rows of A
    const __global float* b_tile = B + n0;      // this group's 128 columns of B

    float acc[8][NW];
#pragma unroll
    for (int i = 0; i < 8; i++) {
#pragma unroll
        for (int j = 0; j < NW; j++) acc[i][j] = 0.0f;
    }

#ifdef PORTABLE
    // Lockstep: producers fill stage s, everyone meets, consumers multiply it, everyone meets.
    for (int t = 0; t < nslices; t++) {
        const int s = t % NSTAGE;
        if (producer) {
            float4 ra[PER_P], rb[PER_P];
            load_slice(a_tile, b_tile, K, N, t * KS, p, ra, rb);
            store_slice(&As[s][0][0], &Bs[s][0][0], p, ra, rb);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!producer) multiply_slice(&As[s][0][0], &Bs[s][0][0], tm, tn, acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (producer) return;
#else
    if (producer) {
        for (int t = 0; t < nslices; t++) {
            const int s = t % NSTAGE;
            float4 ra[PER_P], rb[PER_P];
            // Global loads first: their latency overlaps the wait for the stage to drain.
            load_slice(a_tile, b_tile, K, N, t * KS, p, ra, rb);
            // Stage s last held slice t - NSTAGE; consumers arrive on EMPTY(s) after reading it.
            if (t >= NSTAGE) BAR_SYNC(EMPTY(s));
            store_slice(&As[s][0][0], &Bs[s][0][0], p, ra, rb);
            BAR_ARRIVE(FULL(s));
        }
        // Every FULL arrival is made; nothing waits on producers any more.
        return;
    }
    for (int t = 0; t < nslices; t++) {
        const int s = t % NSTAGE;
        BAR_SYNC(FULL(s));
        multiply_slice(&As[s][0][0], &Bs[s][0][0], tm, tn, acc);
        // Only arrive where a producer will wait (slice t + NSTAGE exists): arrivals match waits,
        // so no barrier is left with a partial count when the group ends.
        if (t + NSTAGE < nslices) BAR_ARRIVE(EMPTY(s));
    }
#endif

    // Epilogue: C = alpha * acc + beta * C in float4 along N; C is not read when beta == 0.
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int m = m0 + (i < 4 ? tm * 4 + i : HALF + tm * 4 + (i - 4));
#pragma unroll
        for (int h = 0; h < NGROUPS; h++) {
            __global float4* c = (__global float4*)(C + m * N + n0 + h * TN * 4 + tn * 4);
            const float4 r = (float4)(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                                      acc[i][h * 4 + 3]);
            *c = beta != 0.0f ? alpha * r + beta * *c : alpha * r;
        }
    }
}
