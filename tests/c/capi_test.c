/* Tests fewfit's C API (include/fewfit.h) from C: FewfitSgemm/Dgemm/Hgemm/Bf16gemm against an f64
 * reference on random data (row- and column-major, transposes, offsets, padded leading dimensions,
 * beta = 0 over NaN; the 16-bit types within f32's tolerance plus one rounding to the type), the
 * strided and array batched forms, FewfitWarmUp in each precision, the compute mode of
 * FewfitSgemm*Ex, an out-of-order queue without events, and the status codes of bad arguments. C's buffers are poisoned whole (NaNs whose payloads count the
 * elements), and every check reads the whole buffer back: C against the reference, every element
 * outside it (offsets, padding, between batch items, past the end) bit for bit unchanged.
 * Exit status 0 when every check passes. */
#include "fewfit.h"
#include "common.h"

/* Fewfit?gemm by element type (F32, F64, F16, BF16). Alpha and beta go as the type's scalar: cl_half
 * bits in H (the tests' values are exact in binary16), float in Bf16. */
static int gemm(int type, int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha,
                cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb, double beta,
                cl_mem c, size_t c_off, size_t ldc, cl_command_queue* q, cl_event* ev) {
  switch (type) {
    case F32:
      return FewfitSgemm(layout, ta, tb, m, n, k, (float)alpha, a, a_off, lda, b, b_off, ldb, (float)beta, c, c_off, ldc,
                         q, ev);
    case F64:
      return FewfitDgemm(layout, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb, beta, c, c_off, ldc, q, ev);
    case F16:
      return FewfitHgemm(layout, ta, tb, m, n, k, f16_bits(alpha), a, a_off, lda, b, b_off, ldb, f16_bits(beta), c,
                         c_off, ldc, q, ev);
    default:
      return FewfitBf16gemm(layout, ta, tb, m, n, k, (float)alpha, a, a_off, lda, b, b_off, ldb, (float)beta, c, c_off,
                            ldc, q, ev);
  }
}

/* Fewfit?gemmStridedBatched by element type. */
static int strided(int type, size_t m, size_t n, size_t k, double alpha, cl_mem a, size_t a_off, size_t lda,
                   size_t sa, cl_mem b, size_t b_off, size_t ldb, size_t sb, double beta, cl_mem c, size_t c_off,
                   size_t ldc, size_t sc, size_t count, cl_command_queue* q) {
  switch (type) {
    case F32:
      return FewfitSgemmStridedBatched(101, 111, 112, m, n, k, (float)alpha, a, a_off, lda, sa, b, b_off, ldb, sb,
                                       (float)beta, c, c_off, ldc, sc, count, q, NULL);
    case F64:
      return FewfitDgemmStridedBatched(101, 111, 112, m, n, k, alpha, a, a_off, lda, sa, b, b_off, ldb, sb, beta, c,
                                       c_off, ldc, sc, count, q, NULL);
    case F16:
      return FewfitHgemmStridedBatched(101, 111, 112, m, n, k, f16_bits(alpha), a, a_off, lda, sa, b, b_off, ldb, sb,
                                       f16_bits(beta), c, c_off, ldc, sc, count, q, NULL);
    default:
      return FewfitBf16gemmStridedBatched(101, 111, 112, m, n, k, (float)alpha, a, a_off, lda, sa, b, b_off, ldb, sb,
                                          (float)beta, c, c_off, ldc, sc, count, q, NULL);
  }
}

/* Fewfit?gemmBatched by element type (alphas and betas given as double, at most 4 items; NULL
 * alphas stay NULL). */
