{% import "macros.cl" as macros %}
{% include "common.cl" %}

// Direct GEMM for small and skinny shapes (GEMV-like decode, M up to about 16). A work-group of
// NDIMD x KDIMD work-items computes WPTM rows by NDIMD * WPTN * VWD columns of C: each work-item keeps
// WPTM x (WPTN * VWD) partial sums over every KDIMD-th run of UKD adjacent k's (every KDIMD-th vector
// of VWD k's when B is contiguous along K, KU of them loaded at once), and the work-group adds them
// up in local memory. The faster-varying work-item
// index runs along whichever dimension B is contiguous in, and B (the large operand) is read in vectors
// of VWD along that dimension, so its loads are coalesced and wide. C is addressed through a row and a
// column stride, so the host can hand the kernel the transposed problem (Cᵀ = op(B)ᵀ op(A)ᵀ) to make M
// the small side. With KSPLIT > 1, launch dimension 2 runs batch x KSPLIT: each split sums one range
// of K, a multiple of the work-group's step of K, and adds alpha times its sums into C atomically
// (the host first scales C by beta); on NVIDIA GPUs (-DNVIDIA_PTX_RED) split 0 of each work-group's
// block of C stores alpha * its sums + beta * C and then releases the block by a flag, and the other
// splits add after it, as in kernels/xgemm.cl (in 16-bit storage into an f32 workspace, -DC_F32).
// With KSPLIT = 0 the host chooses the splits per launch (`k_splits`) and runs the KSPLIT = 1
// program where it does not split.
#define WGS (NDIMD * KDIMD)
#define CPW (WPTN * VWD)
// Rows of C reduced per round: all WPTM at once, or one at a time (RBR = 1), which needs WPTM times
// less local memory and so allows more work-items for many rows.
#define RROWS {% if RBR == 1 %}1{% else %}WPTM{% endif %}
// Where B is contiguous along K: the runs of VWD k's per column a step loads before it multiplies,
// UKK (UKD where UKK = 0) as long as B's values of a step take at most 64 registers.
#define KRUNS (UKK > 0 ? UKK : UKD)
#define KU (KRUNS * CPW * VWD <= 64 ? KRUNS : (64 / (CPW * VWD) > 0 ? 64 / (CPW * VWD) : 1))
// The column (within the work-group's tile) of a work-item's c-th column: WPTN vectors of VWD
// adjacent columns, NDIMD * VWD apart.
#define COLD(nd, c) (((nd) + ((c) / VWD) * NDIMD) * VWD + (c) % VWD)
// Whether every vector of w elements at X + i + j * ld (i a multiple of w) is aligned to its size
// (in storage bytes).
#define ALIGNED(X, ld, w) ((((size_t)(X)) % ((w) * sizeof(gbits)) == 0) && ((ld) % (w) == 0))

{{ macros::vector_helpers(dim="D", w=VWD) }}
{% if KSPLIT != 1 %}{{ macros::atomic_add() }}
{{ macros::split_flags() }}{% endif %}
// x[0..VWD) into r[b..b + VWD), zero past `count` elements; one vector load when all are inside.
#define LOADD(r, b, x, count, aligned) \
    if ((count) >= VWD) { const realD v_ = GLOADD((x), (aligned)); UNPACKD(r, (b), v_) } \
    else { for (int v_ = 0; v_ < VWD; v_++) { r[(b) + v_] = (v_ < (count)) ? GREAD((x), v_) : ZERO; } }

