/* Warp-specialised SGEMM probe: times ws.cl's kernel in a few configurations against fewfit's own
 * selection (FewfitSgemm) on the same queue and buffers, row-major NN, and checks both.
 *
 * Build (from this folder, after `cargo build --release --lib` in the repository root):
 *   cc -std=gnu11 -O2 -Wall -Wextra -Werror -I/work/main/include probe.c \
 *      /work/main/target/release/libfewfit.a -lOpenCL -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o probe
 * Run: ./probe [MxNxK ...]   (default 2048x2048x2048 4096x4096x4096 8192x8192x8192)
 * Environment: PROBE_DEVICE = gpu | cpu (default gpu, else any device); PROBE_KERNEL = path of
 * ws.cl (default: next to the executable, else ./ws.cl); PROBE_CONFIGS = configurations separated
 * by ';', each a ','-separated list of NAME=VALUE build defines that must name NSTAGE and PRODUCERS
 * (default "NSTAGE=3,PRODUCERS=64;NSTAGE=3,PRODUCERS=128;NSTAGE=2,PRODUCERS=64"); PROBE_PTX_DIR = a
 * folder to write each configuration's program binary into (PTX on NVIDIA).
 * Exit status: 0 if every build and check passed, 1 if any failed, 2 for bad arguments. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fewfit.h"

#define WARMUP 3
#define TIMED 20
#define SAMPLES 256          /* random elements checked, plus the four corners */
#define NCHECK (SAMPLES + 4)
#define MAX_CONFIGS 16
#define MAX_SIZES 64
/* Bound on |got - want| / (|alpha| sqrt(sum_k (a_k b_k)^2) S + |beta^n c0|), per sqrt(K). Float
 * rounding gives 1e-7 to 1e-6 there (6e-7 at K = 64, 2e-6 at K = 1024 on PoCL); one dropped k
 * term gives about 1 / sqrt(K), which 1e-4 sqrt(K) would barely separate at K = 8192. */
#define TOL_PER_SQRT_K 1e-5

static const char* const default_configs = "NSTAGE=3,PRODUCERS=64;NSTAGE=3,PRODUCERS=128;NSTAGE=2,PRODUCERS=64";
static const char* const default_sizes[] = {"2048x2048x2048", "4096x4096x4096", "8192x8192x8192"};

/* Prints what failed with the OpenCL code; returns whether err is CL_SUCCESS. */
static int cl_ok(cl_int err, const char* what) {
  if (err != CL_SUCCESS) fprintf(stderr, "error: %s failed: OpenCL error %d\n", what, (int)err);
  return err == CL_SUCCESS;
}

/* For setup steps without which nothing can run. */
static void cl_must(cl_int err, const char* what) {
  if (!cl_ok(err, what)) exit(1);
}

