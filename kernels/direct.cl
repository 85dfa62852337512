{% include "common.cl" %}

// Direct GEMM for small and skinny shapes (GEMV-like decode, M up to about 16). A work-group of
// NDIMD x KDIMD work-items computes WPTM rows by NDIMD * WPTN columns of C: each work-item keeps
// WPTM x WPTN partial sums over every KDIMD-th k, and the work-group adds them up in local memory.
// The faster-varying work-item index runs along whichever dimension B is contiguous in, so loads of
// B (the large operand) are coalesced. C is addressed through a row and a column stride, so the host
// can hand the kernel the transposed problem (Cᵀ = op(B)ᵀ op(A)ᵀ) to make M the small side.
#define WGS (NDIMD * KDIMD)
#define OUTS (WPTM * WPTN)

inline void direct_body(const int M, const int N, const int K, const real alpha, const real beta,
                        const __global real* restrict A, const int lda, const int a_along_m,
                        const __global real* restrict B, const int ldb, const int b_along_n,
                        __global real* C, const int c_rs, const int c_cs, __local real* partial) {
    const int tid = get_local_id(1);
    const int nd = b_along_n ? tid % NDIMD : tid / KDIMD;
    const int kd = b_along_n ? tid / NDIMD : tid % KDIMD;
    const int m0 = get_group_id(0) * WPTM;
    const int n0 = get_group_id(1) * (NDIMD * WPTN);

    real acc[WPTM][WPTN];
    #pragma unroll
    for (int wm = 0; wm < WPTM; wm++) {
        #pragma unroll
        for (int wn = 0; wn < WPTN; wn++) {
            acc[wm][wn] = ZERO;
        }
    }
    const bool rows_inside = m0 + WPTM <= M;
    for (int p = kd; p < K; p += KDIMD) {
        real b[WPTN];
        #pragma unroll
        for (int wn = 0; wn < WPTN; wn++) {
            const int j = n0 + nd + wn * NDIMD;
            b[wn] = (j < N) ? B_AT(p, j) : ZERO;
        }
        #pragma unroll
        for (int wm = 0; wm < WPTM; wm++) {
            const int i = m0 + wm;
            const real a = (rows_inside || i < M) ? A_AT(i, p) : ZERO;
            #pragma unroll
            for (int wn = 0; wn < WPTN; wn++) {
                acc[wm][wn] = fma(a, b[wn], acc[wm][wn]);
            }
        }
    }

    #pragma unroll
    for (int wm = 0; wm < WPTM; wm++) {
        #pragma unroll
        for (int wn = 0; wn < WPTN; wn++) {
            partial[(wm * WPTN + wn) * WGS + tid] = acc[wm][wn];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Work-item o of the group finishes output o: the sum over the KDIMD partials of that output.
    for (int o = tid; o < OUTS * NDIMD; o += WGS) {
        const int w = o / NDIMD;
        const int ndo = o % NDIMD;
        const int wm = w / WPTN;
        const int wn = w % WPTN;
        real sum = ZERO;
        for (int k2 = 0; k2 < KDIMD; k2++) {
            const int t = b_along_n ? ndo + k2 * NDIMD : k2 + ndo * KDIMD;
            sum += partial[w * WGS + t];
        }
        const int i = m0 + wm;
        const int j = n0 + ndo + wn * NDIMD;
        if (i < M && j < N) {
            __global real* c = C + i * c_rs + j * c_cs;
            *c = (beta == ZERO) ? alpha * sum : fma(alpha, sum, beta * *c);
        }
    }
}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N.
// Dimension 2 of the launch is the batch: item b reads A, B and C shifted by b * a_bs, b_bs, c_bs.
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(1, WGS, 1)))
void direct_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                    const __global real* restrict A, const int a_off, const int lda,
                    const __global real* restrict B, const int b_off, const int ldb,
                    __global real* C, const int c_off, const int c_rs, const int c_cs,
                    const int a_bs, const int b_bs, const int c_bs) {
    const int batch = get_global_id(2);
    __local real partial[OUTS * WGS];
    direct_body(M, N, K, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }}, B + b_off + batch * b_bs, ldb,
                {{ b == "n" }}, C + c_off + batch * c_bs, c_rs, c_cs, partial);
}
{% endfor %}{% endfor %}
