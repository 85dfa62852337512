/* CLBlast's "invalid" runs through fewfit's C ABI, as generated cross products, in f32, f64 (where
 * the device has fp64), f16 (FewfitHgemm*, alphas and betas as cl_half) and bfloat16
 * (FewfitBf16gemm*; buffer lengths count 2-byte elements in both): every layout, pair of transposes and small shape, tight and padded
 * (leading dimensions 2 past the least, offsets 1, 2 and 3), through FewfitXgemm,
 * FewfitXgemmStridedBatched and FewfitXgemmBatched (uniform: one launch; per-item alphas: one launch
 * per item). Each matrix in turn gets a NULL buffer, a buffer of another context, of 1 element, one
 * element short, one byte short, an offset one too far or overflowing, a leading dimension one below
 * the least, one past what the buffer holds or overflowing, and (batches) a stride one too long or
 * overflowing; then M, N, K of 0, alpha = 0 with A too small (CLBlast checks A and B even then), bad
 * enums, NULL queues, C items that overlap, a batch count of 0, NULL arrays, and the limits of M, N,
 * K and the batch count. Each call must return its status code and leave C's buffer bit for bit as
 * it was (poisoned: NaNs whose payloads count the elements). The exact sizes must succeed: C against
 * the f64 reference, every element outside it still its poison; so must a huge leading dimension of
 * a one-line matrix and huge strides of a batch of one.
 * Prints the number of cases; exit status 0 when every check passes. */
#include "fewfit.h"
#include "common.h"

/* The largest M, N or K the kernels take: 2^31 - 1 less 2^16. */
#define MAX_DIM ((size_t)2147483647 - 65536)

enum Form { PLAIN, STRIDED, BATCHED_UNIFORM, BATCHED_PER_ITEM };
static const char* const FORM_NAMES[] = {"gemm", "strided", "batched uniform", "batched per item"};

/* A call's arguments: per matrix (A, B, C) its offset, leading dimension and batch stride. */
typedef struct {
  int layout, ta, tb;
  size_t m, n, k, off[3], ld[3], stride[3], count;
  double alpha, beta;
} Spec;

static size_t cases = 0;
static cl_context other_context; /* buffers of it are not buffers of the queue's context */

/* (lines, line length) of matrix x of s as stored. */
static void stored(const Spec* s, int x, size_t* lines, size_t* len) {
  size_t rows = x == 1 ? s->k : s->m, cols = x == 0 ? s->k : s->n;
  int trans = x == 0 ? s->ta : x == 1 ? s->tb : 111;
  if (trans == 112) { size_t t = rows; rows = cols; cols = t; }
  *lines = s->layout == 101 ? rows : cols;
  *len = s->layout == 101 ? cols : rows;
}

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t sat_mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* Elements matrix x's buffer needs: the last item's offset plus one item's span (saturating). */
static size_t needed(const Spec* s, int x) {
  size_t lines, len;
  stored(s, x, &lines, &len);
  size_t last = sat_add(s->off[x], sat_mul(s->stride[x], s->count - 1));
  return sat_add(last, sat_add(sat_mul(lines - 1, s->ld[x]), len));
}

/* The least leading dimension of matrix x: max(1, line length). */
static size_t least_ld(const Spec* s, int x) {
  size_t lines, len;
  stored(s, x, &lines, &len);
  return len ? len : 1;
}