static void* must_malloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "error: out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* splitmix64: a fixed-seed generator, so every run sees the same matrices and samples. */
static uint64_t next_u64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1), exactly representable: 24 random bits. */
static float uniform_pm1(uint64_t* state) {
  return (float)((double)(next_u64(state) >> 40) * (2.0 / 16777216.0) - 1.0);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int compare_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- Arguments ---- */

typedef struct {
  int m, n, k;
  const char* text;
} Size;

/* Parses "MxNxK" with positive values; 0 on a malformed string. */
static int parse_size(const char* s, Size* out) {
  long v[3];
  const char* p = s;
  for (int i = 0; i < 3; i++) {
    if (!isdigit((unsigned char)*p)) return 0;
    char* end;
    v[i] = strtol(p, &end, 10);
    if (v[i] <= 0 || v[i] > INT_MAX) return 0;
    p = end;
    if (i < 2) {
      if (*p != 'x') return 0;
      p++;
    }
  }
  if (*p != '\0') return 0;
  out->m = (int)v[0];
  out->n = (int)v[1];
  out->k = (int)v[2];
  out->text = s;
  return 1;
}

/* The kernel's preconditions: whole tiles and slices, int indices. */
static const char* size_problem(const Size* s) {
  if (s->m % 128 || s->n % 128) return "M and N must be multiples of 128";
  if (s->k % 16) return "K must be a multiple of 16";
  if ((int64_t)s->m * s->k > INT_MAX || (int64_t)s->k * s->n > INT_MAX || (int64_t)s->m * s->n > INT_MAX)
    return "each matrix must have at most 2^31 - 1 elements";
  return NULL;
}

typedef struct {
  char label[256];    /* "NSTAGE=3 PRODUCERS=64" */
  char defines[512];  /* " -DNSTAGE=3 -DPRODUCERS=64" */
  int nstage, producers, consumers; /* CONSUMERS defaults to 256 */
  cl_program program;
  cl_kernel kernel;
} Config;

static int valid_name(const char* s, size_t len) {
  if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
  for (size_t i = 1; i < len; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
  return 1;
}

static int valid_value(const char* s, size_t len) {
  if (len == 0) return 0;
  for (size_t i = 0; i < len; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-')) return 0;
  return 1;
}

/* Parses one "NAME=VALUE,NAME=VALUE" item into cfg; prints the reason and returns 0 if invalid. */
static int parse_config(const char* item, size_t len, Config* cfg) {
  memset(cfg, 0, sizeof *cfg);
  size_t i = 0;
  while (i < len) {
    size_t j = i;
    while (j < len && item[j] != ',') j++;
    const char* def = item + i;
    const size_t dlen = j - i;
    const char* eq = memchr(def, '=', dlen);
    if (!eq || !valid_name(def, (size_t)(eq - def)) || !valid_value(eq + 1, dlen - (size_t)(eq - def) - 1)) {
      fprintf(stderr, "error: bad define '%.*s' in PROBE_CONFIGS (want NAME=VALUE)\n", (int)dlen, def);
      return 0;
    }
    const size_t llen = strlen(cfg->label), olen = strlen(cfg->defines);
    if (llen + dlen + 2 > sizeof cfg->label || olen + dlen + 4 > sizeof cfg->defines) {
      fprintf(stderr, "error: configuration too long in PROBE_CONFIGS\n");
      return 0;
    }
    snprintf(cfg->label + llen, sizeof cfg->label - llen, "%s%.*s", llen ? " " : "", (int)dlen, def);
    snprintf(cfg->defines + olen, sizeof cfg->defines - olen, " -D%.*s", (int)dlen, def);
    const size_t nlen = (size_t)(eq - def);
    const int value = atoi(eq + 1);
    if (nlen == 6 && !strncmp(def, "NSTAGE", 6)) cfg->nstage = value;
    if (nlen == 9 && !strncmp(def, "PRODUCERS", 9)) cfg->producers = value;
    if (nlen == 9 && !strncmp(def, "CONSUMERS", 9)) cfg->consumers = value;
    i = j + 1;
  }
  if (cfg->consumers == 0) cfg->consumers = 256;
  if (cfg->consumers != 128 && cfg->consumers != 256) {
    fprintf(stderr, "error: configuration '%s' needs CONSUMERS 128 or 256\n", cfg->label);
    return 0;
  }
  if (cfg->nstage < 1 || cfg->nstage > 7) {
    fprintf(stderr, "error: configuration '%s' needs NSTAGE in 1..7\n", cfg->label);
    return 0;
  }
  if (cfg->producers < 32 || cfg->producers % 32 || 512 % cfg->producers) {
    fprintf(stderr, "error: configuration '%s' needs PRODUCERS, a multiple of 32 dividing 512\n", cfg->label);
    return 0;
  }
  return 1;
}

static int parse_configs(const char* text, Config* cfgs) {
  int n = 0;
  const char* p = text;
  while (*p) {
    const char* end = strchr(p, ';');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0) {
      if (n == MAX_CONFIGS) {
        fprintf(stderr, "error: more than %d configurations in PROBE_CONFIGS\n", MAX_CONFIGS);
        exit(2);
      }
      if (!parse_config(p, len, &cfgs[n])) exit(2);
      n++;
    }
    p += len + (end ? 1 : 0);
  }
  if (n == 0) {
    fprintf(stderr, "error: PROBE_CONFIGS names no configuration\n");
    exit(2);
  }
  return n;
}

/* ---- Device ---- */

static char* device_string(cl_device_id dev, cl_device_info what, const char* name) {
  size_t len = 0;
  cl_must(clGetDeviceInfo(dev, what, 0, NULL, &len), name);
  char* s = must_malloc(len + 1);
  cl_must(clGetDeviceInfo(dev, what, len, s, NULL), name);
  s[len] = '\0';
  return s;
}

/* The first device of `type` over all platforms, or the first device of any type. */
static cl_device_id pick_device(cl_device_type type, cl_platform_id* platform_out) {
  cl_uint np = 0;
  cl_must(clGetPlatformIDs(0, NULL, &np), "clGetPlatformIDs");
  if (np == 0) {
    fprintf(stderr, "error: no OpenCL platform\n");
    exit(1);
  }
  cl_platform_id* ps = must_malloc(np * sizeof *ps);
  cl_must(clGetPlatformIDs(np, ps, NULL), "clGetPlatformIDs");
  cl_device_id found = NULL;
  const cl_device_type tries[2] = {type, CL_DEVICE_TYPE_ALL};
  for (int t = 0; t < 2 && !found; t++) {
    for (cl_uint i = 0; i < np && !found; i++) {
      cl_uint nd = 0;
      const cl_int err = clGetDeviceIDs(ps[i], tries[t], 1, &found, &nd);
      if (err == CL_DEVICE_NOT_FOUND || nd == 0) {
        found = NULL;
        continue;
      }
      if (!cl_ok(err, "clGetDeviceIDs")) {
        found = NULL;
        continue;
      }
      *platform_out = ps[i];
    }
    if (found && t == 1) fprintf(stderr, "warning: no device of the type PROBE_DEVICE names; using any device\n");
  }
  free(ps);
  if (!found) {
    fprintf(stderr, "error: no OpenCL device\n");
    exit(1);
  }
  return found;
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (cap - len < 4096) {
      cap = cap ? 2 * cap : 65536;
      char* grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        fprintf(stderr, "error: out of host memory reading %s\n", path);
        exit(1);
      }
      buf = grown;
    }
    const size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
  }
  const int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

/* PROBE_KERNEL, else ws.cl next to the executable, else ./ws.cl. */
static char* load_kernel_source(char* path_out, size_t path_len) {
  const char* env = getenv("PROBE_KERNEL");
  if (env && *env) {
    snprintf(path_out, path_len, "%s", env);
  } else {
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int found = 0;
    if (n > 0) {
      exe[n] = '\0';
      char* slash = strrchr(exe, '/');
      if (slash) {
        *slash = '\0';
        const int len = snprintf(path_out, path_len, "%s/ws.cl", exe);
        found = len > 0 && (size_t)len < path_len && access(path_out, R_OK) == 0;
      }
    }
    if (!found) snprintf(path_out, path_len, "ws.cl");
  }
  char* src = read_file(path_out);
  if (!src) {
    fprintf(stderr, "error: cannot read kernel source %s\n", path_out);
    exit(1);
  }
  return src;
}

static void print_build_log(cl_program prog, cl_device_id dev) {
  size_t len = 0;
  if (!cl_ok(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len), "clGetProgramBuildInfo")) return;
  char* log = must_malloc(len + 1);
  if (cl_ok(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL), "clGetProgramBuildInfo")) {
    log[len] = '\0';
    printf("---- build log ----\n%s\n-------------------\n", log);
  }
  free(log);
}

