// Precision: build with -DPRECISION=32 (float, the default) or -DPRECISION=64 (double).
#ifndef PRECISION
#define PRECISION 32
#endif
#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
typedef double8 real8;
typedef double16 real16;
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
typedef float8 real8;
typedef float16 real16;
#endif
#define ZERO ((real)0)

// Operand layouts. The kernel computes column-major C (M x N) = alpha * op(A) op(B) + beta * C.
// op(A) is M x K and op(B) is K x N; each is stored either contiguous along its outer dimension
// (M for A, N for B) or contiguous along K, with leading dimension lda / ldb.
//   A contiguous along M: op(A)[i][p] = A[i + p * lda]      A contiguous along K: A[p + i * lda]
//   B contiguous along K: op(B)[p][j] = B[p + j * ldb]      B contiguous along N: B[j + p * ldb]
#define A_AT(i, p) (a_along_m ? A[(i) + (p) * lda] : A[(p) + (i) * lda])
#define B_AT(p, j) (b_along_n ? B[(j) + (p) * ldb] : B[(p) + (j) * ldb])