/* Calls the entry point of `form` in element type `type` on s with buffers mems. */
static int call(int form, int type, const Spec* s, const cl_mem mems[3], cl_command_queue* q) {
  const size_t* o = s->off;
  const size_t* ld = s->ld;
  const float fa = (float)s->alpha, fb = (float)s->beta;
  const cl_half ha = f16_bits(s->alpha), hb = f16_bits(s->beta);
#define PLAIN_ARGS(alpha, beta)                                                                                   \
  s->layout, s->ta, s->tb, s->m, s->n, s->k, alpha, mems[0], o[0], ld[0], mems[1], o[1], ld[1], beta, mems[2], o[2], \
      ld[2], q, NULL
#define STRIDED_ARGS(alpha, beta)                                                                                  \
  s->layout, s->ta, s->tb, s->m, s->n, s->k, alpha, mems[0], o[0], ld[0], s->stride[0], mems[1], o[1], ld[1],        \
      s->stride[1], beta, mems[2], o[2], ld[2], s->stride[2], s->count, q, NULL
  if (form == PLAIN) {
    switch (type) {
      case F32: return FewfitSgemm(PLAIN_ARGS(fa, fb));
      case F64: return FewfitDgemm(PLAIN_ARGS(s->alpha, s->beta));
      case F16: return FewfitHgemm(PLAIN_ARGS(ha, hb));
      default: return FewfitBf16gemm(PLAIN_ARGS(fa, fb));
    }
  }
  if (form == STRIDED) {
    switch (type) {
      case F32: return FewfitSgemmStridedBatched(STRIDED_ARGS(fa, fb));
      case F64: return FewfitDgemmStridedBatched(STRIDED_ARGS(s->alpha, s->beta));
      case F16: return FewfitHgemmStridedBatched(STRIDED_ARGS(ha, hb));
      default: return FewfitBf16gemmStridedBatched(STRIDED_ARGS(fa, fb));
    }
  }
#undef PLAIN_ARGS
#undef STRIDED_ARGS
  /* The array form: item i at offset + i * stride; per item, alpha times i + 1. */
  size_t offsets[3][4];
  float fas[4], fbs[4];
  double das[4], dbs[4];
  cl_half has[4], hbs[4];
  for (size_t i = 0; i < s->count && i < 4; i++) {
    for (int x = 0; x < 3; x++) offsets[x][i] = o[x] + i * s->stride[x];
    das[i] = form == BATCHED_PER_ITEM ? s->alpha * (double)(i + 1) : s->alpha, dbs[i] = s->beta;
    fas[i] = (float)das[i], fbs[i] = (float)dbs[i];
    has[i] = f16_bits(das[i]), hbs[i] = f16_bits(dbs[i]);
  }
#define BATCHED_ARGS(alphas, betas)                                                                              \
  s->layout, s->ta, s->tb, s->m, s->n, s->k, alphas, mems[0], offsets[0], ld[0], mems[1], offsets[1], ld[1], betas, \
      mems[2], offsets[2], ld[2], s->count, q, NULL
  switch (type) {
    case F32: return FewfitSgemmBatched(BATCHED_ARGS(fas, fbs));
    case F64: return FewfitDgemmBatched(BATCHED_ARGS(das, dbs));
    case F16: return FewfitHgemmBatched(BATCHED_ARGS(has, hbs));
    default: return FewfitBf16gemmBatched(BATCHED_ARGS(fas, fbs));
  }
#undef BATCHED_ARGS
}

/* The data of one valid spec: A and B random (rounded to the precision), C's buffer poisoned with
 * every item's C random (where beta reads it), their exact buffers, and the expected C. */
typedef struct {
  int type;
  size_t len[3];
  double *a, *b, *want;
  void* c;
  char* inside;
  cl_mem exact[3];
} Data;

