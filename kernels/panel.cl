{% import "macros.cl" as macros %}
{% include "common.cl" %}

// Register-blocked GEMM for CPUs (GotoBLAS's micro-kernel written for OpenCL). Each work-item
// computes a BM x NR block of C (BM = MV vectors of LANES rows; LANES = VW unless the device's
// registers are narrower, see below) in MV x NR vector registers, streaming its
// panel of A (BM x K) and of B (K x NR) through the caches; the ITEMS_M x LN work-items of a group run
// one after another on one core and share those panels. Two forms:
// - A contiguous along M (outer products): each k, MV vector loads of A's column and NR scalar
//   broadcasts of B's row; no reduction. The host transposes the problem (Cᵀ = op(B)ᵀ op(A)ᵀ) when only
//   B is contiguous along its outer dimension, so this form serves every layout but A and B both along K.
// - A contiguous along K (dot products): sub-blocks of SR x SC elements of C, each a vector of LANES
//   partial sums along K, added up at the end.
// K runs in slices of KC (outer-product form), with a barrier after each. Edge blocks read rows and
// columns clamped to the last one inside C and store only what lies inside; in the outer-product form
// without PA, a block across M computes the BM rows that end at M (whole vectors) where M has that
// many. A K tail shorter than LANES runs scalar. Any M, N, K works; nothing is padded. C is addressed
// through a row and a column stride. Groups, taken by the runtime in the order of their linear id,
// are mapped to blocks of C in bands of BAND group rows: down a band's column of groups (they share
// B's panel), then to the band's next column (the band's A panels, still in the caches).
// Where too few groups would fill the cores, the host splits K (launch dimension 2 runs batch x
// k_splits): each split multiplies one range of K, in whole slices of KC, and adds alpha times its
// product into C atomically, after the host has scaled C by beta.
// With PA = 1 the group first copies its rows of each K slice of A into local memory (one
// aligned, contiguous buffer, zeros past M), where at least half its columns lie inside C, and its
// work-items read A's slice from there: A's rows,
// lda apart in global memory, map to few cache sets where lda is a multiple of a large power of two
// (4 KiB apart at 1024 floats), and the copy makes the slice one contiguous stream.
// A VW wider than the device's vector registers narrows to them: on CPUs the host passes -DVW_CAP,
// the native vector width of the precision (8 floats with AVX2, 16 with AVX-512). The kernel then
// runs vectors of LANES = VW_CAP elements, and VW / LANES times as many work-items along M, so that
// a work-item's MV x NR accumulators still fit the registers and a group still covers LM x MV x VW
// rows of C. A block so narrowed does not pack A (PA = 0): on an AVX2 CPU packing slowed each of the
// shipped 16-lane blocks (docs/PERFORMANCE.md, "A's slices packed into local memory").
#if defined(VW_CAP) && VW_CAP < VW
#define LANES VW_CAP
#undef PA
#define PA 0
#else
#define LANES VW
#endif
// In f16 storage, whose every element is converted as it is loaded (vload_half), the outer-product
// form converts B's values KB (16) steps of K at a time, a vector conversion per column, rather than
// one scalar conversion per broadcast (docs/KERNELS.md). In bf16, whose conversion is a shift, only
// where MV = 1, a broadcast per multiply-add: there it made the block 1.6-1.9x faster on PoCL, where
// with MV = 4 it cost more than it saved (docs/decisions/046-half-storage.md).
// STAGE_B: whether B is converted so.
#if defined(STORAGE_F16) || (defined(STORAGE_BF16) && MV == 1)
#define STAGE_B 1
#define KB 16
#else
#define STAGE_B 0
#endif
// On CPUs (clang with -DVW_CAP), in 16-bit storage, where C has at most STREAM_N columns (a decode
// step: M <= 16 before the host's transpose), A's panel is read once or a few times: the
// outer-product form then prefetches A's column A_AHEAD steps of K ahead, as data used once. Its
// rows, lda apart, are a few cache lines each, too short for the cores' own prefetchers. Only where
// lda is a multiple of STREAM_LDA: in f16 and bf16 on PoCL that made decode steps with ldb = 4096
// up to 1.7x faster, and did not help with other ldb; in f32, whose rows are twice as long, it made
// them slower (docs/decisions/050-panel-decode-prefetch.md).
#if defined(VW_CAP) && defined(__clang__) && STORAGE_16BIT
#define STREAM_A 1
#define STREAM_N 16
#define STREAM_LDA 4096
#define A_AHEAD 16
#else
#define STREAM_A 0
#endif
#define ITEMS_M (LM * (VW / LANES))
#define BAND 4
#define BM (MV * LANES)
#define GROUP_ROWS (ITEMS_M * BM)
#define SR 4
#define SC ((NR % 4 == 0) ? 4 : (NR % 2 == 0) ? 2 : 1)

