/* Tests fewfit's C API (include/fewfit.h) from C: FewfitSgemm/Dgemm against an f64 reference on
 * random data (row- and column-major, transposes, offsets, padded leading dimensions, beta = 0
 * over NaN), the strided and array batched forms, and the status codes of bad arguments.
 * Exit status 0 when every check passes. */
#include "fewfit.h"
#include "common.h"

/* FewfitSgemm or FewfitDgemm by element size (4 or 8). */
static int gemm(size_t size, int layout, int ta, int tb, size_t m, size_t n, size_t k, double alpha,
                cl_mem a, size_t a_off, size_t lda, cl_mem b, size_t b_off, size_t ldb, double beta,
                cl_mem c, size_t c_off, size_t ldc, cl_command_queue* q, cl_event* ev) {
  if (size == 4)
    return FewfitSgemm(layout, ta, tb, m, n, k, (float)alpha, a, a_off, lda, b, b_off, ldb, (float)beta, c, c_off, ldc, q, ev);
  return FewfitDgemm(layout, ta, tb, m, n, k, alpha, a, a_off, lda, b, b_off, ldb, beta, c, c_off, ldc, q, ev);
}

/* Fewfit?gemmStridedBatched by element size. */
static int strided(size_t size, size_t m, size_t n, size_t k, double alpha, cl_mem a, size_t a_off, size_t lda,
                   size_t sa, cl_mem b, size_t b_off, size_t ldb, size_t sb, double beta, cl_mem c, size_t c_off,
                   size_t ldc, size_t sc, size_t count, cl_command_queue* q) {
  if (size == 4)
    return FewfitSgemmStridedBatched(101, 111, 112, m, n, k, (float)alpha, a, a_off, lda, sa, b, b_off, ldb, sb,
                                     (float)beta, c, c_off, ldc, sc, count, q, NULL);
  return FewfitDgemmStridedBatched(101, 111, 112, m, n, k, alpha, a, a_off, lda, sa, b, b_off, ldb, sb, beta, c, c_off,
                                   ldc, sc, count, q, NULL);
}

/* Fewfit?gemmBatched by element size (alphas and betas given as double, at most 4 items). */
static int batched(size_t size, size_t m, size_t n, size_t k, const double* alphas, cl_mem a, const size_t* ao,
                   size_t lda, cl_mem b, const size_t* bo, size_t ldb, const double* betas, cl_mem c, const size_t* co,
                   size_t ldc, size_t count, cl_command_queue* q, cl_event* ev) {
  float fa[4], fb[4];
  for (size_t i = 0; alphas && i < count && i < 4; i++) fa[i] = (float)alphas[i], fb[i] = (float)betas[i];
  if (size == 4)
    return FewfitSgemmBatched(101, 111, 112, m, n, k, alphas ? fa : NULL, a, ao, lda, b, bo, ldb, fb, c, co, ldc, count,
                              q, ev);
  return FewfitDgemmBatched(101, 111, 112, m, n, k, alphas, a, ao, lda, b, bo, ldb, betas, c, co, ldc, count, q, ev);
}

/* One GEMM through the C API, checked against the reference. */
static void check_gemm(size_t size, int layout, int ta, int tb, size_t m, size_t n, size_t k, size_t off, size_t pad,
                       double alpha, double beta) {
  size_t lda = (layout == 101) == (ta == 111) ? k : m, ldb = (layout == 101) == (tb == 111) ? n : k;
  size_t ldc = layout == 101 ? n : m;
  lda += pad, ldb += pad, ldc += pad;
  size_t la = span(layout, ta, m, k, off, lda), lb = span(layout, tb, k, n, off + 1, ldb);
  size_t lc = span(layout, 111, m, n, off + 2, ldc);
  double *a = random_array(la), *b = random_array(lb), *c = random_array(lc);
  if (beta == 0)
    for (size_t i = 0; i < lc; i++) c[i] = NAN;
  cl_mem ab = upload(a, la, size), bb = upload(b, lb, size), cb = upload(c, lc, size);
  cl_event ev = NULL;
  int status = gemm(size, layout, ta, tb, m, n, k, alpha, ab, off, lda, bb, off + 1, ldb, beta, cb, off + 2, ldc, &queue, &ev);
  CHECK(status == 0 && ev != NULL, "status %d", status);
  if (ev) { clWaitForEvents(1, &ev); clReleaseEvent(ev); }
  double* got = malloc(lc * sizeof(double));
  download(cb, got, lc, size);
  reference(layout, ta, tb, m, n, k, alpha, a, off, lda, b, off + 1, ldb, beta, c, off + 2, ldc);
  if (beta == 0)  /* elements outside the matrix keep their NaN */
    for (size_t i = 0; i < lc; i++) if (isnan(c[i])) c[i] = got[i];
  double err = max_error(got, c, lc), tol = (size == 4 ? 1e-5 : 1e-12) * (k + 2);
  CHECK(err <= tol, "%s layout %d ta %d tb %d m %zu n %zu k %zu off %zu pad %zu: error %g", size == 4 ? "S" : "D",
        layout, ta, tb, m, n, k, off, pad, err);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb);
  free(a), free(b), free(c), free(got);
}