static Data prepare(const Spec* s, int type, int form) {
  Data d = {type, {needed(s, 0), needed(s, 1), needed(s, 2)}, NULL, NULL, NULL, NULL, NULL, {NULL, NULL, NULL}};
  d.a = random_array(d.len[0]), d.b = random_array(d.len[1]);
  for (size_t i = 0; i < d.len[0]; i++) d.a[i] = rounded(d.a[i], type);
  for (size_t i = 0; i < d.len[1]; i++) d.b[i] = rounded(d.b[i], type);
  d.inside = calloc(d.len[2], 1);
  for (size_t i = 0; i < s->count; i++) mark_c(d.inside, s->layout, s->m, s->n, s->off[2] + i * s->stride[2], s->ld[2]);
  d.c = poisoned_array(d.len[2], type);
  d.want = malloc(d.len[2] * sizeof(double));
  for (size_t i = 0; i < d.len[2]; i++) {
    if (d.inside[i] && s->beta != 0) set_element(d.c, i, type, random_value());
    d.want[i] = get_element(d.c, i, type);
  }
  for (size_t i = 0; i < s->count; i++) {
    double alpha = form == BATCHED_PER_ITEM ? s->alpha * (double)(i + 1) : s->alpha;
    reference(s->layout, s->ta, s->tb, s->m, s->n, s->k, alpha, d.a, s->off[0] + i * s->stride[0], s->ld[0], d.b,
              s->off[1] + i * s->stride[1], s->ld[1], s->beta, d.want, s->off[2] + i * s->stride[2], s->ld[2]);
  }
  d.exact[0] = upload(d.a, d.len[0], type), d.exact[1] = upload(d.b, d.len[1], type);
  d.exact[2] = upload_raw(d.c, d.len[2] * type_bytes(type));
  return d;
}

static void release(Data* d) {
  for (int x = 0; x < 3; x++) clReleaseMemObject(d->exact[x]);
  free(d->a), free(d->b), free(d->want), free(d->c), free(d->inside);
}

/* A buffer for matrix x of `bytes` (at least 1): A's and B's random, C's poisoned (its bytes as the
 * exact C's where they overlap); *host receives C's contents, to compare after the call. */