#define PASTE(a, b) a##b
#define PASTE_VALUES(a, b) PASTE(a, b)
typedef PASTE_VALUES(real, LANES) realP;
#define VLOADP(p) PASTE_VALUES(vload, LANES)(0, (p))
#define VSTOREP(v, p) PASTE_VALUES(vstore, LANES)((v), 0, (p))
// LANES elements of A or B, and of C, at p, which need only an element's alignment (common.cl).
#define GLOADP(p) GLOAD_VEC(LANES, (p), false)
#define CLOADP(p) CLOAD_VEC(LANES, (p), false)
#define CSTOREP(v, p) CSTORE_VEC(LANES, (v), (p), false)
{{ macros::atomic_add() }}
// The sum of a vector's lanes.
inline real hsum(const realP v) {
#if LANES == 16
    const real8 h8 = v.lo + v.hi;
    const real4 h4 = h8.lo + h8.hi;
#elif LANES == 8
    const real4 h4 = v.lo + v.hi;
#else
    const real4 h4 = v;
#endif
    const real2 h2 = h4.lo + h4.hi;
    return h2.x + h2.y;
}

// c = alpha * v + beta * c for c = X[i]; C is not read when beta = 0.
#define UPDATE(X, i, v) CWRITE(X, i, (beta == ZERO) ? alpha * (v) : fma(alpha, (v), beta * CREAD(X, i)))
// UPDATE, or where the launch splits K (`adds`), c += alpha * v atomically (C holds beta * C, and
// the other splits add their parts). Without an atomic add (f64 without -DINT64_ATOMICS, 16-bit
// storage) the host never splits K.
#if defined(ATOMIC_ADD_REAL)
#define STORE(X, i, v) do { if (adds) { atomic_add_real((X) + (i), alpha * (v)); } else { UPDATE(X, i, v); } } while (0)
#else
#define STORE(X, i, v) UPDATE(X, i, v)
#endif

// B's element of column c at step p, as a real: where STAGE_B, from the values converted KB steps at
// a time (bk, from step p0 on).
#if STAGE_B
#define B_VALUE(c, p) bk[c][(p) - p0]
#else
#define B_VALUE(c, p) GREAD(bc[c], (p) * b_step)
#endif
// One step k = p of the outer-product form: MV vectors of A's column p (whole vectors when
// `rows_inside`, else element by element with zeros past M) times NR broadcast elements of B's row p.
#define OUTER_STEP(LOAD, rows_inside) { \
    realP av[MV]; \
    LOAD(rows_inside) \
    _Pragma("unroll") for (int c = 0; c < NR; c++) { \
        const realP b = (realP)(B_VALUE(c, p)); \
        _Pragma("unroll") for (int v = 0; v < MV; v++) { acc[v][c] = fma(av[v], b, acc[v][c]); } \
    } \
}
#if STAGE_B
// Steps p0 .. p0 + steps of K (at most KB) of B's columns bc into bk, converted: where all KB are
// there, a vector conversion per column, of one vector load where B is contiguous along K
// (b_step 1), else of KB element loads. Inlined: PoCL called it, spilling the accumulators around.
__attribute__((always_inline)) inline void load_b_steps(real bk[NR][KB], const __global greal* const bc[NR],
                                                        const int b_step, const int p0, const int steps) {
    #pragma unroll
    for (int c = 0; c < NR; c++) {
        if (steps == KB && b_step == 1) {
            vstore16(GLOAD_VEC(16, bc[c] + p0, false), 0, bk[c]);
        } else if (steps == KB) {
            ushort raw[KB];
            for (int q = 0; q < KB; q++) {
                raw[q] = ((const __global ushort*)bc[c])[(p0 + q) * b_step];
            }
#if defined(STORAGE_F16)
            vstore16(vload_half16(0, (const half*)raw), 0, bk[c]);
#else
            vstore16(bf16_to_float16(vload16(0, raw)), 0, bk[c]);
#endif
        } else {
            for (int q = 0; q < steps; q++) {
                bk[c][q] = GREAD(bc[c], (p0 + q) * b_step);
            }
        }
    }
}
#endif
#if PA
// A's column p from the group's copy of the slice (starting at k0): whole vectors, zeros past M.
#define LOAD_A_PACKED(rows_inside) { \
    const __local real* a = a_slice + (p - k0) * GROUP_ROWS + (int)get_local_id(0) * BM; \
    _Pragma("unroll") for (int v = 0; v < MV; v++) { av[v] = *(const __local realP*)(a + v * LANES); } \
}

