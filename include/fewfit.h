/* fewfit C API: OpenCL GEMM from a small prebuilt variant set, called like CLBlast.
 *
 * Every function takes the same arguments, in the same order and with the same meaning, as its
 * CLBlast namesake (FewfitSgemm as CLBlastSgemm, FewfitHgemm as CLBlastHgemm, ...), and returns
 * CLBlast's status codes (the
 * values of CLBlastStatusCode; OpenCL errors are passed through as their OpenCL codes). It runs on
 * the caller's context and queue, any device. Beyond CLBlast: bfloat16 GEMMs (FewfitBf16gemm*) and
 * the opt-in to TF32 tensor cores for single precision (FewfitSgemm*Ex). Arguments are checked before any device work (C is
 * untouched on error); null pointers give an error code. If `event` is not NULL it receives the
 * call's event, which the caller releases; if it is NULL, no event is made (with NVIDIA's OpenCL that
 * spares about 2 µs a call).
 *
 * Differences from CLBlast: a strided batch whose C items share an element gives
 * FewfitInvalidValue (items that interleave without sharing one run); a matrix spanning more than
 * 2^31 - 1 elements gives FewfitNotImplemented; a buffer of another context than the queue's gives
 * FewfitInvalidMatrixA/B/C.
 *
 * Link: -lfewfit (libfewfit.so or libfewfit.a; the static library also needs -lOpenCL -lpthread
 * -ldl -lm). scripts/install.sh PREFIX lays out libfewfit.so.0 (its SONAME), libfewfit.a, this
 * header, fewfit.pc (pkg-config fewfit) and a CMake package (find_package(fewfit): fewfit::fewfit,
 * fewfit::fewfit_static).
 *
 * Built with the clblast-compat feature (install.sh's default), the library also exports CLBlast's
 * own names for what it serves, C and C++ (clblast::Gemm<float>, ...), so that a program built
 * against CLBlast switches to fewfit with LD_PRELOAD or the libclblast.so.1 shim (docs/CLBLAST.md).
 * With FEWFIT_STATS=1 in the environment, a process prints one line to stderr at exit: the GEMM
 * calls fewfit served per precision (single, double, half, bf16), those that returned an error
 * status, and its program builds. */
#ifndef FEWFIT_H
#define FEWFIT_H

#include <stddef.h>
#include <stdint.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the values of CLBlast's CLBlastStatusCode. */
typedef enum FewfitStatusCode_ {
  FewfitSuccess             =     0, /* CLBlastSuccess */
  FewfitBuildProgramFailure =   -11, /* a kernel failed to build on the device */
  FewfitInvalidValue        =   -30, /* a layout/transpose out of range, a NULL array, overlapping C items */
  FewfitInvalidCommandQueue =   -36, /* queue pointer or queue is NULL */
  FewfitNotImplemented      = -1024, /* a matrix spans more than 2^31 - 1 elements */
  FewfitInvalidMatrixA      = -1022, /* A is NULL or not a buffer */
  FewfitInvalidMatrixB      = -1021,
  FewfitInvalidMatrixC      = -1020,
  FewfitInvalidDimension    = -1017, /* M, N or K is zero (or beyond 2^31 - 1) */
  FewfitInvalidLeadDimA     = -1016, /* a_ld below A's stored line length */
  FewfitInvalidLeadDimB     = -1015,
  FewfitInvalidLeadDimC     = -1014,
  FewfitInsufficientMemoryA = -1011, /* A's buffer too small for shape, offset, ld (and strides) */
  FewfitInsufficientMemoryB = -1010,
  FewfitInsufficientMemoryC = -1009,
  FewfitInvalidBatchCount   = -2049, /* batch_count is zero */
  FewfitNoDoublePrecision   = -2044, /* a D call on a device without fp64 */
  FewfitNoHalfPrecision     = -2045, /* an H or Bf16 call where no 16-bit kernel of fewfit's can run
                                        (they need no cl_khr_fp16, so any device runs them) */
  FewfitUnexpectedError     = -2039  /* anything else, a caught panic included */
} FewfitStatusCode;