/* Strided batch and the array form (uniform: one launch; irregular: per item, including all items
 * accumulating into one C) against the reference, row-major A·Bᵀ, in f32 (size 4) or f64 (8). */
static void check_batches(size_t size) {
  const size_t m = 13, n = 21, k = 17, count = 4, lda = k + 1, ldb = k, ldc = n + 3;
  const size_t sa = m * lda + 5, sb = n * ldb, sc = m * ldc + 2;
  size_t la = 3 + count * sa, lb = count * sb, lc = 1 + count * sc;
  double *a = random_array(la), *b = random_array(lb), *c = random_array(lc), *got = malloc(lc * sizeof(double));
  cl_mem ab = upload(a, la, size), bb = upload(b, lb, size);

  /* Strided: item i at offset + i * stride. */
  cl_mem cb = upload(c, lc, size);
  int status = strided(size, m, n, k, 0.75, ab, 3, lda, sa, bb, 0, ldb, sb, 1.5, cb, 1, ldc, sc, count, &queue);
  CHECK(status == 0, "strided status %d", status);
  download(cb, got, lc, size);
  double* want = malloc(lc * sizeof(double));
  const double tol = size == 4 ? 1e-4 : 1e-12;
  memcpy(want, c, lc * sizeof(double));
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 112, m, n, k, 0.75, a, 3 + i * sa, lda, b, i * sb, ldb, 1.5, want, 1 + i * sc, ldc);
  CHECK(max_error(got, want, lc) < tol, "strided batch error %g", max_error(got, want, lc));
  clReleaseMemObject(cb);

  /* Array form, uniform: the same result. */
  cb = upload(c, lc, size);
  size_t ao[4], bo[4], co[4];
  double alphas[4], betas[4];
  for (size_t i = 0; i < count; i++) ao[i] = 3 + i * sa, bo[i] = i * sb, co[i] = 1 + i * sc, alphas[i] = 0.75, betas[i] = 1.5;
  status = batched(size, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == 0, "uniform batched status %d", status);
  download(cb, got, lc, size);
  CHECK(max_error(got, want, lc) < tol, "uniform batched error %g", max_error(got, want, lc));
  clReleaseMemObject(cb);

  /* Array form, irregular: own alphas and betas, offsets out of order. */
  cb = upload(c, lc, size);
  memcpy(want, c, lc * sizeof(double));
  size_t perm[4] = {2, 0, 3, 1};
  for (size_t i = 0; i < count; i++) {
    ao[i] = 3 + perm[i] * sa, bo[i] = i * sb, co[i] = 1 + ((i + 1) % count) * sc;
    alphas[i] = 0.5 + i, betas[i] = i == 2 ? 0.0 : -1.0;
    reference(101, 111, 112, m, n, k, alphas[i], a, ao[i], lda, b, bo[i], ldb, betas[i], want, co[i], ldc);
  }
  cl_event ev = NULL;
  status = batched(size, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, &ev);
  CHECK(status == 0 && ev != NULL, "irregular batched status %d", status);
  if (ev) clReleaseEvent(ev);
  download(cb, got, lc, size);
  CHECK(max_error(got, want, lc) < tol, "irregular batched error %g", max_error(got, want, lc));
  clReleaseMemObject(cb);

  /* Array form, every item into the same C with beta = 1: the items run in order. */
  cb = upload(c, lc, size);
  memcpy(want, c, lc * sizeof(double));
  for (size_t i = 0; i < count; i++) {
    ao[i] = 3 + i * sa, bo[i] = i * sb, co[i] = 1, alphas[i] = 1, betas[i] = 1;
    reference(101, 111, 112, m, n, k, 1, a, ao[i], lda, b, bo[i], ldb, 1, want, 1, ldc);
  }
  status = batched(size, m, n, k, alphas, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == 0, "accumulating batched status %d", status);
  download(cb, got, lc, size);
  CHECK(max_error(got, want, lc) < tol, "accumulating batched error %g", max_error(got, want, lc));

  /* Strided with overlapping C items is refused. */
  status = strided(size, m, n, k, 1, ab, 3, lda, sa, bb, 0, ldb, sb, 1, cb, 1, ldc, 1, count, &queue);
  CHECK(status == FewfitInvalidValue, "overlapping strided C: status %d", status);
  /* Batch count 0, NULL arrays. */
  status = strided(size, m, n, k, 1, ab, 3, lda, sa, bb, 0, ldb, sb, 1, cb, 1, ldc, sc, 0, &queue);
  CHECK(status == FewfitInvalidBatchCount, "batch count 0: status %d", status);
  status = batched(size, m, n, k, NULL, ab, ao, lda, bb, bo, ldb, betas, cb, co, ldc, count, &queue, NULL);
  CHECK(status == FewfitInvalidValue, "NULL alphas: status %d", status);
  /* Strides too large for A's buffer. */
  status = strided(size, m, n, k, 1, ab, 3, lda, 2 * sa, bb, 0, ldb, sb, 1, cb, 1, ldc, sc, count, &queue);
  CHECK(status == FewfitInsufficientMemoryA, "A stride too large: status %d", status);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb);
  free(a), free(b), free(c), free(got), free(want);
}

