/* Helpers shared by the C test programs: an OpenCL device, seeded random data, an f64 reference
 * GEMM that honours layout, transposes, offsets and leading dimensions, and buffer up/downloads.
 * Layout and transpose values are CLBlast's (101/102, 111/112). */
#ifndef FEWFIT_TEST_COMMON_H
#define FEWFIT_TEST_COMMON_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                    \
  do {                                                      \
    checks++;                                               \
    if (!(cond)) {                                          \
      failures++;                                           \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);  \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, "\n");                                \
    }                                                       \
  } while (0)

static cl_context context;
static cl_command_queue queue;
static cl_device_id device;

/* The device type FEWFIT_DEVICE asks for, as the Rust tests read it: `gpu` or `cpu`; any other
 * value (or none) takes any type. */
static inline cl_device_type wanted_device_type(void) {
  const char* spec = getenv("FEWFIT_DEVICE");
  if (spec && strcmp(spec, "gpu") == 0) return CL_DEVICE_TYPE_GPU;
  if (spec && strcmp(spec, "cpu") == 0) return CL_DEVICE_TYPE_CPU;
  return CL_DEVICE_TYPE_ALL;
}

/* The first device of the wanted type (wanted_device_type) of the first platform that has one;
 * exits 2 if there is none. */
static inline void open_device(void) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, platforms, &np);
  const cl_device_type type = wanted_device_type();
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], type, 1, &device, &nd) == CL_SUCCESS && nd > 0) {
      cl_int err;
      context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
      if (err != CL_SUCCESS) break;
      queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
      if (err != CL_SUCCESS) break;
      char name[256] = {0};
      clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
      printf("device: %s\n", name);
      return;
    }
  }
  fprintf(stderr, "no OpenCL device%s\n", type == CL_DEVICE_TYPE_ALL ? "" : " of the type FEWFIT_DEVICE names");
  exit(2);
}

static inline int device_has_fp64(void) {
  cl_device_fp_config config = 0;
  clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, NULL);
  return config != 0;
}

static unsigned long long rng_state = 42;
/* Uniform in [-1, 1) from a fixed seed. */
static inline double random_value(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

static inline double* random_array(size_t len) {
  double* x = malloc((len ? len : 1) * sizeof(double));
  for (size_t i = 0; i < len; i++) x[i] = random_value();
  return x;
}

/* Element (r, c) of op(X) of a stored matrix. */
static inline double op_at(const double* x, int layout, int trans, size_t offset, size_t ld, size_t r, size_t c) {
  if (trans == 112) { size_t t = r; r = c; c = t; }
  return layout == 101 ? x[offset + r * ld + c] : x[offset + r + c * ld];
}

static inline size_t c_index(int layout, size_t offset, size_t ld, size_t i, size_t j) {
  return layout == 101 ? offset + i * ld + j : offset + i + j * ld;
}

/* C = alpha op(A) op(B) + beta C in f64, in place (beta = 0 ignores C). */
static inline void reference(int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha,
                      const double* a, size_t a_off, size_t lda, const double* b, size_t b_off, size_t ldb,
                      double beta, double* c, size_t c_off, size_t ldc) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t p = 0; p < k; p++) s += op_at(a, layout, ta, a_off, lda, i, p) * op_at(b, layout, tb, b_off, ldb, p, j);
      size_t x = c_index(layout, c_off, ldc, i, j);
      c[x] = alpha * s + (beta == 0 ? 0 : beta * c[x]);
    }
}

/* Elements a stored matrix needs from its buffer start: offset + (lines - 1) * ld + line length. */
static inline size_t span(int layout, int trans, size_t rows, size_t cols, size_t offset, size_t ld) {
  if (trans == 112) { size_t t = rows; rows = cols; cols = t; }
  size_t lines = layout == 101 ? rows : cols, len = layout == 101 ? cols : rows;
  return offset + (lines - 1) * ld + len;
}

/* A buffer of `len` elements of `size` bytes (4: float, 8: double) holding x. */
static inline cl_mem upload(const double* x, size_t len, size_t size) {
  void* host = malloc(len * size);
  for (size_t i = 0; i < len; i++) {
    if (size == 4) ((float*)host)[i] = (float)x[i];
    else ((double*)host)[i] = x[i];
  }
  cl_int err;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len * size, host, &err);
  free(host);
  if (err != CL_SUCCESS) { fprintf(stderr, "clCreateBuffer: %d\n", err); exit(1); }
  return mem;
}

static inline void download(cl_mem mem, double* x, size_t len, size_t size) {
  void* host = malloc(len * size);
  clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, len * size, host, 0, NULL, NULL);
  for (size_t i = 0; i < len; i++) x[i] = size == 4 ? ((float*)host)[i] : ((double*)host)[i];
  free(host);
}

/* Largest |got - want| / (1 + |want|) over len elements (a NaN where want has none counts as infinite). */
static inline double max_error(const double* got, const double* want, size_t len) {
  double worst = 0;
  for (size_t i = 0; i < len; i++) {
    if (isnan(got[i]) && isnan(want[i])) continue;
    double e = fabs(got[i] - want[i]) / (1 + fabs(want[i]));
    if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
  }
  return worst;
}

#endif