/* Writes the program's binary (PTX on NVIDIA) to dir/ws-<label>.ptx, the label's ' ' as '_' and '=' as
 * '-'; returns 1 if written. */
static int dump_binary(const Config* cfg, const char* dir) {
  size_t size = 0;
  if (!cl_ok(clGetProgramInfo(cfg->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL), "clGetProgramInfo BINARY_SIZES"))
    return 0;
  unsigned char* bin = must_malloc(size);
  unsigned char* bins[1] = {bin};
  int ok = cl_ok(clGetProgramInfo(cfg->program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL), "clGetProgramInfo BINARIES");
  char path[1024];
  const int n = snprintf(path, sizeof path, "%s/ws-%s.ptx", dir, cfg->label);
  if (ok && (n < 0 || (size_t)n >= sizeof path)) {
    fprintf(stderr, "error: PROBE_PTX_DIR path too long\n");
    ok = 0;
  }
  if (ok) {
    for (char* c = path + strlen(dir) + 1; *c; c++)  /* plain file names: "ws-NSTAGE-3_PRODUCERS-64.ptx" */
      if (!(isalnum((unsigned char)*c) || *c == '.' || *c == '-')) *c = *c == '=' ? '-' : '_';
    FILE* f = fopen(path, "wb");
    ok = f && fwrite(bin, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    printf("  binary (%zu bytes) %s %s\n", size, ok ? "written to" : "NOT written to", path);
  }
  free(bin);
  return ok;
}

/* Builds cfg's program and kernel; on failure prints the log and leaves cfg->kernel NULL. */
static int build_config(Config* cfg, cl_context ctx, cl_device_id dev, const char* src, int nvidia) {
  char options[1024];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -cl-mad-enable%s%s", cfg->defines,
           nvidia ? " -cl-nv-verbose" : " -DPORTABLE");
  printf("build ws %s: %s\n", cfg->label, options);
  cl_int err;
  cfg->program = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  if (!cl_ok(err, "clCreateProgramWithSource")) return 0;
  err = clBuildProgram(cfg->program, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS || nvidia) print_build_log(cfg->program, dev);
  if (!cl_ok(err, "clBuildProgram")) return 0;
  cfg->kernel = clCreateKernel(cfg->program, "ws_sgemm", &err);
  if (!cl_ok(err, "clCreateKernel")) {
    cfg->kernel = NULL;
    return 0;
  }
  size_t wg = 0;
  cl_ulong local_mem = 0, private_mem = 0;
  if (!cl_ok(clGetKernelWorkGroupInfo(cfg->kernel, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL),
             "clGetKernelWorkGroupInfo") ||
      !cl_ok(clGetKernelWorkGroupInfo(cfg->kernel, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL),
             "clGetKernelWorkGroupInfo") ||
      !cl_ok(clGetKernelWorkGroupInfo(cfg->kernel, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem, &private_mem,
                                      NULL),
             "clGetKernelWorkGroupInfo"))
    return 0;
  const char* ptx_dir = getenv("PROBE_PTX_DIR");
  if (ptx_dir && *ptx_dir) dump_binary(cfg, ptx_dir);  /* diagnostics only: no effect on the result */
  printf("  kernel: max work-group %zu (needs %d), local memory %llu bytes, private memory %llu bytes\n", wg,
         cfg->consumers + cfg->producers, (unsigned long long)local_mem, (unsigned long long)private_mem);
  if (wg < (size_t)(cfg->consumers + cfg->producers))
    printf("  warning: the kernel's work-group limit %zu < %d; launching anyway\n", wg, cfg->consumers + cfg->producers);
  return 1;
}