static int batched(int type, size_t m, size_t n, size_t k, const double* alphas, cl_mem a, const size_t* ao,
                   size_t lda, cl_mem b, const size_t* bo, size_t ldb, const double* betas, cl_mem c, const size_t* co,
                   size_t ldc, size_t count, cl_command_queue* q, cl_event* ev) {
  float fa[4], fb[4];
  cl_half ha[4], hb[4];
  for (size_t i = 0; alphas && i < count && i < 4; i++) {
    fa[i] = (float)alphas[i], fb[i] = (float)betas[i];
    ha[i] = f16_bits(alphas[i]), hb[i] = f16_bits(betas[i]);
  }
  switch (type) {
    case F32:
      return FewfitSgemmBatched(101, 111, 112, m, n, k, alphas ? fa : NULL, a, ao, lda, b, bo, ldb, fb, c, co, ldc,
                                count, q, ev);
    case F64:
      return FewfitDgemmBatched(101, 111, 112, m, n, k, alphas, a, ao, lda, b, bo, ldb, betas, c, co, ldc, count, q, ev);
    case F16:
      return FewfitHgemmBatched(101, 111, 112, m, n, k, alphas ? ha : NULL, a, ao, lda, b, bo, ldb, hb, c, co, ldc,
                                count, q, ev);
    default:
      return FewfitBf16gemmBatched(101, 111, 112, m, n, k, alphas ? fa : NULL, a, ao, lda, b, bo, ldb, fb, c, co, ldc,
                                   count, q, ev);
  }
}

/* One GEMM through the C API on buffers made for it: C's buffer is poisoned whole (poison_element)
 * and, where beta reads it, C's own elements hold random values; `want` is the f64 reference. */
typedef struct {
  int type;
  size_t m, n, k, off, lda, ldb, ldc, lc;
  int layout, ta, tb;
  double alpha, beta;
  void* before;
  double* want;
  char* inside;
  cl_mem ab, bb, cb;
} Gemm;

static Gemm prepare_gemm(int type, int layout, int ta, int tb, size_t m, size_t n, size_t k, size_t off, size_t pad,
                         double alpha, double beta) {
  Gemm g = {type, m, n, k, off, 0, 0, 0, 0, layout, ta, tb, alpha, beta, NULL, NULL, NULL, NULL, NULL, NULL};
  g.lda = ((layout == 101) == (ta == 111) ? k : m) + pad;
  g.ldb = ((layout == 101) == (tb == 111) ? n : k) + pad;
  g.ldc = (layout == 101 ? n : m) + pad;
  size_t la = span(layout, ta, m, k, off, g.lda), lb = span(layout, tb, k, n, off + 1, g.ldb);
  g.lc = span(layout, 111, m, n, off + 2, g.ldc) + pad; /* `pad` elements past C's end too */
  double *a = random_array(la), *b = random_array(lb), *c = random_array(g.lc);
  for (size_t i = 0; i < la; i++) a[i] = rounded(a[i], type);
  for (size_t i = 0; i < lb; i++) b[i] = rounded(b[i], type);
  g.inside = calloc(g.lc, 1);
  mark_c(g.inside, layout, m, n, off + 2, g.ldc);
  g.before = poisoned_array(g.lc, type);
  g.want = malloc(g.lc * sizeof(double));
  for (size_t i = 0; i < g.lc; i++) {
    if (g.inside[i] && beta != 0) set_element(g.before, i, type, c[i]);
    g.want[i] = get_element(g.before, i, type);
  }
  reference(layout, ta, tb, m, n, k, alpha, a, off, g.lda, b, off + 1, g.ldb, beta, g.want, off + 2, g.ldc);
  g.ab = upload(a, la, type), g.bb = upload(b, lb, type), g.cb = upload_raw(g.before, g.lc * type_bytes(type));
  free(a), free(b), free(c);
  return g;
}

/* Enqueues the GEMM on q; event as for FewfitSgemm (NULL: none). */
static int launch_gemm(const Gemm* g, cl_command_queue* q, cl_event* ev) {
  return gemm(g->type, g->layout, g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->ab, g->off, g->lda, g->bb, g->off + 1,
              g->ldb, g->beta, g->cb, g->off + 2, g->ldc, q, ev);
}

/* Reads C back once the GEMM is done and checks the whole buffer: C against the reference, every
 * element outside it (offset, padding between lines, past the end) still its own poison. */
static void verify_gemm(Gemm* g, const char* how) {
  char what[200];
  snprintf(what, sizeof what, "%s %s layout %d ta %d tb %d m %zu n %zu k %zu off %zu ld %zu/%zu/%zu beta %g", how,
           type_name(g->type), g->layout, g->ta, g->tb, g->m, g->n, g->k, g->off, g->lda, g->ldb, g->ldc, g->beta);
  void* after = malloc(g->lc * type_bytes(g->type));
  download_raw(g->cb, after, g->lc * type_bytes(g->type));
  check_c_buffer(what, g->before, after, g->want, g->inside, g->lc, g->type, tolerance(g->type, g->k));
  clReleaseMemObject(g->ab), clReleaseMemObject(g->bb), clReleaseMemObject(g->cb);
  free(after), free(g->before), free(g->want), free(g->inside);
}