// Sums over k in [kb, K): K is the end of this split's range (the problem's K without splits).
inline void direct_body(const int M, const int N, const int kb, const int K, const real alpha, const real beta,
                        const __global greal* restrict A, const int lda, const int a_along_m,
                        const __global greal* restrict B, const int ldb, const int b_along_n,
                        __global creal* C, const int c_rs, const int c_cs, __local real* partial{% if KSPLIT != 1 %},
                        const int split, volatile __global uint* tile_flag, const uint epoch{% endif %}) {
    const int tid = get_local_id(1);
    const int nd = b_along_n ? tid % NDIMD : tid / KDIMD;
    const int kd = b_along_n ? tid / NDIMD : tid % KDIMD;
    const int m0 = get_group_id(0) * WPTM;
    const int n0 = get_group_id(1) * (NDIMD * CPW);
    const bool a_aligned = ALIGNED(A, lda, VWD);
    const bool b_aligned = ALIGNED(B, ldb, VWD);

    real acc[WPTM][CPW];
    #pragma unroll
    for (int wm = 0; wm < WPTM; wm++) {
        #pragma unroll
        for (int c = 0; c < CPW; c++) {
            acc[wm][c] = ZERO;
        }
    }
    const bool rows_inside = m0 + WPTM <= M;
    if (b_along_n) {
        // B contiguous along N: each step, UKD adjacent k's, each WPTN vectors of VWD columns. All
        // UKD * WPTN loads of B are issued before the multiply-adds that use them.
        for (int p0 = kb + kd * UKD; p0 < K; p0 += KDIMD * UKD) {
            const bool k_inside = p0 + UKD <= K;
            real b[UKD][CPW];
            #pragma unroll
            for (int u = 0; u < UKD; u++) {
                const bool k_valid = k_inside || p0 + u < K;
                #pragma unroll
                for (int wn = 0; wn < WPTN; wn++) {
                    const int j0 = n0 + COLD(nd, wn * VWD);
                    LOADD(b[u], wn * VWD, B + j0 + (p0 + u) * ldb, k_valid ? N - j0 : 0, b_aligned)
                }
            }
            #pragma unroll
            for (int wm = 0; wm < WPTM; wm++) {
                const int i = m0 + wm;
                const bool row_valid = rows_inside || i < M;
                #pragma unroll
                for (int u = 0; u < UKD; u++) {
                    const real a = (row_valid && (k_inside || p0 + u < K)) ? A_AT(i, p0 + u) : ZERO;
                    #pragma unroll
                    for (int c = 0; c < CPW; c++) {
                        acc[wm][c] = fma(a, b[u][c], acc[wm][c]);
                    }
                }
            }
        }
    } else {
        // B contiguous along K: each step, KU runs of VWD adjacent k's, KDIMD * VWD apart, of every
        // column (all loaded before the multiply-adds that use them) and of every row of A.
        for (int p0 = kb + kd * VWD; p0 < K; p0 += KDIMD * VWD * KU) {
            real b[KU][CPW * VWD];
            #pragma unroll
            for (int u = 0; u < KU; u++) {
                const int p = p0 + u * KDIMD * VWD;
                #pragma unroll
                for (int c = 0; c < CPW; c++) {
                    const int j = n0 + COLD(nd, c);
                    LOADD(b[u], c * VWD, B + p + j * ldb, (j < N) ? K - p : 0, b_aligned)
                }
            }
            #pragma unroll
            for (int u = 0; u < KU; u++) {
                const int p = p0 + u * KDIMD * VWD;
                real a[WPTM * VWD];
                #pragma unroll
                for (int wm = 0; wm < WPTM; wm++) {
                    const int i = m0 + wm;
                    if (!(rows_inside || i < M)) {
                        for (int v = 0; v < VWD; v++) {
                            a[wm * VWD + v] = ZERO;
                        }
                    } else if (a_along_m) {
                        for (int v = 0; v < VWD; v++) {
                            a[wm * VWD + v] = (p + v < K) ? GREAD(A, i + (p + v) * lda) : ZERO;
                        }
                    } else {
                        LOADD(a, wm * VWD, A + p + i * lda, K - p, a_aligned)
                    }
                }
                #pragma unroll
                for (int c = 0; c < CPW; c++) {
                    #pragma unroll
                    for (int wm = 0; wm < WPTM; wm++) {
                        #pragma unroll
                        for (int v = 0; v < VWD; v++) {
                            acc[wm][c] = fma(a[wm * VWD + v], b[u][c * VWD + v], acc[wm][c]);
                        }
                    }
                }
            }
        }
    }

{% if KSPLIT != 1 %}#if defined(NVIDIA_PTX_RED)
    // Split 0 stores; the others wait until it has released this block of C, then add.
    const bool adds = split != 0;
    if (adds && kb < K) {
        wait_for_release(tile_flag, epoch, tid);
    }
#else
    const bool adds = true;
#endif
{% endif %}    // The work-group adds up the KDIMD partial sums of each output in local memory, RROWS rows of C
    // per round: work-item o of the group finishes output o of the round's rows.
    #pragma unroll
    for (int r0 = 0; r0 < WPTM; r0 += RROWS) {
        #pragma unroll
        for (int wr = 0; wr < RROWS; wr++) {
            #pragma unroll
            for (int c = 0; c < CPW; c++) {
                partial[(wr * CPW + c) * WGS + tid] = acc[r0 + wr][c];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int o = tid; o < RROWS * CPW * NDIMD; o += WGS) {
            const int w = o / NDIMD;
            const int ndo = o % NDIMD;
            const int c = w % CPW;
            real sum = ZERO;
            for (int k2 = 0; k2 < KDIMD; k2++) {
                const int t = b_along_n ? ndo + k2 * NDIMD : k2 + ndo * KDIMD;
                sum += partial[w * WGS + t];
            }
            const int i = m0 + r0 + w / CPW;
            const int j = n0 + COLD(ndo, c);
            if (i < M && j < N{% if KSPLIT != 1 %} && kb < K{% endif %}) {
                __global creal* cp = C + i * c_rs + j * c_cs;
{% if KSPLIT != 1 %}                if (adds) {
                    atomic_add_real(cp, alpha * sum);
                } else {
                    CWRITE(cp, 0, (beta == ZERO) ? alpha * sum : fma(alpha, sum, beta * CREAD(cp, 0)));
                }
{% else %}                CWRITE(cp, 0, (beta == ZERO) ? alpha * sum : fma(alpha, sum, beta * CREAD(cp, 0)));
{% endif %}            }
        }
        if (r0 + RROWS < WPTM) {
            barrier(CLK_LOCAL_MEM_FENCE); // the next round overwrites `partial`
        }
    }
{% if KSPLIT != 1 %}#if defined(NVIDIA_PTX_RED)
    if (!adds) {
        release_tile(tile_flag, epoch, tid);
    }
#endif
{% endif %}}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N.
// Dimension 2 of the launch is the batch times the splits of K: item b reads A, B and C shifted by
// b * a_bs, b_bs, c_bs. `k_splits` is the host's number of splits for KSPLIT = 0, ignored otherwise.
// On NVIDIA GPUs a program that splits K also takes one flag per block of C and batch item, which
// split 0 sets to `epoch`, a value the host has never given these flags before.
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(1, WGS, 1)))
void direct_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                    const __global greal* restrict A, const int a_off, const int lda,
                    const __global greal* restrict B, const int b_off, const int ldb,
                    __global creal* C, const int c_off, const int c_rs, const int c_cs,
                    const int a_bs, const int b_bs, const int c_bs, const int k_splits{% if KSPLIT != 1 %}