// Copies rows g0 .. g0 + GROUP_ROWS of A's columns k0 .. k1 into `a_slice` (zeros past M), one
// column after another; each work-item of the group takes a consecutive range of columns. On CPUs
// (clang with -DVW_CAP) it also prefetches the same rows of the next slice's columns (below `ke`)
// into L2, which the group packs a whole slice of multiply-adds later: those loads, strided by lda,
// were a fifth of the block's time at 2048³-4096³ (docs/PERFORMANCE.md, "What limits the CPU
// block at the large squares"; into L1 it gained less).
inline void pack_a_slice(const int M, const int k0, const int k1, const int ke, const __global greal* restrict A,
                         const int lda, const int g0, __local real* restrict a_slice) {
    const int items = ITEMS_M * LN;
    const int item = get_local_id(1) * ITEMS_M + get_local_id(0);
    const int per_item = (k1 - k0 + items - 1) / items;
    const int pb = k0 + item * per_item, pe = min(k1, pb + per_item);
    const bool rows_inside = g0 + GROUP_ROWS <= M;
    for (int p = pb; p < pe; p++) {
        const __global greal* a = A + g0 + p * lda;
        __local real* s = a_slice + (p - k0) * GROUP_ROWS;
#if defined(VW_CAP) && defined(__clang__)
        if (p + KC < ke) {
            for (int r = 0; r < GROUP_ROWS; r += 64 / (int)sizeof(gbits)) {
                __builtin_prefetch(a + KC * lda + r, 0, 2);
            }
        }
#endif
        if (rows_inside) {
            for (int r = 0; r < GROUP_ROWS; r += LANES) {
                *(__local realP*)(s + r) = GLOADP(a + r);
            }
        } else {
            for (int r = 0; r < GROUP_ROWS; r++) {
                s[r] = (g0 + r < M) ? GREAD(a, r) : ZERO;
            }
        }
    }
}
#endif
// A's column p from global memory, for the block's rows from ia.
#define LOAD_A_COLUMN(rows_inside) { \
    const __global greal* a = A + ia + p * lda; \
    _Pragma("unroll") for (int v = 0; v < MV; v++) { \
        if (rows_inside) { \
            av[v] = GLOADP(a + v * LANES); \
        } else { \
            real e[LANES]; \
            for (int l = 0; l < LANES; l++) { e[l] = (ia + v * LANES + l < M) ? GREAD(a, v * LANES + l) : ZERO; } \
            av[v] = VLOADP(e); \
        } \
    } \
}