/* One GEMM through the C API with an event, checked against the reference. */
static void check_gemm(int type, int layout, int ta, int tb, size_t m, size_t n, size_t k, size_t off, size_t pad,
                       double alpha, double beta) {
  Gemm g = prepare_gemm(type, layout, ta, tb, m, n, k, off, pad, alpha, beta);
  cl_event ev = NULL;
  int status = launch_gemm(&g, &queue, &ev);
  CHECK(status == 0 && ev != NULL, "status %d", status);
  if (ev) { clWaitForEvents(1, &ev); clReleaseEvent(ev); }
  verify_gemm(&g, "gemm");
}

/* Strided batch and the array form (uniform: one launch; irregular: per item, including all items
 * accumulating into one C) against the reference, row-major A·Bᵀ, in an element type. C's
 * buffer is poisoned whole but for the items' elements; each run checks the whole buffer: the items
 * it writes against the reference, every other element bit for bit. */
static void check_batches(int type) {
  const size_t m = 13, n = 21, k = 17, count = 4, lda = k + 1, ldb = k, ldc = n + 3;
  const size_t sa = m * lda + 5, sb = n * ldb, sc = m * ldc + 2;
  size_t la = 3 + count * sa, lb = count * sb, lc = 1 + count * sc;
  double *a = random_array(la), *b = random_array(lb), *c = random_array(lc);
  for (size_t i = 0; i < la; i++) a[i] = rounded(a[i], type);
  for (size_t i = 0; i < lb; i++) b[i] = rounded(b[i], type);
  char *items = calloc(lc, 1), *first = calloc(lc, 1);
  for (size_t i = 0; i < count; i++) mark_c(items, 101, m, n, 1 + i * sc, ldc);
  mark_c(first, 101, m, n, 1, ldc);
  const size_t bytes = lc * type_bytes(type);
  void *before = poisoned_array(lc, type), *after = malloc(bytes);
  double *start = malloc(lc * sizeof(double)), *want = malloc(lc * sizeof(double));
  for (size_t i = 0; i < lc; i++) {
    if (items[i]) set_element(before, i, type, c[i]);
    start[i] = get_element(before, i, type);
  }
  cl_mem ab = upload(a, la, type), bb = upload(b, lb, type);
  const double tol = tolerance(type, k);

  /* Strided: item i at offset + i * stride. */
  cl_mem cb = upload_raw(before, bytes);
  int status = strided(type, m, n, k, 0.75, ab, 3, lda, sa, bb, 0, ldb, sb, 1.5, cb, 1, ldc, sc, count, &queue);
  CHECK(status == 0, "strided status %d", status);
  download_raw(cb, after, bytes);
  memcpy(want, start, lc * sizeof(double));
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 112, m, n, k, 0.75, a, 3 + i * sa, lda, b, i * sb, ldb, 1.5, want, 1 + i * sc, ldc);
  check_c_buffer("strided batch", before, after, want, items, lc, type, tol);
  clReleaseMemObject(cb);

  /* Array form, uniform: the same result. */
  cb = upload_raw(before, bytes);
  size_t ao[4], bo[4], co[4];
  double alphas[4], betas[4];
  for (size_t i = 0; i < count; i++) ao[i] = 3 + i * sa, bo[i] = i * sb, co[i] = 1 + i * sc, alphas[i] = 0.75, betas[i] = 1.5;
  status = batched(type, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == 0, "uniform batched status %d", status);
  download_raw(cb, after, bytes);
  check_c_buffer("uniform batched", before, after, want, items, lc, type, tol);
  clReleaseMemObject(cb);

  /* Array form, irregular: own alphas and betas, offsets out of order. */
  cb = upload_raw(before, bytes);
  memcpy(want, start, lc * sizeof(double));
  size_t perm[4] = {2, 0, 3, 1};
  for (size_t i = 0; i < count; i++) {
    ao[i] = 3 + perm[i] * sa, bo[i] = i * sb, co[i] = 1 + ((i + 1) % count) * sc;
    alphas[i] = 0.5 + i, betas[i] = i == 2 ? 0.0 : -1.0;
    reference(101, 111, 112, m, n, k, alphas[i], a, ao[i], lda, b, bo[i], ldb, betas[i], want, co[i], ldc);
  }
  cl_event ev = NULL;
  status = batched(type, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, &ev);
  CHECK(status == 0 && ev != NULL, "irregular batched status %d", status);
  if (ev) clReleaseEvent(ev);
  download_raw(cb, after, bytes);
  check_c_buffer("irregular batched", before, after, want, items, lc, type, tol);
  clReleaseMemObject(cb);

  /* Array form, every item into the same C with beta = 1: the items run in order; the other items'
   * elements stay as they were. */
  cb = upload_raw(before, bytes);
  memcpy(want, start, lc * sizeof(double));
  for (size_t i = 0; i < count; i++) {
    ao[i] = 3 + i * sa, bo[i] = i * sb, co[i] = 1, alphas[i] = 1, betas[i] = 1;
    reference(101, 111, 112, m, n, k, 1, a, ao[i], lda, b, bo[i], ldb, 1, want, 1, ldc);
  }
  status = batched(type, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == 0, "accumulating batched status %d", status);
  download_raw(cb, after, bytes);
  /* Each item's C is rounded to the type before the next adds to it. */
  check_c_buffer("accumulating batched", before, after, want, first, lc, type, tol * count);

  /* Strided with overlapping C items is refused. */
  status = strided(type, m, n, k, 1, ab, 3, lda, sa, bb, 0, ldb, sb, 1, cb, 1, ldc, 1, count, &queue);
  CHECK(status == FewfitInvalidValue, "overlapping strided C: status %d", status);
  /* Batch count 0, NULL arrays. */
  status = strided(type, m, n, k, 1, ab, 3, lda, sa, bb, 0, ldb, sb, 1, cb, 1, ldc, sc, 0, &queue);
  CHECK(status == FewfitInvalidBatchCount, "batch count 0: status %d", status);
  status = batched(type, m, n, k, NULL, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == FewfitInvalidValue, "NULL alphas: status %d", status);
  /* Strides too large for A's buffer. */
  status = strided(type, m, n, k, 1, ab, 3, lda, 2 * sa, bb, 0, ldb, sb, 1, cb, 1, ldc, sc, count, &queue);
  CHECK(status == FewfitInsufficientMemoryA, "A stride too large: status %d", status);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb);
  free(a), free(b), free(c), free(items), free(first), free(before), free(after), free(start), free(want);
}