/* ---- One size ---- */

typedef struct {
  cl_context ctx;
  cl_command_queue queue;
  Size size;
  float alpha, beta;
  float* c0;         /* C's initial contents on the host */
  cl_mem a, b, c;
  size_t idx[NCHECK];  /* checked elements of C */
  double ab[NCHECK];   /* (A B) there, in double */
  double rss[NCHECK];  /* sqrt(sum_k (a_k b_k)^2), the scale of float summation error there */
} Problem;

/* One call of a kernel under test, returning its event (NULL on failure, after a message). */
typedef cl_event (*EnqueueFn)(const Problem* pr, const Config* cfg);

static cl_event enqueue_ws(const Problem* pr, const Config* cfg) {
  const size_t local[2] = {(size_t)(cfg->consumers + cfg->producers), 1};
  const size_t global[2] = {(size_t)(pr->size.n / 128) * local[0], (size_t)(pr->size.m / 128)};
  cl_event ev = NULL;
  if (!cl_ok(clEnqueueNDRangeKernel(pr->queue, cfg->kernel, 2, NULL, global, local, 0, NULL, &ev),
             "clEnqueueNDRangeKernel"))
    return NULL;
  return ev;
}

static cl_event enqueue_fewfit(const Problem* pr, const Config* cfg) {
  (void)cfg;
  const Size* s = &pr->size;
  cl_event ev = NULL;
  cl_command_queue q = pr->queue;
  const FewfitStatusCode st = FewfitSgemm(FewfitLayoutRowMajor, FewfitTransposeNo, FewfitTransposeNo, (size_t)s->m,
                                          (size_t)s->n, (size_t)s->k, pr->alpha, pr->a, 0, (size_t)s->k, pr->b, 0,
                                          (size_t)s->n, pr->beta, pr->c, 0, (size_t)s->n, &q, &ev);
  if (st != FewfitSuccess) {
    fprintf(stderr, "error: FewfitSgemm returned %d\n", (int)st);
    if (ev) clReleaseEvent(ev);
    return NULL;
  }
  if (!ev) fprintf(stderr, "error: FewfitSgemm gave no event\n");
  return ev;
}

