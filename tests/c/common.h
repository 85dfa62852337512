/* Helpers shared by the C test programs: an OpenCL device, seeded random data, an f64 reference
 * GEMM that honours layout, transposes, offsets and leading dimensions, buffer up/downloads (as
 * doubles or raw bytes) of the four element types (F32, F64, F16, BF16), poison (NaNs whose
 * payloads count the elements) and a check of a whole C buffer: C against the reference, every
 * other element bit for bit. Layout and transpose values are CLBlast's (101/102, 111/112). */
#ifndef FEWFIT_TEST_COMMON_H
#define FEWFIT_TEST_COMMON_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
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

/* The element types of the tests' buffers. F32 and F64 are their sizes in bytes (the callers of
 * these helpers long passed sizes); the 16-bit types are F16 (IEEE binary16) and BF16 (bfloat16). */
enum { F16 = 2, BF16 = 3, F32 = 4, F64 = 8 };

static inline size_t type_bytes(int type) { return type == BF16 ? 2 : (size_t)type; }

/* The letter of its CLBlast-style names: S, D, H, and Bf16 for bfloat16. */
static inline const char* type_name(int type) {
  return type == F32 ? "S" : type == F64 ? "D" : type == F16 ? "H" : "Bf16";
}

/* The bits of v as an IEEE binary16, rounded to nearest even (through float: the tests' values are
 * floats or exact in binary16 already). */
static inline uint16_t f16_bits(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);    /* NaN */
  if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);   /* rounds to infinity (>= 65520) */
  if (abs < 0x38800000u) {                                      /* below 2^-14: subnormal */
    float a;
    memcpy(&a, &abs, 4);
    return (uint16_t)(sign | (uint32_t)lrintf(a * 16777216.0f)); /* units of 2^-24, exact product */
  }
  return (uint16_t)(sign | ((abs + 0xfffu + ((abs >> 13) & 1u) - 0x38000000u) >> 13));
}

/* The value of an IEEE binary16. */
static inline double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0) return s * ldexp(m, -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * ldexp(m + 1024, e - 25);
}

/* The bits of v as a bfloat16, rounded to nearest even (through float). */
static inline uint16_t bf16_bits(double v) {
  float f = (float)v;
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* NaN stays NaN */
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* The value of a bfloat16. */
static inline double bf16_value(uint16_t b) {
  uint32_t x = (uint32_t)b << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* v rounded to `type`. */
static inline double rounded(double v, int type) {
  switch (type) {
    case F32: return (float)v;
    case F16: return f16_value(f16_bits(v));
    case BF16: return bf16_value(bf16_bits(v));
    default: return v;
  }
}

/* The unit roundoff of `type`: 2^-24, 2^-53, 2^-11 (binary16), 2^-8 (bfloat16). */
static inline double unit_roundoff(int type) {
  return type == F32 ? 0x1p-24 : type == F64 ? 0x1p-53 : type == F16 ? 0x1p-11 : 0x1p-8;
}

/* The tolerance of a GEMM of depth k (relative to 1 + |want|): in F32 and F64 one that grows with
 * k; in F16 and BF16, which compute in f32 and round C once, F32's plus one rounding to the type. */
static inline double tolerance(int type, size_t k) {
  if (type == F64) return 1e-12 * (double)(k + 2);
  double f32 = 1e-5 * (double)(k + 2);
  return type == F32 ? f32 : f32 + unit_roundoff(type);
}

/* Element i of a host array of `type`, as a double. */
static inline double get_element(const void* host, size_t i, int type) {
  switch (type) {
    case F32: return ((const float*)host)[i];
    case F64: return ((const double*)host)[i];
    case F16: return f16_value(((const uint16_t*)host)[i]);
    default: return bf16_value(((const uint16_t*)host)[i]);
  }
}

/* Sets element i of a host array of `type` to v (rounded to the type). */
static inline void set_element(void* host, size_t i, int type, double v) {
  switch (type) {
    case F32: ((float*)host)[i] = (float)v; break;
    case F64: ((double*)host)[i] = v; break;
    case F16: ((uint16_t*)host)[i] = f16_bits(v); break;
    default: ((uint16_t*)host)[i] = bf16_bits(v); break;
  }
}

/* Sets element i to poison: a quiet NaN whose payload is i + 1 (modulo the payloads a quiet NaN of
 * the type has: 511 in F16, 63 in BF16), so that every element's bits differ (in 16 bits, from its neighbours')
 * and a stray write shows even where it writes a NaN. */
static inline void poison_element(void* host, size_t i, int type) {
  if (type == F32) {
    uint32_t bits = 0x7fc00000u | (uint32_t)((i + 1) & 0x3fffffu);
    memcpy((char*)host + 4 * i, &bits, 4);
  } else if (type == F64) {
    uint64_t bits = 0x7ff8000000000000ull | (uint64_t)(i + 1);
    memcpy((char*)host + 8 * i, &bits, 8);
  } else if (type == F16) {
    ((uint16_t*)host)[i] = (uint16_t)(0x7e00u | (1 + i % 511));
  } else {
    ((uint16_t*)host)[i] = (uint16_t)(0x7fc0u | (1 + i % 63));
  }
}

/* The bits of element i, for messages. */
static inline unsigned long long element_bits(const void* host, size_t i, int type) {
  uint64_t bits = 0;
  memcpy(&bits, (const char*)host + type_bytes(type) * i, type_bytes(type)); /* little-endian */
  return (unsigned long long)bits;
}

/* A host array of len poisoned elements (poison_element). */
static inline void* poisoned_array(size_t len, int type) {
  void* host = malloc(len ? len * type_bytes(type) : 1);
  for (size_t i = 0; i < len; i++) poison_element(host, i, type);
  return host;
}

/* A buffer of `len` elements of `type` holding x (rounded to the type). */
static inline cl_mem upload(const double* x, size_t len, int type) {
  void* host = malloc(len ? len * type_bytes(type) : 1);
  for (size_t i = 0; i < len; i++) set_element(host, i, type, x[i]);
  cl_int err;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, len * type_bytes(type), host, &err);
  free(host);
  if (err != CL_SUCCESS) { fprintf(stderr, "clCreateBuffer: %d\n", err); exit(1); }
  return mem;
}

static inline void download(cl_mem mem, double* x, size_t len, int type) {
  void* host = malloc(len ? len * type_bytes(type) : 1);
  clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, len * type_bytes(type), host, 0, NULL, NULL);
  for (size_t i = 0; i < len; i++) x[i] = get_element(host, i, type);
  free(host);
}