/* Status codes of bad arguments; C must stay untouched. */
static void check_errors(void) {
  const size_t m = 8, n = 6, k = 5;
  double *a = random_array(m * k), *b = random_array(k * n), *c = random_array(m * n), *got = malloc(m * n * sizeof(double));
  cl_mem ab = upload(a, m * k, F32), bb = upload(b, k * n, F32), cb = upload(c, m * n, F32), small = upload(a, 3, F32);
  cl_command_queue null_queue = NULL;
  struct { const char* what; int status, want; } cases[] = {
    {"m = 0", FewfitSgemm(101, 111, 111, 0, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidDimension},
    {"k = 0", FewfitSgemm(101, 111, 111, m, n, 0, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidDimension},
    {"a_ld", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k - 1, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidLeadDimA},
    {"b_ld", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n - 1, 0, cb, 0, n, &queue, NULL), FewfitInvalidLeadDimB},
    {"c_ld col-major", FewfitSgemm(102, 111, 111, m, n, k, 1, ab, 0, m, bb, 0, k, 0, cb, 0, m - 1, &queue, NULL), FewfitInvalidLeadDimC},
    {"A too small", FewfitSgemm(101, 111, 111, m, n, k, 1, small, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInsufficientMemoryA},
    {"B offset", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 1, n, 0, cb, 0, n, &queue, NULL), FewfitInsufficientMemoryB},
    {"C too small", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, small, 0, n, &queue, NULL), FewfitInsufficientMemoryC},
    {"A NULL", FewfitSgemm(101, 111, 111, m, n, k, 1, NULL, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidMatrixA},
    {"A NULL, alpha 0", FewfitSgemm(101, 111, 111, m, n, k, 0, NULL, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidMatrixA},
    {"C NULL", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, NULL, 0, n, &queue, NULL), FewfitInvalidMatrixC},
    {"queue pointer NULL", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, NULL, NULL), FewfitInvalidCommandQueue},
    {"queue NULL", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &null_queue, NULL), FewfitInvalidCommandQueue},
    {"layout 7", FewfitSgemm(7, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidValue},
    {"transpose 7", FewfitSgemm(101, 7, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidValue},
    {"m beyond 2^31", FewfitSgemm(101, 111, 111, (size_t)1 << 40, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInvalidDimension},
    {"ld overflows", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, (size_t)-1, bb, 0, n, 0, cb, 0, n, &queue, NULL), FewfitInsufficientMemoryA},
    /* Two bad arguments: CLBlast checks matrix by matrix (leading dimension, buffer, size), A first. */
    {"A too small, b_ld", FewfitSgemm(101, 111, 111, m, n, k, 1, small, 0, k, bb, 0, n - 1, 0, cb, 0, n, &queue, NULL), FewfitInsufficientMemoryA},
    {"A NULL, b_ld", FewfitSgemm(101, 111, 111, m, n, k, 1, NULL, 0, k, bb, 0, n - 1, 0, cb, 0, n, &queue, NULL), FewfitInvalidMatrixA},
    {"B NULL, c_ld", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k, NULL, 0, n, 0, cb, 0, n - 1, &queue, NULL), FewfitInvalidMatrixB},
    {"a_ld, C NULL", FewfitSgemm(101, 111, 111, m, n, k, 1, ab, 0, k - 1, bb, 0, n, 0, NULL, 0, n, &queue, NULL), FewfitInvalidLeadDimA},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK(cases[i].status == cases[i].want, "%s: status %d, want %d", cases[i].what, cases[i].status, cases[i].want);
  clFinish(queue);
  download(cb, got, m * n, F32);
  int same = 1;
  for (size_t i = 0; i < m * n; i++) same &= got[i] == (double)(float)c[i];
  CHECK(same, "C changed by calls that failed");
  /* D on a device without fp64, or a D result. */
  int status = FewfitDgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL);
  if (!device_has_fp64()) CHECK(status == FewfitNoDoublePrecision, "D without fp64: status %d", status);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb), clReleaseMemObject(small);
  free(a), free(b), free(c), free(got);
}

