{% include "common.cl" %}

// Tensor-core GEMM (f16, bf16 or tf32 products, f32 accumulation). A work-group of WM x WN warps of
// 32 work-items computes an MWG x NWG tile of C; each warp computes an (MWG / WM) x (NWG / WN) part of
// it as a grid of 16 x 8 tiles, each one `mma.sync` per KS-deep step of K (m16n8k16 for f16 and bf16,
// m16n8k8 for tf32). The K loop stages KWG-deep slices of op(A) and op(B) in local memory as stored
// (raw 16- or 32-bit elements; tf32 rounded on the store), each row of op(A) and each column of op(B)
// contiguous along K and padded by 16 bytes, so that a fragment register is one 32-bit local load
// and the 32 loads of a warp hit 32 banks. An operand contiguous along K is copied in 16-byte
// vectors; one contiguous along M / N is transposed on its way in (pairs of k's per 32-bit store for
// 16-bit elements). Two buffers: the next slice is loaded into registers before the current one is
// multiplied and stored into the other buffer after, one barrier per slice. Tiles that cross the
// edge of C or of K are zero-filled; any M, N, K works. C is column-major, read only where beta != 0.
//
// Build options: -DSTORAGE_F16 (IEEE binary16 A, B and C; converted by OpenCL's core vload_half /
// vstore_half_rte), -DSTORAGE_BF16 (bfloat16, converted by bit operations) or -DCOMPUTE_TF32 (f32
// A, B and C, products of A and B rounded to tf32). alpha, beta and the accumulators are f32.
// -DNVIDIA_MMA (NVIDIA GPUs of compute capability 8.0 or later) runs the products as inline PTX
// `mma.sync`. Without it each `mma.sync` is emulated: the warp's fragment registers are exchanged
// through local memory (the buffer the K loop is not reading) and every work-item computes its four
// results from them, so that any OpenCL device runs the very same slices, fragment loads and
// stores of C. The emulation is for testing the kernel's indexing (CI runs it on PoCL): it is slow,
// and fewfit's trees pick the family on NVIDIA GPUs only.
#if defined(STORAGE_F16) || defined(STORAGE_BF16)
#define ELEM_BYTES 2
typedef ushort store_t;
#elif defined(COMPUTE_TF32)
#define ELEM_BYTES 4
typedef uint store_t;
#else
#error "the mma family builds with -DSTORAGE_F16, -DSTORAGE_BF16 or -DCOMPUTE_TF32"
#endif

#define WGS (32 * WM * WN)
// Rows and columns of C per warp, and its 16 x 8 tiles along each.
#define WTM (MWG / WM)
#define WTN (NWG / WN)
#define TM (WTM / 16)
#define TN (WTN / 8)
// The depth of one mma.sync, and of half of it: a thread's fragment registers hold k's
// [KH * h + PER_WORD * t, + PER_WORD) for h = 0, 1 (t = lane % 4).
#define KS (ELEM_BYTES == 2 ? 16 : 8)
#define KH (KS / 2)
// Elements per 32-bit register, and per 16-byte vector.
#define PER_WORD (4 / ELEM_BYTES)
#define VEC (16 / ELEM_BYTES)
// A slice row: KWG elements and 16 bytes of padding. Rows are then 4 words apart modulo 8 (KWG is a
// multiple of 16), so the 8 rows x 4 words of a fragment load lie in 32 distinct banks.
#define ROW (KWG + VEC)
// One buffer: MWG rows of op(A), then NWG columns of op(B).
#define SLICE ((MWG + NWG) * ROW)
// The 16-byte vectors of a slice of A / B that each work-item loads.
#define LOADS_A (MWG * KWG / (VEC * WGS))
#define LOADS_B (NWG * KWG / (VEC * WGS))
// The emulation's exchange: 6 registers of the 32 lanes per warp.
#define EXCHANGE_WORDS (6 * 32)