static int set_ws_args(const Problem* pr, const Config* cfg) {
  cl_kernel k = cfg->kernel;
  const cl_int m = pr->size.m, n = pr->size.n, kk = pr->size.k;
  return cl_ok(clSetKernelArg(k, 0, sizeof m, &m), "clSetKernelArg M") &&
         cl_ok(clSetKernelArg(k, 1, sizeof n, &n), "clSetKernelArg N") &&
         cl_ok(clSetKernelArg(k, 2, sizeof kk, &kk), "clSetKernelArg K") &&
         cl_ok(clSetKernelArg(k, 3, sizeof pr->alpha, &pr->alpha), "clSetKernelArg alpha") &&
         cl_ok(clSetKernelArg(k, 4, sizeof pr->beta, &pr->beta), "clSetKernelArg beta") &&
         cl_ok(clSetKernelArg(k, 5, sizeof pr->a, &pr->a), "clSetKernelArg A") &&
         cl_ok(clSetKernelArg(k, 6, sizeof pr->b, &pr->b), "clSetKernelArg B") &&
         cl_ok(clSetKernelArg(k, 7, sizeof pr->c, &pr->c), "clSetKernelArg C");
}

/* Largest error of C's checked elements after `calls` calls from C = c0:
 * C_n = alpha (A B) (1 + beta + ... + beta^(n-1)) + beta^n c0. -1 if reading failed. */
static double check(const Problem* pr, int calls) {
  float got[NCHECK];
  for (int i = 0; i < NCHECK; i++) {
    if (!cl_ok(clEnqueueReadBuffer(pr->queue, pr->c, CL_FALSE, pr->idx[i] * sizeof(float), sizeof(float), &got[i],
                                   0, NULL, NULL),
               "clEnqueueReadBuffer C")) {
      clFinish(pr->queue);  /* let reads already queued land before `got` goes out of scope */
      return -1;
    }
  }
  if (!cl_ok(clFinish(pr->queue), "clFinish (read C)")) return -1;
  double geo = 0, bn = 1;
  for (int i = 0; i < calls; i++) {
    geo += bn;
    bn *= pr->beta;
  }
  double worst = 0;
  for (int i = 0; i < NCHECK; i++) {
    const double c0 = pr->c0[pr->idx[i]];
    const double want = pr->alpha * pr->ab[i] * geo + bn * c0;
    const double scale = fabs(pr->alpha) * pr->rss[i] * geo + fabs(bn * c0) + 1e-30;
    const double e = fabs((double)got[i] - want) / scale;
    if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;  /* a NaN counts as infinite */
  }
  return worst;
}

/* Check once from the initial C, then time WARMUP + TIMED calls and check again; prints the
 * result line. Returns 1 if both checks passed, 0 if one failed, -1 on an error (message printed,
 * no result line). */
static int run_case(const Problem* pr, const char* name, EnqueueFn enqueue, const Config* cfg) {
  const Size* s = &pr->size;
  const double flop = 2.0 * s->m * s->n * s->k;
  const double tol = TOL_PER_SQRT_K * sqrt((double)s->k);
  const size_t cbytes = (size_t)s->m * s->n * sizeof(float);
  if (!cl_ok(clEnqueueWriteBuffer(pr->queue, pr->c, CL_TRUE, 0, cbytes, pr->c0, 0, NULL, NULL), "restore C"))
    return -1;

  cl_event ev = enqueue(pr, cfg);
  if (!ev) return -1;
  const int finished = cl_ok(clFinish(pr->queue), "clFinish");
  clReleaseEvent(ev);
  if (!finished) return -1;
  const double err1 = check(pr, 1);
  if (err1 < 0) return -1;

  double dev_ms[TIMED], wall_ms[TIMED];
  for (int it = 0; it < WARMUP + TIMED; it++) {
    const double t0 = now_ms();
    ev = enqueue(pr, cfg);
    if (!ev) return -1;
    const int done = cl_ok(clFinish(pr->queue), "clFinish");
    const double t1 = now_ms();
    cl_ulong start = 0, end = 0;
    const int prof = done &&
                     cl_ok(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL),
                           "clGetEventProfilingInfo START") &&
                     cl_ok(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL),
                           "clGetEventProfilingInfo END");
    clReleaseEvent(ev);
    if (!prof) return -1;
    if (it >= WARMUP) {
      dev_ms[it - WARMUP] = (double)(end - start) * 1e-6;
      wall_ms[it - WARMUP] = t1 - t0;
    }
  }
  const double err2 = check(pr, 1 + WARMUP + TIMED);
  if (err2 < 0) return -1;

  const double dev = median(dev_ms, TIMED), wall = median(wall_ms, TIMED);
  const int pass = err1 <= tol && err2 <= tol;
  printf("%s  %-34s device %8.3f ms %7.3f TFLOP/s  wall %8.3f ms %7.3f TFLOP/s  %s maxerr %.1e (after %d calls %.1e, bound %.1e)\n",
         s->text, name, dev, flop / (dev * 1e9), wall, flop / (wall * 1e9), pass ? "PASS" : "FAIL", err1,
         1 + WARMUP + TIMED, err2, tol);
  fflush(stdout);
  return pass;
}