/* The values of CLBlastLayout and CLBlastTranspose (Conjugate = Yes for real types). */
typedef enum FewfitLayout_ { FewfitLayoutRowMajor = 101, FewfitLayoutColMajor = 102 } FewfitLayout;
typedef enum FewfitTranspose_ {
  FewfitTransposeNo = 111, FewfitTransposeYes = 112, FewfitTransposeConjugate = 113
} FewfitTranspose;

/* How a single-precision GEMM may compute its products (the last argument of FewfitSgemm*Ex):
 * Default in f32; FastTf32 lets them run on TF32 tensor cores (inputs rounded to a 10-bit mantissa,
 * f32 accumulation, as cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32) where the device has them (NVIDIA,
 * compute capability 8.0 and later), and in f32 elsewhere. Another value gives FewfitInvalidValue. */
typedef enum FewfitCompute_ { FewfitComputeDefault = 0, FewfitComputeFastTf32 = 1 } FewfitCompute;

/* The precisions FewfitWarmUp takes: CLBlastPrecision's values (kHalf 16, kSingle 32, kDouble 64)
 * and fewfit's own for bfloat16 and for single precision with FewfitComputeFastTf32. */
typedef enum FewfitPrecision_ {
  FewfitPrecisionHalf = 16, FewfitPrecisionSingle = 32, FewfitPrecisionDouble = 64,
  FewfitPrecisionBf16 = 1016, FewfitPrecisionTf32 = 1032
} FewfitPrecision;

/* Half precision (H): buffers of IEEE binary16 (cl_half), alpha and beta as cl_half (the bits of an
 * IEEE binary16, as CLBlast's), converted to float: the products and sums are f32 and C is rounded
 * to binary16 once at the end. bfloat16 (Bf16): buffers of bfloat16 (the upper 16 bits of an IEEE
 * float, stored as uint16_t), alpha and beta as float, f32 arithmetic as for H. Neither needs
 * cl_khr_fp16. */