/* GEMMs on an out-of-order queue with no event asked for (event NULL): the commands of one call
 * (C scaled before a launch that splits K, the items of an array batch writing one C) must still
 * run in order, and clFinish waits for them all. Skipped, saying so, where the device has no such
 * queue. */
static void check_out_of_order(void) {
  cl_command_queue_properties supported = 0;
  clGetDeviceInfo(device, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof supported, &supported, NULL);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int err = CL_INVALID_QUEUE_PROPERTIES;
  cl_command_queue ooo = NULL;
  if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    ooo = clCreateCommandQueueWithProperties(context, device, props, &err);
  if (err != CL_SUCCESS) {
    printf("out-of-order queue: not supported by the device (%d), skipped\n", err);
    return;
  }
  Gemm g[6];
  size_t count = 0;
  g[count++] = prepare_gemm(F32, 101, 111, 112, 17, 9, 13, 0, 0, 1.25, -0.5);
  /* Splits K in two on a CPU (PoCL): C = beta C first, then the splits add into it. */
  g[count++] = prepare_gemm(F32, 101, 111, 112, 64, 64, 4096, 3, 1, 1.0, 0.5);
  g[count++] = prepare_gemm(F32, 102, 112, 112, 33, 70, 64, 7, 2, 1.5, 0.0);
  g[count++] = prepare_gemm(F32, 101, 112, 111, 40, 3, 300, 0, 1, 0.0, 2.0); /* alpha = 0: C = beta C */
  g[count++] = prepare_gemm(F32, 102, 111, 111, 5, 300, 2048, 1, 0, -1.0, 1.0);
  if (device_has_fp64()) g[count++] = prepare_gemm(F64, 102, 111, 112, 64, 64, 4096, 2, 3, 0.5, -1.0);
  for (size_t i = 0; i < count; i++) {
    int status = launch_gemm(&g[i], &ooo, NULL);
    CHECK(status == 0, "out-of-order GEMM %zu: status %d", i, status);
  }
  /* An array batch whose four items all add into one C (beta = 1): the items run one after
   * another, ordered by events fewfit makes although the caller asks for none. */
  const size_t m = 9, n = 11, k = 300, items = 4, sa = m * k, sb = n * k, lc = m * n + 3;
  double *a = random_array(items * sa), *b = random_array(items * sb), *c = random_array(lc);
  for (size_t i = 0; i < items * sa; i++) a[i] = (float)a[i];
  for (size_t i = 0; i < items * sb; i++) b[i] = (float)b[i];
  char* inside = calloc(lc, 1);
  mark_c(inside, 101, m, n, 2, n);
  void *before = poisoned_array(lc, F32), *after = malloc(lc * 4);
  double* want = malloc(lc * sizeof(double));
  for (size_t i = 0; i < lc; i++) {
    if (inside[i]) set_element(before, i, F32, c[i]);
    want[i] = get_element(before, i, F32);
  }
  size_t ao[4], bo[4], co[4];
  double alphas[4], betas[4];
  for (size_t i = 0; i < items; i++) {
    ao[i] = i * sa, bo[i] = i * sb, co[i] = 2, alphas[i] = 1, betas[i] = 1;
    reference(101, 111, 112, m, n, k, 1, a, ao[i], k, b, bo[i], k, 1, want, 2, n);
  }
  cl_mem ab = upload(a, items * sa, F32), bb = upload(b, items * sb, F32), cb = upload_raw(before, lc * 4);
  int status = batched(F32, m, n, k, alphas, ab, ao, k, bb, bo, k, betas, cb, co, n, items, &ooo, NULL);
  CHECK(status == 0, "out-of-order accumulating batch: status %d", status);
  CHECK(clFinish(ooo) == CL_SUCCESS, "clFinish on the out-of-order queue");
  for (size_t i = 0; i < count; i++) verify_gemm(&g[i], "out-of-order queue, no event:");
  download_raw(cb, after, lc * 4);
  check_c_buffer("out-of-order queue, no event: accumulating batch", before, after, want, inside, lc, F32, 1e-5 * (k + 2) * items);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb);
  clReleaseCommandQueue(ooo);
  free(a), free(b), free(c), free(inside), free(before), free(after), free(want);
}