#if defined(NVIDIA_PTX_RED)
                    , volatile __global uint* tile_flags, const uint epoch
#endif
{% endif %}) {
    __local real partial[RROWS * CPW * WGS];
{% if KSPLIT != 1 %}    const int splits = {% if KSPLIT == 0 %}k_splits{% else %}KSPLIT{% endif %};
    const int batch = get_global_id(2) / splits;
    const int split = get_global_id(2) % splits;
    // This split's range of K, [kb, ke): whole steps of the work-group (KDIMD runs of a work-item's
    // k's), so that vector loads stay aligned.
    const int kstep = KDIMD * ({{ b == "n" }} ? UKD : VWD * KU);
    const int kchunk = ((K - 1) / (splits * kstep) + 1) * kstep;
    const int kb = (int)min((long)K, (long)split * kchunk);
    const int ke = (int)min((long)K, (long)kb + kchunk);
#if defined(NVIDIA_PTX_RED)
    volatile __global uint* tile_flag = tile_flags +
        (batch * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) + get_group_id(0);
#else
    volatile __global uint* tile_flag = 0;
    const uint epoch = 0;
#endif
{% else %}    const int batch = get_global_id(2);
    const int kb = 0;
    const int ke = K;
{% endif %}    direct_body(M, N, kb, ke, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }}, B + b_off + batch * b_bs, ldb,
                {{ b == "n" }}, C + c_off + batch * c_bs, c_rs, c_cs, partial{% if KSPLIT != 1 %}, split, tile_flag, epoch{% endif %});
}
{% endfor %}{% endfor %}
{% if KSPLIT != 1 %}
{{ macros::scale_kernel() }}
{% endif %}