/* C = alpha * op(A) * op(B) + beta * C. */
FewfitStatusCode FewfitSgemm(const FewfitLayout layout, const FewfitTranspose a_transpose,
                             const FewfitTranspose b_transpose, const size_t m, const size_t n,
                             const size_t k, const float alpha,
                             const cl_mem a_buffer, const size_t a_offset, const size_t a_ld,
                             const cl_mem b_buffer, const size_t b_offset, const size_t b_ld,
                             const float beta,
                             cl_mem c_buffer, const size_t c_offset, const size_t c_ld,
                             cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitDgemm(const FewfitLayout layout, const FewfitTranspose a_transpose,
                             const FewfitTranspose b_transpose, const size_t m, const size_t n,
                             const size_t k, const double alpha,
                             const cl_mem a_buffer, const size_t a_offset, const size_t a_ld,
                             const cl_mem b_buffer, const size_t b_offset, const size_t b_ld,
                             const double beta,
                             cl_mem c_buffer, const size_t c_offset, const size_t c_ld,
                             cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitHgemm(const FewfitLayout layout, const FewfitTranspose a_transpose,
                             const FewfitTranspose b_transpose, const size_t m, const size_t n,
                             const size_t k, const cl_half alpha,
                             const cl_mem a_buffer, const size_t a_offset, const size_t a_ld,
                             const cl_mem b_buffer, const size_t b_offset, const size_t b_ld,
                             const cl_half beta,
                             cl_mem c_buffer, const size_t c_offset, const size_t c_ld,
                             cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitBf16gemm(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                const size_t k, const float alpha,
                                const cl_mem a_buffer, const size_t a_offset, const size_t a_ld,
                                const cl_mem b_buffer, const size_t b_offset, const size_t b_ld,
                                const float beta,
                                cl_mem c_buffer, const size_t c_offset, const size_t c_ld,
                                cl_command_queue* queue, cl_event* event);

/* batch_count GEMMs, item i with alphas[i], betas[i] and the i-th offsets. Equal alphas and betas
 * with offsets of constant stride run as one strided launch; otherwise one launch per item. */
FewfitStatusCode FewfitSgemmBatched(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                    const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                    const size_t k, const float* alphas,
                                    const cl_mem a_buffer, const size_t* a_offsets, const size_t a_ld,
                                    const cl_mem b_buffer, const size_t* b_offsets, const size_t b_ld,
                                    const float* betas,
                                    cl_mem c_buffer, const size_t* c_offsets, const size_t c_ld,
                                    const size_t batch_count,
                                    cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitDgemmBatched(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                    const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                    const size_t k, const double* alphas,
                                    const cl_mem a_buffer, const size_t* a_offsets, const size_t a_ld,
                                    const cl_mem b_buffer, const size_t* b_offsets, const size_t b_ld,
                                    const double* betas,
                                    cl_mem c_buffer, const size_t* c_offsets, const size_t c_ld,
                                    const size_t batch_count,
                                    cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitHgemmBatched(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                    const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                    const size_t k, const cl_half* alphas,
                                    const cl_mem a_buffer, const size_t* a_offsets, const size_t a_ld,
                                    const cl_mem b_buffer, const size_t* b_offsets, const size_t b_ld,
                                    const cl_half* betas,
                                    cl_mem c_buffer, const size_t* c_offsets, const size_t c_ld,
                                    const size_t batch_count,
                                    cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitBf16gemmBatched(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                       const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                       const size_t k, const float* alphas,
                                       const cl_mem a_buffer, const size_t* a_offsets, const size_t a_ld,
                                       const cl_mem b_buffer, const size_t* b_offsets, const size_t b_ld,
                                       const float* betas,
                                       cl_mem c_buffer, const size_t* c_offsets, const size_t c_ld,
                                       const size_t batch_count,
                                       cl_command_queue* queue, cl_event* event);

/* batch_count GEMMs in one launch, item i at offset + i * stride in each buffer. */
FewfitStatusCode FewfitSgemmStridedBatched(
    const FewfitLayout layout, const FewfitTranspose a_transpose, const FewfitTranspose b_transpose,
    const size_t m, const size_t n, const size_t k, const float alpha,
    const cl_mem a_buffer, const size_t a_offset, const size_t a_ld, const size_t a_stride,
    const cl_mem b_buffer, const size_t b_offset, const size_t b_ld, const size_t b_stride,
    const float beta,
    cl_mem c_buffer, const size_t c_offset, const size_t c_ld, const size_t c_stride,
    const size_t batch_count, cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitDgemmStridedBatched(
    const FewfitLayout layout, const FewfitTranspose a_transpose, const FewfitTranspose b_transpose,
    const size_t m, const size_t n, const size_t k, const double alpha,
    const cl_mem a_buffer, const size_t a_offset, const size_t a_ld, const size_t a_stride,
    const cl_mem b_buffer, const size_t b_offset, const size_t b_ld, const size_t b_stride,
    const double beta,
    cl_mem c_buffer, const size_t c_offset, const size_t c_ld, const size_t c_stride,
    const size_t batch_count, cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitHgemmStridedBatched(
    const FewfitLayout layout, const FewfitTranspose a_transpose, const FewfitTranspose b_transpose,
    const size_t m, const size_t n, const size_t k, const cl_half alpha,
    const cl_mem a_buffer, const size_t a_offset, const size_t a_ld, const size_t a_stride,
    const cl_mem b_buffer, const size_t b_offset, const size_t b_ld, const size_t b_stride,
    const cl_half beta,
    cl_mem c_buffer, const size_t c_offset, const size_t c_ld, const size_t c_stride,
    const size_t batch_count, cl_command_queue* queue, cl_event* event);
FewfitStatusCode FewfitBf16gemmStridedBatched(
    const FewfitLayout layout, const FewfitTranspose a_transpose, const FewfitTranspose b_transpose,
    const size_t m, const size_t n, const size_t k, const float alpha,
    const cl_mem a_buffer, const size_t a_offset, const size_t a_ld, const size_t a_stride,
    const cl_mem b_buffer, const size_t b_offset, const size_t b_ld, const size_t b_stride,
    const float beta,
    cl_mem c_buffer, const size_t c_offset, const size_t c_ld, const size_t c_stride,
    const size_t batch_count, cl_command_queue* queue, cl_event* event);

/* FewfitSgemm, FewfitSgemmBatched and FewfitSgemmStridedBatched with a compute mode last
 * (FewfitCompute); FewfitComputeDefault gives exactly the call without Ex. */
FewfitStatusCode FewfitSgemmEx(const FewfitLayout layout, const FewfitTranspose a_transpose,
                               const FewfitTranspose b_transpose, const size_t m, const size_t n,
                               const size_t k, const float alpha,
                               const cl_mem a_buffer, const size_t a_offset, const size_t a_ld,
                               const cl_mem b_buffer, const size_t b_offset, const size_t b_ld,
                               const float beta,
                               cl_mem c_buffer, const size_t c_offset, const size_t c_ld,
                               cl_command_queue* queue, cl_event* event, const FewfitCompute compute);
FewfitStatusCode FewfitSgemmBatchedEx(const FewfitLayout layout, const FewfitTranspose a_transpose,
                                      const FewfitTranspose b_transpose, const size_t m, const size_t n,
                                      const size_t k, const float* alphas,
                                      const cl_mem a_buffer, const size_t* a_offsets, const size_t a_ld,
                                      const cl_mem b_buffer, const size_t* b_offsets, const size_t b_ld,
                                      const float* betas,
                                      cl_mem c_buffer, const size_t* c_offsets, const size_t c_ld,
                                      const size_t batch_count,
                                      cl_command_queue* queue, cl_event* event, const FewfitCompute compute);
FewfitStatusCode FewfitSgemmStridedBatchedEx(
    const FewfitLayout layout, const FewfitTranspose a_transpose, const FewfitTranspose b_transpose,
    const size_t m, const size_t n, const size_t k, const float alpha,
    const cl_mem a_buffer, const size_t a_offset, const size_t a_ld, const size_t a_stride,
    const cl_mem b_buffer, const size_t b_offset, const size_t b_ld, const size_t b_stride,
    const float beta,
    cl_mem c_buffer, const size_t c_offset, const size_t c_ld, const size_t c_stride,
    const size_t batch_count, cl_command_queue* queue, cl_event* event, const FewfitCompute compute);

/* Builds now what the queue's first GEMM in a precision would build (a FewfitPrecision: 16 half,
 * 32 single, 64 double as CLBlastPrecision; 1016 bfloat16; 1032 single with FewfitComputeFastTf32,
 * which builds single's set where the device has no tensor cores): the variants its device's tree
 * can pick, so that no later call in that precision compiles (as CLBlastFillCache does for a
 * device). Another value gives FewfitInvalidValue, 64 on a device without fp64
 * FewfitNoDoublePrecision. */
FewfitStatusCode FewfitWarmUp(const cl_command_queue* queue, const int precision);

/* Drops fewfit's engines: the programs, kernels and scratch buffers it holds on every context, and
 * its references to the contexts (as CLBlastClearCache). Call it before releasing a context that
 * fewfit ran on; a later call builds again (from the on-disk binary cache where it can). Built with
 * the clblast-compat feature, CLBlastClearCache does this and then clears CLBlast's own caches where
 * libclblast is loaded behind fewfit. */
FewfitStatusCode FewfitClearCache(void);

/* Programs fewfit has built in this process (compiled or from its binary cache). Look it up with
 * dlsym(RTLD_DEFAULT, "FewfitProgramBuilds") to tell whether GEMM calls went through fewfit. */
uint64_t FewfitProgramBuilds(void);

#ifdef __cplusplus
}
#endif

#endif /* FEWFIT_H */