/* Fills the problem, runs every configuration and fewfit; returns the number of failures. */
static int run_size(cl_context ctx, cl_command_queue queue, const Size* size, Config* cfgs, int ncfg) {
  Problem pr;
  memset(&pr, 0, sizeof pr);
  pr.ctx = ctx;
  pr.queue = queue;
  pr.size = *size;
  pr.alpha = 1.0f;
  pr.beta = 0.5f;  /* beta != 0 exercises the epilogue's read of C */
  const size_t M = (size_t)size->m, N = (size_t)size->n, K = (size_t)size->k;
  float* a = must_malloc(M * K * sizeof(float));
  float* b = must_malloc(K * N * sizeof(float));
  pr.c0 = must_malloc(M * N * sizeof(float));
  uint64_t rng = 0x5EED5EED12345678ull;
  for (size_t i = 0; i < M * K; i++) a[i] = uniform_pm1(&rng);
  for (size_t i = 0; i < K * N; i++) b[i] = uniform_pm1(&rng);
  for (size_t i = 0; i < M * N; i++) pr.c0[i] = uniform_pm1(&rng);

  /* Reference at the four corners and SAMPLES random elements. */
  const size_t corners[4] = {0, N - 1, (M - 1) * N, M * N - 1};
  for (int i = 0; i < NCHECK; i++) {
    pr.idx[i] = i < 4 ? corners[i] : (size_t)(next_u64(&rng) % (M * N));
    const size_t m = pr.idx[i] / N, n = pr.idx[i] % N;
    double sum = 0, sq = 0;
    for (size_t k = 0; k < K; k++) {
      const double t = (double)a[m * K + k] * (double)b[k * N + n];
      sum += t;
      sq += t * t;
    }
    pr.ab[i] = sum;
    pr.rss[i] = sqrt(sq);
  }

  int failures = 0;
  cl_int err;
  pr.a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, M * K * sizeof(float), a, &err);
  if (!cl_ok(err, "clCreateBuffer A")) pr.a = NULL;
  pr.b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, K * N * sizeof(float), b, &err);
  if (!cl_ok(err, "clCreateBuffer B")) pr.b = NULL;
  pr.c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, M * N * sizeof(float), NULL, &err);
  if (!cl_ok(err, "clCreateBuffer C")) pr.c = NULL;
  free(a);
  free(b);

  if (!pr.a || !pr.b || !pr.c) {
    failures++;
  } else {
    char name[300];
    for (int i = 0; i < ncfg; i++) {
      snprintf(name, sizeof name, "ws %.250s", cfgs[i].label);
      if (!cfgs[i].kernel) {
        printf("%s  %-34s not built\n", size->text, name);
        failures++;
        continue;
      }
      const int r = set_ws_args(&pr, &cfgs[i]) ? run_case(&pr, name, enqueue_ws, &cfgs[i]) : -1;
      if (r < 0) printf("%s  %-34s FAIL (error above)\n", size->text, name);
      failures += r != 1;
    }
    const int r = run_case(&pr, "fewfit FewfitSgemm", enqueue_fewfit, NULL);
    if (r < 0) printf("%s  %-34s FAIL (error above)\n", size->text, "fewfit FewfitSgemm");
    failures += r != 1;
  }
  if (pr.a) clReleaseMemObject(pr.a);
  if (pr.b) clReleaseMemObject(pr.b);
  if (pr.c) clReleaseMemObject(pr.c);
  free(pr.c0);
  return failures;
}