// The outer-product form (A contiguous along M) on the block at (i0, j0) and the range kb..ke of K.
// K runs in slices of KC with a barrier after each, so the work-items of a group (run in turn on one
// core) share a slice of A's and B's panels while it is in the caches. Work-items past the edge of C
// only join the barriers.
inline void panel_outer(const int M, const int N, const int kb, const int ke, const bool adds,
                        const real alpha, const real beta,
                        const __global greal* restrict A, const int lda,
                        const __global greal* restrict B, const int ldb, const int b_along_n,
                        __global creal* C, const int c_rs, const int c_cs, const int i0, const int j0,
                        __local real* restrict a_slice) {
    // Where column j0 + c of B starts and how to step along K (clamped to column N - 1).
    const int b_step = b_along_n ? ldb : 1;
    const __global greal* bc[NR];
    #pragma unroll
    for (int c = 0; c < NR; c++) {
        const int j = min(j0 + c, N - 1);
        bc[c] = B + (b_along_n ? j : j * ldb);
    }
    realP acc[MV][NR];
    #pragma unroll
    for (int v = 0; v < MV; v++) {
        #pragma unroll
        for (int c = 0; c < NR; c++) {
            acc[v][c] = (realP)(ZERO);
        }
    }
    const bool active = i0 < M && j0 < N;
#if PA
    // The group packs A's slices where at least half its columns lie inside C. With fewer, the copy
    // costs more than the reads it saves, and its work-items read A from global memory.
    const bool pack = N - (j0 - (int)get_local_id(1) * NR) >= LN * NR / 2;
#else
    const bool pack = false;
#endif
    // The first row the block computes. Where it reads A from global memory, a block that crosses M
    // computes the BM rows that end at row M instead, where M holds that many: whole vectors, as
    // inside C, rather than every row element by element with a bound check, each k. The rows above
    // i0 it computes again belong to the block before it, which stores them; this block stores its
    // own rows only.
    const int ia = (!pack && i0 < M && i0 + BM > M && M >= BM) ? M - BM : i0;
    const bool rows_inside = ia + BM <= M;
#if STREAM_A
    // A's panel streams: see STREAM_A.
    const bool stream_a = !pack && rows_inside && N <= STREAM_N && lda % STREAM_LDA == 0;
#endif
    for (int k0 = kb; k0 < ke; k0 += KC) {
        const int k1 = min(ke, k0 + KC);
#if PA
        pack_a_slice(M, k0, pack ? k1 : k0, ke, A, lda, i0 - (int)get_local_id(0) * BM, a_slice);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        // One loop, empty for work-items past C, its branches inside, and no return before the
        // stores: PoCL 5.0 (LLVM 16) aborted the process while forming its work-item loops on other
        // shapes (a loop behind each arm of a branch between the barriers, with or without an early
        // return: pocl/pocl#1435; docs/PERFORMANCE.md).
        const int k_end = active ? k1 : k0;
#if STAGE_B
        for (int p0 = k0; p0 < k_end; p0 += KB) {
            real bk[NR][KB];
            const int steps = min(KB, k_end - p0);
            load_b_steps(bk, bc, b_step, p0, steps);
            for (int p = p0; p < p0 + steps; p++) {
#else
        {
            for (int p = k0; p < k_end; p++) {
#endif
#if STREAM_A
                if (stream_a && p + A_AHEAD < ke) {
                    const __global gbits* ahead = (const __global gbits*)A + ia + (p + A_AHEAD) * lda;
                    for (int r = 0; r < BM; r += 64 / (int)sizeof(gbits)) {
                        __builtin_prefetch(ahead + r, 0, 0);
                    }
                }
#endif
#if PA
                if (pack) OUTER_STEP(LOAD_A_PACKED, true) else
#endif
                if (rows_inside) OUTER_STEP(LOAD_A_COLUMN, true) else OUTER_STEP(LOAD_A_COLUMN, false)
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    #pragma unroll
    for (int c = 0; c < NR; c++) {
        if (active && kb < ke && j0 + c < N) {
            #pragma unroll
            for (int v = 0; v < MV; v++) {
                __global creal* cp = C + (ia + v * LANES) * c_rs + (j0 + c) * c_cs;
                if (rows_inside && ia == i0 && c_rs == 1 && !adds) {
                    const realP r = alpha * acc[v][c];
                    CSTOREP((beta == ZERO) ? r : fma((realP)(beta), CLOADP(cp), r), cp);
                } else {
                    real e[LANES];
                    VSTOREP(acc[v][c], e);
                    for (int l = max(0, i0 - ia - v * LANES); l < LANES && ia + v * LANES + l < M; l++) {
                        STORE(cp, l * c_rs, e[l]);
                    }
                }
            }
        }
    }
}

// The dot-product form (A contiguous along K) on the block at (i0, j0) and the range kb..ke of K,
// SR x SC elements at a time.
inline void panel_dot(const int M, const int N, const int kb, const int ke, const bool adds,
                      const real alpha, const real beta,
                      const __global greal* restrict A, const int lda,
                      const __global greal* restrict B, const int ldb, const int b_along_n,
                      __global creal* C, const int c_rs, const int c_cs, const int i0, const int j0) {
    for (int r0 = i0; r0 < min(i0 + BM, M); r0 += SR) {
        for (int c0 = j0; c0 < min(j0 + NR, N); c0 += SC) {
            const __global greal* ar[SR];
            #pragma unroll
            for (int r = 0; r < SR; r++) {
                ar[r] = A + min(r0 + r, M - 1) * lda;
            }
            int jc[SC];
            #pragma unroll
            for (int c = 0; c < SC; c++) {
                jc[c] = min(c0 + c, N - 1);
            }
            realP acc[SR][SC];
            #pragma unroll
            for (int r = 0; r < SR; r++) {
                #pragma unroll
                for (int c = 0; c < SC; c++) {
                    acc[r][c] = (realP)(ZERO);
                }
            }
            int p = kb;
            for (; p + LANES <= ke; p += LANES) {
                realP av[SR];
                #pragma unroll
                for (int r = 0; r < SR; r++) {
                    av[r] = GLOADP(ar[r] + p);
                }
                #pragma unroll
                for (int c = 0; c < SC; c++) {
                    realP b;
                    if (b_along_n) {
                        real e[LANES];
                        for (int l = 0; l < LANES; l++) {
                            e[l] = GREAD(B, jc[c] + (p + l) * ldb);
                        }
                        b = VLOADP(e);
                    } else {
                        b = GLOADP(B + p + jc[c] * ldb);
                    }
                    #pragma unroll
                    for (int r = 0; r < SR; r++) {
                        acc[r][c] = fma(av[r], b, acc[r][c]);
                    }
                }
            }
            #pragma unroll
            for (int r = 0; r < SR; r++) {
                #pragma unroll
                for (int c = 0; c < SC; c++) {
                    real s = hsum(acc[r][c]);
                    for (int q = p; q < ke; q++) {
                        s = fma(GREAD(ar[r], q), B_AT(q, jc[c]), s);
                    }
                    if (r0 + r < M && c0 + c < N) {
                        STORE(C, (r0 + r) * c_rs + (c0 + c) * c_cs, s);
                    }
                }
            }
        }
    }
}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N.
// Dimension 2 of the launch is the batch times the splits of K: item b reads A, B and C shifted by
// b * a_bs, b_bs, c_bs.
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(ITEMS_M, LN, 1)))
void panel_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                   const __global greal* restrict A, const int a_off, const int lda,
                   const __global greal* restrict B, const int b_off, const int ldb,
                   __global creal* C, const int c_off, const int c_rs, const int c_cs,
                   const int a_bs, const int b_bs, const int c_bs, const int k_splits) {
    const int batch = get_global_id(2) / k_splits;
    const int split = get_global_id(2) % k_splits;
    const int k_chunk = ((K - 1) / (k_splits * KC) + 1) * KC;
    const int kb = min(K, split * k_chunk), ke = min(K, kb + k_chunk);
    // The group's block: the linear id's place in its band of BAND group rows (see the top).
    const int groups_m = get_num_groups(0), groups_n = get_num_groups(1);
    const int linear = get_group_id(0) + get_group_id(1) * groups_m;
    const int band = linear / (BAND * groups_n), first_m = band * BAND, rows = min(BAND, groups_m - first_m);
    const int in_band = linear - band * BAND * groups_n;
    const int i0 = ((first_m + in_band % rows) * ITEMS_M + get_local_id(0)) * BM;
    const int j0 = ((in_band / rows) * LN + get_local_id(1)) * NR;
    A += a_off + batch * a_bs;
    B += b_off + batch * b_bs;
    C += c_off + batch * c_bs;
{% if a == "m" %}    __local realP a_slice[PA ? KC * GROUP_ROWS / LANES : 1];
    panel_outer(M, N, kb, ke, k_splits > 1, alpha, beta, A, lda, B, ldb, {{ b == "n" }}, C, c_rs, c_cs, i0, j0,
                (__local real*)a_slice);
{% else %}    if (i0 < M && j0 < N && kb < ke) {
        panel_dot(M, N, kb, ke, k_splits > 1, alpha, beta, A, lda, B, ldb, {{ b == "n" }}, C, c_rs, c_cs, i0, j0);
    }
{% endif %}}
{% endfor %}{% endfor %}

{{ macros::scale_kernel() }}