/* Status codes of bad arguments; C must stay untouched. */
static void check_errors(void) {
  const size_t m = 8, n = 6, k = 5;
  double *a = random_array(m * k), *b = random_array(k * n), *c = random_array(m * n), *got = malloc(m * n * sizeof(double));
  cl_mem ab = upload(a, m * k, 4), bb = upload(b, k * n, 4), cb = upload(c, m * n, 4), small = upload(a, 3, 4);
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
  download(cb, got, m * n, 4);
  int same = 1;
  for (size_t i = 0; i < m * n; i++) same &= got[i] == (double)(float)c[i];
  CHECK(same, "C changed by calls that failed");
  /* D on a device without fp64, or a D result. */
  int status = FewfitDgemm(101, 111, 111, m, n, k, 1, ab, 0, k, bb, 0, n, 0, cb, 0, n, &queue, NULL);
  if (!device_has_fp64()) CHECK(status == FewfitNoDoublePrecision, "D without fp64: status %d", status);
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb), clReleaseMemObject(small);
  free(a), free(b), free(c), free(got);
}

/* FewfitWarmUp builds what the first calls would: a GEMM after it builds nothing; bad arguments get codes. */
static void check_warm_up(void) {
  int status = FewfitWarmUp(&queue, 32);
  CHECK(status == FewfitSuccess, "FewfitWarmUp(32) status %d", status);
  uint64_t built = FewfitProgramBuilds();
  check_gemm(4, 101, 111, 111, 300, 200, 100, 0, 0, 1.0, 0.0);
  check_gemm(4, 102, 112, 111, 1, 64, 4096, 0, 0, 1.0, 0.0);
  CHECK(FewfitProgramBuilds() == built, "a GEMM after FewfitWarmUp built %llu programs",
        (unsigned long long)(FewfitProgramBuilds() - built));
  status = FewfitWarmUp(&queue, 64);
  CHECK(status == (device_has_fp64() ? FewfitSuccess : FewfitNoDoublePrecision), "FewfitWarmUp(64) status %d", status);
  status = FewfitWarmUp(&queue, 16);
  CHECK(status == FewfitInvalidValue, "FewfitWarmUp(16) status %d", status);
  status = FewfitWarmUp(NULL, 32);
  CHECK(status == FewfitInvalidCommandQueue, "FewfitWarmUp(NULL) status %d", status);
  cl_command_queue none = NULL;
  status = FewfitWarmUp(&none, 32);
  CHECK(status == FewfitInvalidCommandQueue, "FewfitWarmUp(&NULL) status %d", status);
}

/* FewfitClearCache gives back fewfit's engines; the next call builds its variants again and is right. */
static void check_clear_cache(void) {
  uint64_t before = FewfitProgramBuilds();
  int status = FewfitClearCache();
  CHECK(status == FewfitSuccess, "FewfitClearCache status %d", status);
  check_gemm(4, 101, 111, 112, 29, 17, 21, 3, 1, 1.0, 0.5);
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
          check_gemm(4, layout, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], s == 1 ? 7 : 0, s, 1.25, s == 2 ? 0 : -0.5);
  if (device_has_fp64()) {
    check_gemm(8, 101, 111, 112, 23, 31, 19, 3, 2, 0.5, 2.0);
    check_gemm(8, 102, 112, 111, 40, 7, 65, 0, 0, 1.0, 0.0);
  } else {
    printf("device has no fp64: D results not checked\n");
  }
  check_batches(4);
  if (device_has_fp64()) check_batches(8);
  check_errors();
  check_clear_cache();
  printf("capi_test: %d of %d checks passed; FewfitProgramBuilds() = %llu\n", checks - failures, checks,
         (unsigned long long)FewfitProgramBuilds());
  return failures ? 1 : 0;
}