/* FewfitWarmUp builds what the first calls would: a GEMM after it builds nothing, in single, half
 * and bfloat16; bad arguments get codes. */
static void check_warm_up(void) {
  const int precisions[] = {FewfitPrecisionSingle, FewfitPrecisionHalf, FewfitPrecisionBf16};
  const int types[] = {F32, F16, BF16};
  for (int i = 0; i < 3; i++) {
    int status = FewfitWarmUp(&queue, precisions[i]);
    CHECK(status == FewfitSuccess, "FewfitWarmUp(%d) status %d", precisions[i], status);
    uint64_t built = FewfitProgramBuilds();
    check_gemm(types[i], 101, 111, 111, 300, 200, 100, 0, 0, 1.0, 0.0);
    check_gemm(types[i], 102, 112, 111, 1, 64, 4096, 0, 0, 1.0, 0.0);
    CHECK(FewfitProgramBuilds() == built, "a GEMM after FewfitWarmUp(%d) built %llu programs", precisions[i],
          (unsigned long long)(FewfitProgramBuilds() - built));
  }
  int status = FewfitWarmUp(&queue, 64);
  CHECK(status == (device_has_fp64() ? FewfitSuccess : FewfitNoDoublePrecision), "FewfitWarmUp(64) status %d", status);
  status = FewfitWarmUp(&queue, FewfitPrecisionTf32);
  CHECK(status == FewfitSuccess, "FewfitWarmUp(1032) status %d", status);
  status = FewfitWarmUp(&queue, 3232); /* CLBlast's complex single */
  CHECK(status == FewfitInvalidValue, "FewfitWarmUp(3232) status %d", status);
  status = FewfitWarmUp(NULL, 32);
  CHECK(status == FewfitInvalidCommandQueue, "FewfitWarmUp(NULL) status %d", status);
  cl_command_queue none = NULL;
  status = FewfitWarmUp(&none, 32);
  CHECK(status == FewfitInvalidCommandQueue, "FewfitWarmUp(&NULL) status %d", status);
}