int main(int argc, char** argv) {
  /* Sizes first, so a bad argument costs nothing. */
  Size sizes[MAX_SIZES];
  const int nsizes = argc > 1 ? argc - 1 : (int)(sizeof default_sizes / sizeof *default_sizes);
  if (nsizes > MAX_SIZES) {
    fprintf(stderr, "error: at most %d sizes\n", MAX_SIZES);
    return 2;
  }
  for (int i = 0; i < nsizes; i++) {
    const char* text = argc > 1 ? argv[i + 1] : default_sizes[i];
    if (!parse_size(text, &sizes[i])) {
      fprintf(stderr, "error: size '%s' is not MxNxK with positive integers\n", text);
      return 2;
    }
    const char* problem = size_problem(&sizes[i]);
    if (problem) {
      fprintf(stderr, "error: size %s refused: %s\n", text, problem);
      return 2;
    }
  }
  const char* cfg_env = getenv("PROBE_CONFIGS");
  static Config cfgs[MAX_CONFIGS];
  const int ncfg = parse_configs(cfg_env && *cfg_env ? cfg_env : default_configs, cfgs);

  const char* want = getenv("PROBE_DEVICE");
  cl_device_type type = CL_DEVICE_TYPE_GPU;
  if (want && !strcmp(want, "cpu")) {
    type = CL_DEVICE_TYPE_CPU;
  } else if (want && *want && strcmp(want, "gpu")) {
    fprintf(stderr, "error: PROBE_DEVICE must be gpu or cpu, not '%s'\n", want);
    return 2;
  }
  cl_platform_id platform = NULL;
  const cl_device_id dev = pick_device(type, &platform);

  char date[64];
  const time_t now = time(NULL);
  struct tm utc;
  gmtime_r(&now, &utc);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &utc);
  char* dev_name = device_string(dev, CL_DEVICE_NAME, "clGetDeviceInfo NAME");
  char* vendor = device_string(dev, CL_DEVICE_VENDOR, "clGetDeviceInfo VENDOR");
  char* driver = device_string(dev, CL_DRIVER_VERSION, "clGetDeviceInfo DRIVER_VERSION");
  char* version = device_string(dev, CL_DEVICE_VERSION, "clGetDeviceInfo VERSION");
  const int nvidia = strstr(vendor, "NVIDIA") != NULL;
  printf("date: %s\ndevice: %s\nvendor: %s\ndriver: %s\nversion: %s\n", date, dev_name, vendor, driver, version);
  printf("alpha 1, beta 0.5; median of %d timed calls after %d warm-up calls, each followed by clFinish\n", TIMED,
         WARMUP);

  cl_int err;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  const cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
  cl_must(err, "clCreateContext");
  const cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  const cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, dev, qprops, &err);
  cl_must(err, "clCreateCommandQueueWithProperties");

  char path[4096];
  char* src = load_kernel_source(path, sizeof path);
  printf("kernel source: %s\n", path);
  int failures = 0;
  for (int i = 0; i < ncfg; i++) {
    if (!build_config(&cfgs[i], ctx, dev, src, nvidia)) {
      printf("BUILD FAILED: ws %s\n", cfgs[i].label);
      if (cfgs[i].kernel) clReleaseKernel(cfgs[i].kernel);
      cfgs[i].kernel = NULL;
      failures++;
    }
  }
  free(src);

  for (int i = 0; i < nsizes; i++) failures += run_size(ctx, queue, &sizes[i], cfgs, ncfg);

  for (int i = 0; i < ncfg; i++) {
    if (cfgs[i].kernel) clReleaseKernel(cfgs[i].kernel);
    if (cfgs[i].program) clReleaseProgram(cfgs[i].program);
  }
  cl_ok(clReleaseCommandQueue(queue), "clReleaseCommandQueue");
  cl_ok(clReleaseContext(ctx), "clReleaseContext");
  free(dev_name);
  free(vendor);
  free(driver);
  free(version);
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
  return failures ? 1 : 0;
}
