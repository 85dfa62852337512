{% include "common.cl" %}

// C = beta * C over an M x N block of column-major C (beta = 0 writes zeros, even over NaN):
// the whole GEMM when alpha = 0 or K = 0, where A and B are not read. Dimension 2 is the batch.
__kernel void scale_c(const int M, const int N, const real beta,
                      __global real* C, const int c_off, const int c_rs, const int c_cs, const int c_bs) {
    const int i = get_global_id(0);
    const int j = get_global_id(1);
    if (i < M && j < N) {
        const int idx = c_off + get_global_id(2) * c_bs + i * c_rs + j * c_cs;
        C[idx] = (beta == ZERO) ? ZERO : beta * C[idx];
    }
}