/* FewfitSgemm*Ex: FewfitComputeDefault gives the call without Ex bit for bit; FewfitComputeFastTf32
 * a result within TF32's tolerance (inputs rounded to 10-bit mantissas; on a device without tensor
 * cores, as PoCL, it computes in f32); another compute value gives FewfitInvalidValue, C untouched. */
static void check_compute(void) {
  const size_t m = 33, n = 20, k = 70, count = 2, sa = m * k, sb = k * n, sc = m * n;
  const double tf32_tol = 0x1p-10 * (double)(k + 2);
  double *a = random_array(count * sa), *b = random_array(count * sb), *c = random_array(count * sc);
  for (size_t i = 0; i < count * sa; i++) a[i] = (float)a[i];
  for (size_t i = 0; i < count * sb; i++) b[i] = (float)b[i];
  for (size_t i = 0; i < count * sc; i++) c[i] = (float)c[i];
  double *want = malloc(count * sc * sizeof(double)), *got = malloc(count * sc * sizeof(double));
  float *plain = malloc(sc * 4), *ex = malloc(sc * 4);
  cl_mem ab = upload(a, count * sa, F32), bb = upload(b, count * sb, F32);

  /* Default: as FewfitSgemm, bit for bit; FastTf32: right. */
  cl_mem c1 = upload(c, sc, F32), c2 = upload(c, sc, F32), c3 = upload(c, sc, F32);
  int s1 = FewfitSgemm(101, 111, 111, m, n, k, 1.5f, ab, 0, k, bb, 0, n, -0.5f, c1, 0, n, &queue, NULL);
  int s2 = FewfitSgemmEx(101, 111, 111, m, n, k, 1.5f, ab, 0, k, bb, 0, n, -0.5f, c2, 0, n, &queue, NULL,
                         FewfitComputeDefault);
  int s3 = FewfitSgemmEx(101, 111, 111, m, n, k, 1.5f, ab, 0, k, bb, 0, n, -0.5f, c3, 0, n, &queue, NULL,
                         FewfitComputeFastTf32);
  CHECK(s1 == 0 && s2 == 0 && s3 == 0, "FewfitSgemm %d, FewfitSgemmEx default %d, fast TF32 %d", s1, s2, s3);
  download_raw(c1, plain, sc * 4), download_raw(c2, ex, sc * 4);
  CHECK(memcmp(plain, ex, sc * 4) == 0, "FewfitSgemmEx with FewfitComputeDefault differs from FewfitSgemm");
  memcpy(want, c, sc * sizeof(double));
  reference(101, 111, 111, m, n, k, 1.5, a, 0, k, b, 0, n, -0.5, want, 0, n);
  download(c3, got, sc, F32);
  CHECK(max_error(got, want, sc) <= tf32_tol, "FewfitSgemmEx fast TF32: error %g", max_error(got, want, sc));
  int status = FewfitSgemmEx(101, 111, 111, m, n, k, 1.5f, ab, 0, k, bb, 0, n, -0.5f, c1, 0, n, &queue, NULL,
                             (FewfitCompute)2);
  CHECK(status == FewfitInvalidValue, "FewfitSgemmEx compute 2: status %d", status);
  download_raw(c1, ex, sc * 4);
  CHECK(memcmp(plain, ex, sc * 4) == 0, "FewfitSgemmEx compute 2 changed C");
  clReleaseMemObject(c1), clReleaseMemObject(c2), clReleaseMemObject(c3);

  /* The strided and array batches with FastTf32: right; compute 2 refused. */
  cl_mem cb = upload(c, count * sc, F32);
  status = FewfitSgemmStridedBatchedEx(101, 111, 111, m, n, k, 0.75f, ab, 0, k, sa, bb, 0, n, sb, 1.0f, cb, 0, n, sc,
                                       count, &queue, NULL, FewfitComputeFastTf32);
  CHECK(status == 0, "FewfitSgemmStridedBatchedEx status %d", status);
  memcpy(want, c, count * sc * sizeof(double));
  for (size_t i = 0; i < count; i++) reference(101, 111, 111, m, n, k, 0.75, a, i * sa, k, b, i * sb, n, 1.0, want, i * sc, n);
  download(cb, got, count * sc, F32);
  CHECK(max_error(got, want, count * sc) <= tf32_tol, "FewfitSgemmStridedBatchedEx error %g",
        max_error(got, want, count * sc));
  status = FewfitSgemmStridedBatchedEx(101, 111, 111, m, n, k, 0.75f, ab, 0, k, sa, bb, 0, n, sb, 1.0f, cb, 0, n, sc,
                                       count, &queue, NULL, (FewfitCompute)-1);
  CHECK(status == FewfitInvalidValue, "FewfitSgemmStridedBatchedEx compute -1: status %d", status);
  clReleaseMemObject(cb);
  cb = upload(c, count * sc, F32);
  const float alphas[2] = {1.0f, -2.0f}, betas[2] = {0.0f, 0.5f};
  const size_t ao[2] = {sa, 0}, bo[2] = {0, sb}, co[2] = {sc, 0};
  status = FewfitSgemmBatchedEx(101, 111, 111, m, n, k, alphas, ab, ao, k, bb, bo, n, betas, cb, co, n, count, &queue,
                                NULL, FewfitComputeFastTf32);
  CHECK(status == 0, "FewfitSgemmBatchedEx status %d", status);
  memcpy(want, c, count * sc * sizeof(double));
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 111, m, n, k, alphas[i], a, ao[i], k, b, bo[i], n, betas[i], want, co[i], n);
  download(cb, got, count * sc, F32);
  CHECK(max_error(got, want, count * sc) <= tf32_tol, "FewfitSgemmBatchedEx error %g", max_error(got, want, count * sc));
  status = FewfitSgemmBatchedEx(101, 111, 111, m, n, k, alphas, ab, ao, k, bb, bo, n, betas, cb, co, n, count, &queue,
                                NULL, (FewfitCompute)7);
  CHECK(status == FewfitInvalidValue, "FewfitSgemmBatchedEx compute 7: status %d", status);
  clReleaseMemObject(cb), clReleaseMemObject(ab), clReleaseMemObject(bb);
  free(a), free(b), free(c), free(want), free(got), free(plain), free(ex);
}