static cl_mem faulty_buffer(const Data* d, int x, size_t bytes, cl_context in, void** host) {
  void* data = malloc(bytes);
  if (x == 2) {
    const size_t exact = d->len[2] * type_bytes(d->type);
    void* poison = poisoned_array(bytes / type_bytes(d->type) + 1, d->type);
    memcpy(data, poison, bytes);
    memcpy(data, d->c, bytes < exact ? bytes : exact);
    free(poison);
  } else {
    for (size_t i = 0; i < bytes; i++) ((unsigned char*)data)[i] = (unsigned char)(i * 7 + 1);
  }
  cl_int err;
  cl_mem mem = clCreateBuffer(in, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
  if (err != CL_SUCCESS) { fprintf(stderr, "clCreateBuffer: %d\n", err); exit(1); }
  if (host) *host = data;
  else free(data);
  return mem;
}

/* Runs one case that must fail with `want`: s on the exact buffers but for matrix `x`'s, replaced by
 * `replaced` where x >= 0 (C's poisoned contents in c_host). Checks the status and that C's buffer,
 * whichever it is, is unchanged bit for bit. */
static void expect_status(const char* what, int form, const Spec* s, const Data* d, int x, cl_mem replaced,
                          const void* c_host, size_t c_bytes, int want, cl_command_queue* q) {
  cl_mem mems[3] = {d->exact[0], d->exact[1], d->exact[2]};
  if (x >= 0) mems[x] = replaced;
  int status = call(form, d->type, s, mems, q);
  cases++;
  CHECK(status == want, "%s %s %s: layout %d ta %d tb %d m %zu n %zu k %zu off %zu/%zu/%zu ld %zu/%zu/%zu "
        "stride %zu/%zu/%zu count %zu alpha %g: status %d, want %d", type_name(d->type), FORM_NAMES[form], what,
        s->layout, s->ta, s->tb, s->m, s->n, s->k, s->off[0], s->off[1], s->off[2], s->ld[0], s->ld[1], s->ld[2],
        s->stride[0], s->stride[1], s->stride[2], s->count, s->alpha, status, want);
  if (mems[2] == NULL) return;
  if (mems[2] == d->exact[2]) c_host = d->c, c_bytes = d->len[2] * type_bytes(d->type);
  if (c_bytes == 0) return; /* C of another context: not readable on this queue */
  void* after = malloc(c_bytes);
  download_raw(mems[2], after, c_bytes);
  CHECK(memcmp(after, c_host, c_bytes) == 0, "%s %s %s: C changed by a call that failed", type_name(d->type),
        FORM_NAMES[form], what);
  free(after);
}

/* A matrix's status codes: not a buffer, too small, leading dimension. */
static const int INVALID_MATRIX[3] = {FewfitInvalidMatrixA, FewfitInvalidMatrixB, FewfitInvalidMatrixC};
static const int INSUFFICIENT[3] = {FewfitInsufficientMemoryA, FewfitInsufficientMemoryB, FewfitInsufficientMemoryC};
static const int LEAD_DIM[3] = {FewfitInvalidLeadDimA, FewfitInvalidLeadDimB, FewfitInvalidLeadDimC};
static const char* const MATRIX_NAMES[3] = {"A", "B", "C"};

/* Matrix x's buffer replaced by one of `bytes`, expecting `want`. */
static void with_buffer(const char* what, int form, const Spec* s, const Data* d, int x, size_t bytes, int want) {
  char label[64];
  snprintf(label, sizeof label, "%s %s", MATRIX_NAMES[x], what);
  void* host = NULL;
  cl_mem mem = faulty_buffer(d, x, bytes, context, &host);
  expect_status(label, form, s, d, x, mem, host, bytes, want, &queue);
  clReleaseMemObject(mem);
  free(host);
}

/* s changed by `change` (one of its matrix's fields), expecting `want`. */
static void with_spec(const char* what, int form, const Spec* changed, const Data* d, int want) {
  expect_status(what, form, changed, d, -1, NULL, NULL, 0, want, &queue);
}

/* Runs s (whose C elements and results are d's) on d's A and B and a fresh copy of d's C, which
 * must succeed: C right inside, every other element still its poison. */
static void expect_success(const char* what, int form, const Spec* s, const Data* d) {
  size_t bytes = d->len[2] * type_bytes(d->type);
  cl_mem mems[3] = {d->exact[0], d->exact[1], upload_raw(d->c, bytes)};
  int status = call(form, d->type, s, mems, &queue);
  cases++;
  char label[200];
  snprintf(label, sizeof label, "%s %s %s: layout %d ta %d tb %d m %zu n %zu k %zu off %zu ld %zu/%zu/%zu beta %g",
           type_name(d->type), FORM_NAMES[form], what, s->layout, s->ta, s->tb, s->m, s->n, s->k, s->off[0],
           s->ld[0], s->ld[1], s->ld[2], s->beta);
  CHECK(status == FewfitSuccess, "%s: status %d", label, status);
  clFinish(queue);
  void* after = malloc(bytes);
  download_raw(mems[2], after, bytes);
  check_c_buffer(label, d->c, after, d->want, d->inside, d->len[2], d->type, tolerance(d->type, s->k));
  clReleaseMemObject(mems[2]);
  free(after);
}

/* Every case of one valid spec in one form and element type. */
static void cross(const Spec* s, int form, int type) {
  Data d = prepare(s, type, form);
  const size_t size = type_bytes(type);
  const int batched = form != PLAIN;
  char label[64];
  for (int x = 0; x < 3; x++) {
    size_t lines, len;
    stored(s, x, &lines, &len);
    expect_status(MATRIX_NAMES[x], form, s, &d, x, NULL, NULL, 0, INVALID_MATRIX[x], &queue);
    cl_mem other = faulty_buffer(&d, x, d.len[x] * size, other_context, NULL);
    snprintf(label, sizeof label, "%s of another context", MATRIX_NAMES[x]);
    expect_status(label, form, s, &d, x, other, NULL, 0, INVALID_MATRIX[x], &queue);
    clReleaseMemObject(other);
    if (d.len[x] > 1) with_buffer("of 1 element", form, s, &d, x, size, INSUFFICIENT[x]);
    if (d.len[x] > 2) with_buffer("one element short", form, s, &d, x, (d.len[x] - 1) * size, INSUFFICIENT[x]);
    with_buffer("one byte short", form, s, &d, x, d.len[x] * size - 1, INSUFFICIENT[x]);
    Spec c = *s;
    c.off[x] += 1;
    snprintf(label, sizeof label, "%s offset one too far", MATRIX_NAMES[x]);
    with_spec(label, form, &c, &d, INSUFFICIENT[x]);
    c = *s, c.ld[x] = least_ld(s, x) - 1;
    snprintf(label, sizeof label, "%s ld one below the least", MATRIX_NAMES[x]);
    with_spec(label, form, &c, &d, LEAD_DIM[x]);
    if (form != BATCHED_UNIFORM && form != BATCHED_PER_ITEM) { /* the array form's offsets would wrap */
      c = *s, c.off[x] = SIZE_MAX - 1;
      snprintf(label, sizeof label, "%s offset overflows", MATRIX_NAMES[x]);
      with_spec(label, form, &c, &d, INSUFFICIENT[x]);
    }
    if (lines > 1) {
      /* A batch's items move apart as much, so that C's items stay apart. */
      c = *s, c.ld[x] += 1, c.stride[x] += batched ? lines - 1 : 0;
      snprintf(label, sizeof label, "%s ld one past the buffer", MATRIX_NAMES[x]);
      with_spec(label, form, &c, &d, INSUFFICIENT[x]);
      c = *s, c.ld[x] = SIZE_MAX / 2;
      snprintf(label, sizeof label, "%s ld overflows", MATRIX_NAMES[x]);
      with_spec(label, form, &c, &d, INSUFFICIENT[x]);
    } else {
      /* The leading dimension of a matrix of one line steps to no element: any value is valid. */
      c = *s, c.ld[x] = SIZE_MAX / 2;
      snprintf(label, sizeof label, "%s ld huge on one line", MATRIX_NAMES[x]);
      expect_success(label, form, &c, &d);
    }
    if (batched) {
      c = *s, c.stride[x] += 1;
      snprintf(label, sizeof label, "%s stride one too long", MATRIX_NAMES[x]);
      with_spec(label, form, &c, &d, INSUFFICIENT[x]);
      if (form == STRIDED) {
        c = *s, c.stride[x] = SIZE_MAX / 2;
        snprintf(label, sizeof label, "%s stride overflows", MATRIX_NAMES[x]);
        with_spec(label, form, &c, &d, INSUFFICIENT[x]);
      }
    }
  }
  /* alpha = 0: CLBlast checks A and B all the same. */
  if (d.len[0] > 1) {
    Spec c = *s;
    c.alpha = 0;
    with_buffer("of 1 element, alpha 0", form, &c, &d, 0, size, INSUFFICIENT[0]);
  }
  for (int dim = 0; dim < 3; dim++) {
    Spec c = *s;
    *(dim == 0 ? &c.m : dim == 1 ? &c.n : &c.k) = 0;
    with_spec(dim == 0 ? "m = 0" : dim == 1 ? "n = 0" : "k = 0", form, &c, &d, FewfitInvalidDimension);
  }
  Spec c = *s;
  c.layout = 100;
  with_spec("layout 100", form, &c, &d, FewfitInvalidValue);
  c = *s, c.ta = 114;
  with_spec("a_transpose 114", form, &c, &d, FewfitInvalidValue);
  c = *s, c.tb = 110;
  with_spec("b_transpose 110", form, &c, &d, FewfitInvalidValue);
  cl_command_queue null_queue = NULL;
  expect_status("queue pointer NULL", form, s, &d, -1, NULL, NULL, 0, FewfitInvalidCommandQueue, NULL);
  expect_status("queue NULL", form, s, &d, -1, NULL, NULL, 0, FewfitInvalidCommandQueue, &null_queue);
  if (batched) {
    c = *s, c.count = 0;
    with_spec("batch count 0", form, &c, &d, FewfitInvalidBatchCount);
  }
  if (form == STRIDED) {
    /* C's items one element closer than their span share an element; at stride 0 they coincide. */
    size_t lines, len;
    stored(s, 2, &lines, &len);
    c = *s, c.stride[2] = (lines - 1) * s->ld[2] + len - 1;
    with_spec("C items overlap", form, &c, &d, FewfitInvalidValue);
    c = *s, c.stride[2] = 0;
    with_spec("C items coincide", form, &c, &d, FewfitInvalidValue);
  }
  /* The exact buffers: success, C right inside and unchanged outside. */
  expect_success("exact", form, s, &d);
  if (form == PLAIN) {
    /* A strided batch of one item steps by no stride: any stride is valid. */
    c = *s, c.stride[0] = SIZE_MAX, c.stride[1] = SIZE_MAX / 2, c.stride[2] = SIZE_MAX;
    expect_success("batch of 1 with huge strides", STRIDED, &c, &d);
  }
  release(&d);
}

/* The array form's NULL arrays: each gives FewfitInvalidValue. */
static void null_arrays(int type) {
  const size_t m = 3, n = 5, k = 2, offsets[2] = {0, 15};
  double *a = random_array(30), *b = random_array(20), *c = random_array(30);
  cl_mem ab = upload(a, 30, type), bb = upload(b, 20, type), cb = upload(c, 30, type);
  const float fs[2] = {1, 1};
  const double ds[2] = {1, 1};
  const cl_half hs[2] = {0x3c00, 0x3c00}; /* 1.0 in binary16 */
  const void* ones = type == F64 ? (const void*)ds : type == F16 ? (const void*)hs : (const void*)fs;
  for (int which = 0; which < 5; which++) {
    const size_t* o[3] = {offsets, offsets, offsets};
    const void *alphas = ones, *betas = ones;
    if (which == 0) alphas = NULL;
    if (which == 1) betas = NULL;
    if (which >= 2) o[which - 2] = NULL;
#define ARGS 101, 111, 111, m, n, k, alphas, ab, o[0], k, bb, o[1], n, betas, cb, o[2], n, 2, &queue, NULL
    int status = type == F32   ? FewfitSgemmBatched(ARGS)
                 : type == F64 ? FewfitDgemmBatched(ARGS)
                 : type == F16 ? FewfitHgemmBatched(ARGS)
                               : FewfitBf16gemmBatched(ARGS);
#undef ARGS
    cases++;
    CHECK(status == FewfitInvalidValue, "%s NULL array %d: status %d", type_name(type), which, status);
  }
  double* got = malloc(30 * sizeof(double));
  download(cb, got, 30, type);
  int same = 1;
  for (size_t i = 0; i < 30; i++) same &= got[i] == rounded(c[i], type);
  CHECK(same, "C changed by calls with NULL arrays");
  clReleaseMemObject(ab), clReleaseMemObject(bb), clReleaseMemObject(cb);
  free(a), free(b), free(c), free(got);
}

/* M, N and K at the largest value the kernels index (a buffer is then too small) and one past it;
 * the strided batch count at 2^31 - 1 (C's buffer then too small) and one past it. */
static void limits(int type) {
  double* x = random_array(4);
  cl_mem one[3] = {upload(x, 4, type), upload(x, 4, type), upload(x, 4, type)};
  struct { size_t m, n, k; int layout, want; } dims[] = {
    {MAX_DIM, 1, 1, 101, FewfitInsufficientMemoryA}, {MAX_DIM + 1, 1, 1, 101, FewfitInvalidDimension},
    {1, MAX_DIM, 1, 101, FewfitInsufficientMemoryB}, {1, MAX_DIM + 1, 1, 101, FewfitInvalidDimension},
    {1, 1, MAX_DIM, 101, FewfitInsufficientMemoryA}, {1, 1, MAX_DIM + 1, 101, FewfitInvalidDimension},
    {MAX_DIM, 1, 1, 102, FewfitInsufficientMemoryA}, {MAX_DIM + 1, 1, 1, 102, FewfitInvalidDimension},
    {1, 1, MAX_DIM, 102, FewfitInsufficientMemoryA}, {(size_t)1 << 40, 1, 1, 102, FewfitInvalidDimension},
  };
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
    Spec s = {dims[i].layout, 111, 111, dims[i].m, dims[i].n, dims[i].k, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1, 1, 0};
    for (int x = 0; x < 3; x++) s.ld[x] = least_ld(&s, x);
    int status = call(PLAIN, type, &s, one, &queue);
    cases++;
    CHECK(status == dims[i].want, "m %zu n %zu k %zu layout %d: status %d, want %d", s.m, s.n, s.k, s.layout, status,
          dims[i].want);
  }
  const size_t limit = 2147483647;
  for (size_t count = limit; count <= limit + 1; count++) {
    Spec s = {101, 111, 111, 1, 1, 1, {0, 0, 0}, {1, 1, 1}, {0, 0, 1}, count, 1, 0};
    int want = count == limit ? FewfitInsufficientMemoryC : FewfitInvalidBatchCount;
    int status = call(STRIDED, type, &s, one, &queue);
    cases++;
    CHECK(status == want, "strided batch count %zu: status %d, want %d", count, status, want);
  }
  double got[4];
  download(one[2], got, 4, type);
  int same = 1;
  for (size_t i = 0; i < 4; i++) same &= got[i] == rounded(x[i], type);
  CHECK(same, "C changed by calls at the limits");
  for (int i = 0; i < 3; i++) clReleaseMemObject(one[i]);
  free(x);
}

