{% import "macros.cl" as macros %}
{% include "common.cl" %}

// Tiled GEMM. A work-group computes an MWG x NWG tile of C with MDIMC x NDIMC work-items; each
// work-item holds an MWI x NWI register tile. The K loop stages KWG-deep slices of A and B in local
// memory (when SA / SB are 1), loaded by MDIMA x KDIMA and NDIMB x KDIMB work-item shapes. Tiles that
// cross the edge of C or of K are loaded with bounds checks and zero fill; interior tiles with
// vector loads. Any M, N, K works; nothing is padded or copied.
#define WGS (MDIMC * NDIMC)
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define KDIMA (WGS / MDIMA)
#define KDIMB (WGS / NDIMB)

// The row (within the tile) of a work-item's mi-th register row, and likewise for columns.
#if STRM == 0
#define ROW_OF(tm, mi) ((tm) * MWI + (mi))
#else
#define ROW_OF(tm, mi) (((mi) / VWM) * (MDIMC * VWM) + (tm) * VWM + (mi) % VWM)
#endif
#if STRN == 0
#define COL_OF(tn, ni) ((tn) * NWI + (ni))
#else
#define COL_OF(tn, ni) (((ni) / VWN) * (NDIMC * VWN) + (tn) * VWN + (ni) % VWN)
#endif

{{ macros::vector_helpers(dim="M", w=VWM) }}
{{ macros::vector_helpers(dim="N", w=VWN) }}
// Stages the R x KWG slice of an operand (R = MWG for A, NWG for B) starting at outer index o0 and
// depth k0 into lm[kk * R + r], zero-filling what lies outside `outer` x K.
// along_outer: the operand is contiguous along its outer dimension and is loaded by DIMO x (WGS / DIMO)
// work-items with vectors of VW; otherwise it is contiguous along K and loaded element by element.
{% if SA == 1 %}{{ macros::stage(name="a", R="MWG", DIMO="MDIMA", dim="M") }}{% endif %}
{% if SB == 1 %}{{ macros::stage(name="b", R="NWG", DIMO="NDIMB", dim="N") }}{% endif %}
inline void xgemm_body(const int M, const int N, const int K, const real alpha, const real beta,
                       const __global real* restrict A, const int lda, const int a_along_m,
                       const __global real* restrict B, const int ldb, const int b_along_n,
                       __global real* C, const int ldc, __local real* alm, __local real* blm) {
    const int tm = get_local_id(0);
    const int tn = get_local_id(1);
    const int tid = tm + tn * MDIMC;
    const int m0 = get_group_id(0) * MWG;
    const int n0 = get_group_id(1) * NWG;

    // Accumulators: for each of the NWI columns, MWI / VWM vectors of VWM rows (SIMD on CPUs).
    realM acc[MWI / VWM][NWI];
    #pragma unroll
    for (int mv = 0; mv < MWI / VWM; mv++) {
        #pragma unroll
        for (int ni = 0; ni < NWI; ni++) {
            acc[mv][ni] = (realM)(ZERO);
        }
    }

    for (int k0 = 0; k0 < K; k0 += KWG) {
{% if SA == 1 %}        stage_a(alm, A, lda, a_along_m, M, K, m0, k0, tid);
{% endif %}{% if SB == 1 %}        stage_b(blm, B, ldb, b_along_n, N, K, n0, k0, tid);
{% endif %}{% if SA == 1 or SB == 1 %}        barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}
        #pragma unroll
        for (int kw = 0; kw < KWG; kw += KWI) {
            #pragma unroll
            for (int ki = 0; ki < KWI; ki++) {
                const int kk = kw + ki;
                realM av[MWI / VWM];
                real bp[NWI];
{% if SA == 1 %}                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    av[mv] = VLOADM(alm + kk * MWG + ROW_OF(tm, mv * VWM));
                }
{% else %}                const int p = k0 + kk;
                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    const int i0 = m0 + ROW_OF(tm, mv * VWM);
                    if (a_along_m && i0 + VWM <= M && p < K) {
                        av[mv] = VLOADM(A + i0 + p * lda);
                    } else {
                        real* e = (real*)&av[mv];
                        for (int v = 0; v < VWM; v++) {
                            e[v] = (i0 + v < M && p < K) ? A_AT(i0 + v, p) : ZERO;
                        }
                    }
                }
{% endif %}{% if SB == 1 %}                #pragma unroll
                for (int nv = 0; nv < NWI / VWN; nv++) {
                    const realN v = VLOADN(blm + kk * NWG + COL_OF(tn, nv * VWN));
                    UNPACKN(bp, nv * VWN, v)
                }
{% else %}                #pragma unroll
                for (int ni = 0; ni < NWI; ni++) {
                    const int j = n0 + COL_OF(tn, ni), p = k0 + kk;
                    bp[ni] = (j < N && p < K) ? B_AT(p, j) : ZERO;
                }
{% endif %}                #pragma unroll
                for (int mv = 0; mv < MWI / VWM; mv++) {
                    #pragma unroll
                    for (int ni = 0; ni < NWI; ni++) {
                        acc[mv][ni] = fma(av[mv], (realM)(bp[ni]), acc[mv][ni]);
                    }
                }
            }
        }
{% if SA == 1 or SB == 1 %}        barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}    }

    // C = alpha * acc + beta * C (C is not read when beta = 0), a vector at a time inside C.
    #pragma unroll
    for (int ni = 0; ni < NWI; ni++) {
        const int j = n0 + COL_OF(tn, ni);
        #pragma unroll
        for (int mv = 0; mv < MWI / VWM; mv++) {
            const int i0 = m0 + ROW_OF(tm, mv * VWM);
            __global real* c = C + i0 + j * ldc;
            if (j < N && i0 + VWM <= M) {
                const realM r = alpha * acc[mv][ni];
                VSTOREM((beta == ZERO) ? r : fma((realM)(beta), VLOADM(c), r), c);
            } else if (j < N) {
                const real* e = (const real*)&acc[mv][ni];
                for (int v = 0; v < VWM && i0 + v < M; v++) {
                    c[v] = (beta == ZERO) ? alpha * e[v] : fma(alpha, e[v], beta * c[v]);
                }
            }
        }
    }
}

// One entry point per operand layout: am/ak = A contiguous along M/K, bk/bn = B along K/N.
// Dimension 2 of the launch is the batch: item b reads A, B and C shifted by b * a_bs, b_bs, c_bs.
{% for a in ["m", "k"] %}{% for b in ["k", "n"] %}
__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1)))
void xgemm_a{{ a }}_b{{ b }}(const int M, const int N, const int K, const real alpha, const real beta,
                   const __global real* restrict A, const int a_off, const int lda,
                   const __global real* restrict B, const int b_off, const int ldb,
                   __global real* C, const int c_off, const int ldc,
                   const int a_bs, const int b_bs, const int c_bs) {
    const int batch = get_global_id(2);
{% if SA == 1 %}    __local real alm[KWG * MWG];
{% else %}    __local real* alm = 0;
{% endif %}{% if SB == 1 %}    __local real blm[KWG * NWG];
{% else %}    __local real* blm = 0;
{% endif %}    xgemm_body(M, N, K, alpha, beta, A + a_off + batch * a_bs, lda, {{ a == "m" }}, B + b_off + batch * b_bs, ldb,
               {{ b == "n" }}, C + c_off + batch * c_bs, ldc, alm, blm);
}
{% endfor %}{% endfor %}