/* FewfitClearCache gives back fewfit's engines; the next call builds its variants again and is right. */
static void check_clear_cache(void) {
  uint64_t before = FewfitProgramBuilds();
  int status = FewfitClearCache();
  CHECK(status == FewfitSuccess, "FewfitClearCache status %d", status);
  check_gemm(F32, 101, 111, 112, 29, 17, 21, 3, 1, 1.0, 0.5);
  CHECK(FewfitProgramBuilds() > before, "no program built after FewfitClearCache");
}

int main(void) {
  open_device();
  check_warm_up();
  const size_t shapes[][3] = {{17, 9, 13}, {64, 33, 70}, {1, 40, 3}};
  for (int layout = 101; layout <= 102; layout++)
    for (int ta = 111; ta <= 112; ta++)
      for (int tb = 111; tb <= 112; tb++)
        for (size_t s = 0; s < 3; s++)
          check_gemm(F32, layout, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], s == 1 ? 7 : 0, s, 1.25, s == 2 ? 0 : -0.5);
  if (device_has_fp64()) {
    check_gemm(F64, 101, 111, 112, 23, 31, 19, 3, 2, 0.5, 2.0);
    check_gemm(F64, 102, 112, 111, 40, 7, 65, 0, 0, 1.0, 0.0);
  } else {
    printf("device has no fp64: D results not checked\n");
  }
  /* Half and bfloat16 as single, and a deep K (f32 accumulation over 4096 products). */
  const int halves[2] = {F16, BF16};
  for (int h = 0; h < 2; h++) {
    for (int layout = 101; layout <= 102; layout++)
      for (int ta = 111; ta <= 112; ta++)
        for (int tb = 111; tb <= 112; tb++)
          for (size_t s = 0; s < 3; s++)
            check_gemm(halves[h], layout, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], s == 1 ? 7 : 0, s, 1.25,
                       s == 2 ? 0 : -0.5);
    check_gemm(halves[h], 101, 111, 112, 64, 64, 4096, 3, 1, 1.0, 0.5);
  }
  check_batches(F32);
  if (device_has_fp64()) check_batches(F64);
  check_batches(F16);
  check_batches(BF16);
  check_compute();
  check_errors();
  check_out_of_order();
  check_clear_cache();
  printf("capi_test: %d of %d checks passed; FewfitProgramBuilds() = %llu\n", checks - failures, checks,
         (unsigned long long)FewfitProgramBuilds());
  return failures ? 1 : 0;
}
