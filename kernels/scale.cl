{% import "macros.cl" as macros %}
{% include "common.cl" %}

{{ macros::scale_kernel() }}
#if STORAGE_16BIT
// C = W + beta * C over an M x N block of C (beta = 0 does not read C, so NaN there is overwritten):
// the last step of a 16-bit launch that split K, whose splits added alpha times their products into
// W, an f32 workspace. W is compact, element (i, j) of batch item b at i + j * M + b * M * N; C is
// addressed as scale_c addresses it. One work-item per element, dimension 0 running down W's
// columns; dimension 1 is the batch.
__kernel void combine_c(const int M, const int N, const real beta, const __global float* restrict W,
                        __global greal* restrict C, const int c_off, const int c_rs, const int c_cs, const int c_bs) {
    const int e = get_global_id(0);
    if (e < M * N) {
        const int i = e % M;
        const int j = e / M;
        const int b = get_global_id(1);
        const int idx = c_off + b * c_bs + i * c_rs + j * c_cs;
        const real w = W[b * M * N + e];
        GWRITE(C, idx, (beta == ZERO) ? w : fma(beta, GREAD(C, idx), w));
    }
}
#endif