int main(void) {
  open_device();
  cl_int err;
  other_context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) { fprintf(stderr, "clCreateContext: %d\n", err); return 1; }
  const size_t shapes[][3] = {{1, 1, 1}, {3, 5, 2}, {6, 2, 7}};
  size_t specs = 0;
  const int types[] = {F32, F64, F16, BF16};
  for (int t = 0; t < 4; t++) {
    const int type = types[t];
    if (type == F64 && !device_has_fp64()) {
      printf("device has no fp64: D cases not run\n");
      continue;
    }
    for (int layout = 101; layout <= 102; layout++)
      for (int ta = 111; ta <= 112; ta++)
        for (int tb = 111; tb <= 112; tb++)
          for (size_t shape = 0; shape < 3; shape++)
            for (int padded = 0; padded <= 1; padded++)
              for (int form = PLAIN; form <= BATCHED_PER_ITEM; form++) {
                Spec s = {layout, ta, tb, shapes[shape][0], shapes[shape][1], shapes[shape][2], {0, 0, 0}, {0, 0, 0},
                          {0, 0, 0}, form == PLAIN ? 1 : 3, 1.5, (specs % 2) ? -0.5 : 0.0};
                for (int x = 0; x < 3; x++) {
                  s.ld[x] = least_ld(&s, x) + (padded ? 2 : 0);
                  s.off[x] = padded ? (size_t)x + 1 : 0;
                }
                /* A batch's items a gap of 1, 2 or 3 elements past the previous one's span. */
                if (form != PLAIN)
                  for (int x = 0; x < 3; x++) s.stride[x] = needed(&s, x) - s.off[x] + (size_t)x + 1;
                cross(&s, form, type);
                specs++;
              }
    null_arrays(type);
    limits(type);
  }
  clReleaseContext(other_context);
  printf("invalid_args_test: %zu specs, %zu generated cases; %d of %d checks passed\n", specs, cases,
         checks - failures, checks);
  return failures ? 1 : 0;
}