// Whether every 16-byte vector at X + i + j * ld (i a multiple of VEC) is aligned to 16 bytes.
#define ALIGNED16(X, ld) ((((size_t)(X)) % 16 == 0) && ((ld) % VEC == 0))

// The loops over steps of K and tiles, unrolled on NVIDIA (the accumulators and fragments stay in
// registers); the emulation keeps them loops, since PoCL compiles every copy of its barriers.
#if defined(NVIDIA_MMA)
#define UNROLL_MMA _Pragma("unroll")
#else
#define UNROLL_MMA _Pragma("unroll 1")
#endif

// The stored element at p, in address space `space`, as f32.
#if defined(STORAGE_F16)
#define READ_FLOAT(p, space) vload_half(0, (const space half*)(p))
#elif defined(STORAGE_BF16)
#define READ_FLOAT(p, space) as_float((uint)*(p) << 16)
#else
#define READ_FLOAT(p, space) as_float(*(p))
#endif

// f32 as a stored element: f16 rounded to nearest even by vstore_half_rte; bf16 rounded to nearest
// even by bits, a NaN kept a (quiet) NaN; f32 as it is.
inline void store_float(__global store_t* p, const float v) {
#if defined(STORAGE_F16)
    vstore_half_rte(v, 0, (__global half*)p);
#elif defined(STORAGE_BF16)
    const uint u = as_uint(v);
    *p = (ushort)(((u & 0x7FFFFFFFu) > 0x7F800000u) ? (u >> 16) | 0x40u : (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
#else
    *p = as_uint(v);
#endif
}

#if ELEM_BYTES == 4
// An f32 rounded to tf32 (10 mantissa bits; to nearest, ties away from zero), as bits: by
// cvt.rna.tf32.f32 on NVIDIA, else by the same rounding in bit operations (infinities and NaNs as
// they are).
inline uint to_tf32(const uint x) {
#if defined(NVIDIA_MMA)
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(as_float(x)));
    return r;
#else
    return ((x & 0x7F800000u) == 0x7F800000u) ? x : (x + 0x1000u) & 0xFFFFE000u;
#endif
}
#endif

// VEC stored elements at x as 16 raw bytes: one 16-byte load where `aligned` and all `valid`, else
// element by element, those from `valid` on zero (and not read).
inline uint4 load_vector(const __global store_t* x, const bool aligned, const int valid) {
    if (aligned && valid >= VEC) {
        return *(const __global uint4*)x;
    }
    uint w[4] = {0, 0, 0, 0};
    UNROLL_MMA
    for (int i = 0; i < VEC; i++) {
        if (i < valid) {
            w[i / PER_WORD] |= (uint)x[i] << (32 / PER_WORD * (i % PER_WORD));
        }
    }
    return (uint4)(w[0], w[1], w[2], w[3]);
}

// Element i of the VEC stored elements in v, as bits.
inline uint element_of(const uint4 v, const int i) {
    const uint w = ((const uint*)&v)[i / PER_WORD];
#if ELEM_BYTES == 2
    return (w >> (16 * (i % 2))) & 0xFFFFu;
#else
    return w;
#endif
}

// Loads this work-item's share of the R x KWG slice of an operand (R rows of op(A) or columns of
// op(B)) at outer index o0 and depth k0 into r, R * KWG / (VEC * WGS) vectors of 16 bytes, zero
// outside `outer` x K. Contiguous along its outer dimension (`along_outer`): VEC outer indices at
// one k per vector, PER_WORD consecutive k's per work-item at a time (what one 32-bit store of
// store_slice takes), consecutive work-items along K: their stores of one outer index then fall on
// consecutive banks (along the outer dimension, rows 8 apart share banks: up to 16-way conflicts).
// Contiguous along K: VEC k's of one outer index per vector, consecutive work-items along K.
inline void load_slice(uint4* r, const __global store_t* X, const int ld, const bool along_outer, const bool aligned,
                       const int outer, const int K, const int o0, const int k0, const int R, const int tid) {
    const int loads = R * KWG / (VEC * WGS);
    if (along_outer) {
        UNROLL_MMA
        for (int l = 0; l < loads / PER_WORD; l++) {
            const int u = tid + l * WGS;
            const int o = (u / (KWG / PER_WORD)) * VEC;
            UNROLL_MMA
            for (int j = 0; j < PER_WORD; j++) {
                const int k = (u % (KWG / PER_WORD)) * PER_WORD + j;
                const int valid = (k0 + k < K) ? outer - (o0 + o) : 0;
                r[l * PER_WORD + j] = load_vector(X + (o0 + o) + (k0 + k) * ld, aligned, valid);
            }
        }
    } else {
        UNROLL_MMA
        for (int l = 0; l < loads; l++) {
            const int v = tid + l * WGS;
            const int k = (v % (KWG / VEC)) * VEC;
            const int o = v / (KWG / VEC);
            const int valid = (o0 + o < outer) ? K - (k0 + k) : 0;
            r[l] = load_vector(X + (k0 + k) + (o0 + o) * ld, aligned, valid);
        }
    }
}

// Stores what load_slice put in r into the slice lm (row o, depth k at lm[o * ROW + k]): tf32
// rounded, 16-bit elements as they are.
inline void store_slice(__local store_t* lm, const uint4* r, const bool along_outer, const int R, const int tid) {
    const int loads = R * KWG / (VEC * WGS);
    if (along_outer) {
        UNROLL_MMA
        for (int l = 0; l < loads / PER_WORD; l++) {
            const int u = tid + l * WGS;
            const int o = (u / (KWG / PER_WORD)) * VEC;
            const int k = (u % (KWG / PER_WORD)) * PER_WORD;
            UNROLL_MMA
            for (int e = 0; e < VEC; e++) {
#if ELEM_BYTES == 2
                const uint w = element_of(r[2 * l], e) | (element_of(r[2 * l + 1], e) << 16);
#else
                const uint w = to_tf32(element_of(r[l], e));
#endif
                *(__local uint*)(lm + (o + e) * ROW + k) = w;
            }
        }
    } else {
        UNROLL_MMA
        for (int l = 0; l < loads; l++) {
            const int v = tid + l * WGS;
            const int k = (v % (KWG / VEC)) * VEC;
            const int o = v / (KWG / VEC);
#if ELEM_BYTES == 2
            const uint4 w = r[l];
#else
            const uint4 w = (uint4)(to_tf32(r[l].x), to_tf32(r[l].y), to_tf32(r[l].z), to_tf32(r[l].w));
#endif
            *(__local uint4*)(lm + o * ROW + k) = w;
        }
    }
}

// The 32-bit register at row (of op(A)) or column (of op(B)) `o`, depth k of a slice.
#define FRAGMENT(sl, o, k) (*(const __local uint*)((sl) + (o) * ROW + (k)))

#if defined(NVIDIA_MMA)
// d += a b for one 16 x 8 tile, by the warp's tensor cores.
inline void mma(float* d, const uint* a, const uint* b) {
#if ELEM_BYTES == 4
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{ %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, { %10, %11, %12, %13 };"
#elif defined(STORAGE_BF16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{ %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, { %10, %11, %12, %13 };"
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{ %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, { %10, %11, %12, %13 };"
#endif
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                   "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]));
}
#define MMA(d, a, b) mma((d), (a), (b))
#else
// The emulation of mma: every work-item of the work-group calls it at once (it holds barriers).
// Each lane puts its fragment registers into the warp's exchange x (register i of lane l at
// x[i * 32 + l]: a0-a3, then b0-b1), reads back the elements of op(A)'s rows and op(B)'s columns
// of its four results by PTX's fragment layout, and adds their products in f32.
inline void mma_emulated(float* d, const uint* a, const uint* b, __local uint* x, const int lane) {
    UNROLL_MMA
    for (int i = 0; i < 4; i++) {
        x[i * 32 + lane] = a[i];
    }
    x[4 * 32 + lane] = b[0];
    x[5 * 32 + lane] = b[1];
    barrier(CLK_LOCAL_MEM_FENCE);
    const __local store_t* e = (const __local store_t*)x;
    const int g = lane / 4;
    const int t = lane % 4;
    for (int i = 0; i < 4; i++) {
        // c0, c1: row g, columns 2t, 2t + 1; c2, c3: row g + 8.
        const int row = g + (i / 2) * 8;
        const int col = 2 * t + i % 2;
        float s = d[i];
        for (int k = 0; k < KS; k++) {
            // A(row, k): register (row / 8) + 2 (k / KH) of lane (row % 8) * 4 + (k % KH) / PER_WORD.
            const int wa = (row / 8 + 2 * (k / KH)) * 32 + (row % 8) * 4 + (k % KH) / PER_WORD;
            // B(k, col): register 4 + k / KH of lane col * 4 + (k % KH) / PER_WORD.
            const int wb = (4 + k / KH) * 32 + col * 4 + (k % KH) / PER_WORD;
            const float x_a = READ_FLOAT(e + wa * PER_WORD + k % PER_WORD, __local);
            s = fma(x_a, READ_FLOAT(e + wb * PER_WORD + k % PER_WORD, __local), s);
        }
        d[i] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#define MMA(d, a, b) mma_emulated((d), (a), (b), exchange, lane)
#endif


inline void mma_body(const int M, const int N, const int K, const float alpha, const float beta,
                     const __global store_t* restrict A, const int lda, const bool a_along_m,
                     const __global store_t* restrict B, const int ldb, const bool b_along_n,
                     __global store_t* C, const int ldc, __local store_t* lm) {
    const int tid = get_local_id(0) + get_local_id(1) * (32 * WM);
    const int lane = get_local_id(0) % 32;
    const int g = lane / 4;
    const int t = lane % 4;
    // This warp's rows and columns of the tile.
    const int wr = (get_local_id(0) / 32) * WTM;
    const int wc = get_local_id(1) * WTN;
    const int m0 = get_group_id(0) * MWG;
    const int n0 = get_group_id(1) * NWG;
    const bool a_aligned = ALIGNED16(A, lda);
    const bool b_aligned = ALIGNED16(B, ldb);
    uint4 ra[LOADS_A];
    uint4 rb[LOADS_B];

    // Accumulators of the warp's TM x TN tiles: c0-c3 each (PTX's layout).
    float acc[TM][TN][4];
    UNROLL_MMA
    for (int im = 0; im < TM; im++) {
        UNROLL_MMA
        for (int jn = 0; jn < TN; jn++) {
            UNROLL_MMA
            for (int i = 0; i < 4; i++) {
                acc[im][jn][i] = 0.0f;
            }
        }
    }

    // Slice 0 into buffer 0.
    load_slice(ra, A, lda, a_along_m, a_aligned, M, K, m0, 0, MWG, tid);
    store_slice(lm, ra, a_along_m, MWG, tid);
    load_slice(rb, B, ldb, b_along_n, b_aligned, N, K, n0, 0, NWG, tid);
    store_slice(lm + MWG * ROW, rb, b_along_n, NWG, tid);
    barrier(CLK_LOCAL_MEM_FENCE);
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += KWG) {
        // Load the next slice into registers now and store it into the other buffer after the
        // multiply.
        const bool more = k0 + KWG < K;
        if (more) {
            load_slice(ra, A, lda, a_along_m, a_aligned, M, K, m0, k0 + KWG, MWG, tid);
            load_slice(rb, B, ldb, b_along_n, b_aligned, N, K, n0, k0 + KWG, NWG, tid);
        }
        const __local store_t* a_sl = lm + buf * SLICE;
        const __local store_t* b_sl = a_sl + MWG * ROW;
#if !defined(NVIDIA_MMA)
        // The emulation's exchange, in the buffer that no one reads until the store after the
        // multiply (its EXCHANGE_WORDS per warp fit: the variant's constraints make a buffer at least
        // 1024 bytes per warp).
        __local uint* exchange =
            (__local uint*)(lm + (buf ^ 1) * SLICE) + (get_local_id(0) / 32 + get_local_id(1) * WM) * EXCHANGE_WORDS;
#endif
        UNROLL_MMA
        for (int kk = 0; kk < KWG; kk += KS) {
            // This step's fragments: A's rows g, g + 8 and B's column g of each tile, at k's
            // [PER_WORD * t, + PER_WORD) and KH further (PTX's m16n8k16 / m16n8k8 layouts).
            const int k = kk + PER_WORD * t;
            uint af[TM][4];
            uint bf[TN][2];
            UNROLL_MMA
            for (int im = 0; im < TM; im++) {
                const int r = wr + im * 16 + g;
                af[im][0] = FRAGMENT(a_sl, r, k);
                af[im][1] = FRAGMENT(a_sl, r + 8, k);
                af[im][2] = FRAGMENT(a_sl, r, k + KH);
                af[im][3] = FRAGMENT(a_sl, r + 8, k + KH);
            }
            UNROLL_MMA
            for (int jn = 0; jn < TN; jn++) {
                const int c = wc + jn * 8 + g;
                bf[jn][0] = FRAGMENT(b_sl, c, k);
                bf[jn][1] = FRAGMENT(b_sl, c, k + KH);
            }
            UNROLL_MMA
            for (int im = 0; im < TM; im++) {
                UNROLL_MMA
                for (int jn = 0; jn < TN; jn++) {
                    MMA(acc[im][jn], af[im], bf[jn]);
                }
            }
        }
        if (more) {
            store_slice(lm + (buf ^ 1) * SLICE, ra, a_along_m, MWG, tid);
            store_slice(lm + (buf ^ 1) * SLICE + MWG * ROW, rb, b_along_n, NWG, tid);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        buf ^= 1;
    }

    // C = alpha * acc + beta * C inside C (not read where beta = 0): c0, c1 at row g, columns 2t,
    // 2t + 1 of each tile; c2, c3 at row g + 8.
    UNROLL_MMA
    for (int im = 0; im < TM; im++) {
        UNROLL_MMA
        for (int jn = 0; jn < TN; jn++) {
            UNROLL_MMA
            for (int i = 0; i < 4; i++) {
                const int row = m0 + wr + im * 16 + g + (i / 2) * 8;
                const int col = n0 + wc + jn * 8 + 2 * t + i % 2;
                if (row < M && col < N) {
                    __global store_t* c = C + row + col * ldc;
                    const float r = alpha * acc[im][jn][i];
                    store_float(c, (beta == 0.0f) ? r : fma(beta, READ_FLOAT(c, __global), r));
                }
            }
        }
    }
}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N. The
// arguments are those of xgemm's unsplit entry points: dimension 2 of the launch is the batch, item
// b reading A, B and C shifted by b * a_bs, b_bs, c_bs; `k_splits` is always 1 (the family does not
// split K).
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(32 * WM, WN, 1)))
void mma_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                 const __global store_t* restrict A, const int a_off, const int lda,
                 const __global store_t* restrict B, const int b_off, const int ldb,
                 __global store_t* C, const int c_off, const int ldc,
                 const int a_bs, const int b_bs, const int c_bs, const int k_splits) {
    __local store_t lm[2 * SLICE] __attribute__((aligned(16)));
    const int batch = get_global_id(2);
    mma_body(M, N, K, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }}, B + b_off + batch * b_bs, ldb,
             {{ b == "n" }}, C + c_off + batch * c_bs, ldc, lm);
}
{% endfor %}{% endfor %}
