// Precision. `real` is the type of every register, local-memory slice and all arithmetic: float
// with -DPRECISION=32 (the default), double with -DPRECISION=64. A, B and C in global memory hold
// `greal`: real, or with -DSTORAGE_F16 / -DSTORAGE_BF16 (and -DPRECISION=32) IEEE binary16 /
// bfloat16 values, converted to float as they are loaded and rounded to nearest even as they are
// stored. Every global access of A, B and C goes through GREAD, GWRITE, GLOAD_VEC or GSTORE_VEC
// (below); neither 16-bit format needs an extension.
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

// GREAD(X, i): element i of X as a real. GWRITE(X, i, v): real v stored there.
// GLOAD_VEC(n, p, aligned) / GSTORE_VEC(n, v, p, aligned): the n (2, 4, 8 or 16) elements at p as a
// realn, in one access aligned to the vector's size (in storage bytes) where `aligned`, else in one
// that needs only an element's alignment. gbits: a type of the storage's size that copies elements
// bit for bit (without cl_khr_fp16, `half` may only point to values, not hold one).
#if defined(STORAGE_F16) || defined(STORAGE_BF16)
#define STORAGE_16BIT 1
#if PRECISION != 32
#error "16-bit storage computes in f32: build it with -DPRECISION=32"
#endif
#else
#define STORAGE_16BIT 0
#endif
#if defined(STORAGE_F16)
// binary16 by OpenCL's core conversions: vload_half and vstore_half_rte (infinities, NaNs and
// subnormals as IEEE 754 says; values beyond 65504 round to infinity).
typedef half greal;
typedef ushort gbits;
#define GREAD(X, i) vload_half((i), (X))
#define GWRITE(X, i, v) vstore_half_rte((v), (i), (X))
#define GLOAD_VEC_(n, p, aligned) ((aligned) ? vloada_half##n(0, (p)) : vload_half##n(0, (p)))
#define GSTORE_VEC_(n, v, p, aligned) \
    do { if (aligned) { vstorea_half##n##_rte((v), 0, (p)); } else { vstore_half##n##_rte((v), 0, (p)); } } while (0)
#elif defined(STORAGE_BF16)
// bfloat16 as ushort bits, the high half of a float's: bf16_to_floatn widens exactly; floatn_to_bf16
// rounds to nearest even (to infinity past the largest finite value) and keeps a NaN a quiet NaN.
// For n = (nothing), 2, 4, 8, 16.
typedef ushort greal;
typedef ushort gbits;
#define BF16_CONVERSIONS(n) \
    inline float##n bf16_to_float##n(const ushort##n b) { return as_float##n(convert_uint##n(b) << 16); } \
    inline ushort##n float##n##_to_bf16(const float##n v) { \
        const uint##n u = as_uint##n(v); \
        const uint##n rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16; \
        return convert_ushort##n(select(rounded, (u >> 16) | 0x40u, (u & 0x7FFFFFFFu) > 0x7F800000u)); \
    }
BF16_CONVERSIONS()
BF16_CONVERSIONS(2)
BF16_CONVERSIONS(4)
BF16_CONVERSIONS(8)
BF16_CONVERSIONS(16)
#define GREAD(X, i) bf16_to_float((X)[i])
#define GWRITE(X, i, v) ((X)[i] = float_to_bf16(v))
#define GLOAD_VEC_(n, p, aligned) bf16_to_float##n((aligned) ? *(const __global ushort##n*)(p) : vload##n(0, (p)))
#define GSTORE_VEC_(n, v, p, aligned) do { \
        const ushort##n bits_ = float##n##_to_bf16(v); \
        if (aligned) { *(__global ushort##n*)(p) = bits_; } else { vstore##n(bits_, 0, (p)); } \
    } while (0)
#else
typedef real greal;
typedef real gbits;
#define GREAD(X, i) (X)[i]
#define GWRITE(X, i, v) ((X)[i] = (v))
#define GLOAD_VEC_(n, p, aligned) ((aligned) ? *(const __global real##n*)(p) : vload##n(0, (p)))
#define GSTORE_VEC_(n, v, p, aligned) \
    do { if (aligned) { *(__global real##n*)(p) = (v); } else { vstore##n((v), 0, (p)); } } while (0)
#endif
// n expanded first, so that it may be a macro (the panel family's LANES).
#define GLOAD_VEC(n, p, aligned) GLOAD_VEC_(n, p, aligned)
#define GSTORE_VEC(n, v, p, aligned) GSTORE_VEC_(n, v, p, aligned)

// C in global memory holds `creal`, accessed through CREAD, CWRITE, CLOAD_VEC and CSTORE_VEC as A
// and B are through the G* macros, and `cbits` is its gbits. Without -DC_F32 these are the G* ones.
// -DC_F32 (with 16-bit storage only) makes C an f32 workspace: a 16-bit launch that splits K adds its
// splits' parts into it (16-bit C has no atomic add, and parts rounded to 16 bits would lose what
// f32 accumulation keeps), and the helpers' combine_c then adds it into the 16-bit C.
#if defined(C_F32)
#if !STORAGE_16BIT
#error "-DC_F32 makes C an f32 workspace for 16-bit storage: build it with -DSTORAGE_F16 or -DSTORAGE_BF16"
#endif
typedef float creal;
typedef float cbits;
#define CREAD(X, i) (X)[i]
#define CWRITE(X, i, v) ((X)[i] = (v))
#define CLOAD_VEC_(n, p, aligned) ((aligned) ? *(const __global float##n*)(p) : vload##n(0, (p)))
#define CSTORE_VEC_(n, v, p, aligned) \
    do { if (aligned) { *(__global float##n*)(p) = (v); } else { vstore##n((v), 0, (p)); } } while (0)
#define CLOAD_VEC(n, p, aligned) CLOAD_VEC_(n, p, aligned)
#define CSTORE_VEC(n, v, p, aligned) CSTORE_VEC_(n, v, p, aligned)
#else
typedef greal creal;
typedef gbits cbits;
#define CREAD(X, i) GREAD(X, i)
#define CWRITE(X, i, v) GWRITE(X, i, v)
#define CLOAD_VEC(n, p, aligned) GLOAD_VEC(n, p, aligned)
#define CSTORE_VEC(n, v, p, aligned) GSTORE_VEC(n, v, p, aligned)
#endif

// Operand layouts. The kernel computes column-major C (M x N) = alpha * op(A) op(B) + beta * C.
// op(A) is M x K and op(B) is K x N; each is stored either contiguous along its outer dimension
// (M for A, N for B) or contiguous along K, with leading dimension lda / ldb.
//   A contiguous along M: op(A)[i][p] = A[i + p * lda]      A contiguous along K: A[p + i * lda]
//   B contiguous along K: op(B)[p][j] = B[p + j * ldb]      B contiguous along N: B[j + p * ldb]
#define A_AT(i, p) (a_along_m ? GREAD(A, (i) + (p) * lda) : GREAD(A, (p) + (i) * lda))
#define B_AT(p, j) (b_along_n ? GREAD(B, (j) + (p) * ldb) : GREAD(B, (p) + (j) * ldb))