/* A buffer of `bytes` holding host's bytes. */
static inline cl_mem upload_raw(const void* host, size_t bytes) {
  cl_int err;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void*)host, &err);
  if (err != CL_SUCCESS) { fprintf(stderr, "clCreateBuffer: %d\n", err); exit(1); }
  return mem;
}

/* The first `bytes` of a buffer, read on `queue` (blocking). */
static inline void download_raw(cl_mem mem, void* host, size_t bytes) {
  cl_int err = clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  if (err != CL_SUCCESS) { fprintf(stderr, "clEnqueueReadBuffer: %d\n", err); exit(1); }
}

/* Marks C's elements (every one of an m x n matrix at offset with leading dimension ld) in `inside`. */
static inline void mark_c(char* inside, int layout, size_t m, size_t n, size_t offset, size_t ld) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) inside[c_index(layout, offset, ld, i, j)] = 1;
}

/* Checks a whole C buffer of len elements after a call: each element marked in `inside` against
 * `want` (|got - want| <= tol * (1 + |want|), never NaN), every other one (padding between lines,
 * before the offset, past the end, between batch items) bit for bit against `before`. Reports the
 * first bad element under `what`; returns whether all are right. */
static inline int check_c_buffer(const char* what, const void* before, const void* after, const double* want,
                                 const char* inside, size_t len, int type, double tol) {
  const size_t size = type_bytes(type);
  for (size_t i = 0; i < len; i++) {
    if (inside && inside[i]) {
      double got = get_element(after, i, type), e = fabs(got - want[i]);
      if (!(e <= tol * (1 + fabs(want[i])))) {
        CHECK(0, "%s: C[%zu] = %g, want %g", what, i, got, want[i]);
        return 0;
      }
    } else if (memcmp((const char*)before + i * size, (const char*)after + i * size, size) != 0) {
      CHECK(0, "%s: element %zu outside C changed from %g (bits %llx) to %g (bits %llx)", what, i,
            get_element(before, i, type), element_bits(before, i, type), get_element(after, i, type),
            element_bits(after, i, type));
      return 0;
    }
  }
  CHECK(1, "%s", what);
  return 1;
}

#endif
