/* A program that loads CLBlast at run time, as plugins and language bindings do: it dlopens
 * "libclblast.so.1" by name and looks its routines up with dlsym(handle, ...), so LD_PRELOAD cannot
 * reach it (dlsym on a handle searches that object and its dependencies only). Built with
 * `cc ... -lOpenCL -ldl` and no -lclblast. It reports where each name resolves (dladdr), then
 * checks CLBlastSgemm, CLBlastDgemm, CLBlastSgemmStridedBatched and CLBlastDgemmBatched against an
 * f64 reference, and CLBlastSaxpy, a routine fewfit does not serve, against its own.
 * Run plainly it gets CLBlast; with LD_LIBRARY_PATH=<prefix>/lib/fewfit/clblast-shim (the shim that
 * scripts/install.sh lays out) it gets fewfit's GEMMs and the real CLBlast's other routines.
 * Prints "symbol NAME LIBRARY" lines, "backend: ..." and "results: ok"; exit status 0 if correct. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "common.h"

typedef int (*sgemm_fn)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem, size_t, size_t,
                        float, cl_mem, size_t, size_t, cl_command_queue*, cl_event*);
typedef int (*dgemm_fn)(int, int, int, size_t, size_t, size_t, double, cl_mem, size_t, size_t, cl_mem, size_t, size_t,
                        double, cl_mem, size_t, size_t, cl_command_queue*, cl_event*);
typedef int (*sgemm_strided_fn)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, size_t, cl_mem,
                                size_t, size_t, size_t, float, cl_mem, size_t, size_t, size_t, size_t,
                                cl_command_queue*, cl_event*);
typedef int (*dgemm_batched_fn)(int, int, int, size_t, size_t, size_t, const double*, cl_mem, const size_t*, size_t,
                                cl_mem, const size_t*, size_t, const double*, cl_mem, const size_t*, size_t, size_t,
                                cl_command_queue*, cl_event*);
typedef int (*saxpy_fn)(size_t, float, cl_mem, size_t, size_t, cl_mem, size_t, size_t, cl_command_queue*, cl_event*);

static void* handle;

/* dlsym on the handle, reporting the library the name comes from; exits 2 if it is missing. */
static void* lookup(const char* name) {
  void* address = dlsym(handle, name);
  Dl_info info;
  if (!address) {
    fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
    exit(2);
  }
  printf("symbol %s %s\n", name, dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?");
  return address;
}

int main(void) {
  handle = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "dlopen libclblast.so.1: %s\n", dlerror());
    return 2;
  }
  sgemm_fn sgemm = (sgemm_fn)lookup("CLBlastSgemm");
  dgemm_fn dgemm = (dgemm_fn)lookup("CLBlastDgemm");
  sgemm_strided_fn sgemm_strided = (sgemm_strided_fn)lookup("CLBlastSgemmStridedBatched");
  dgemm_batched_fn dgemm_batched = (dgemm_batched_fn)lookup("CLBlastDgemmBatched");
  saxpy_fn saxpy = (saxpy_fn)lookup("CLBlastSaxpy");
  open_device();

  const size_t m = 21, n = 17, k = 40, count = 3, sa = m * k, sb = k * n, sc = m * n;
  double *a = random_array(count * sa), *b = random_array(count * sb), *c = random_array(count * sc);
  double *want = malloc(count * sc * sizeof(double)), *got = malloc(count * sc * sizeof(double));
  cl_mem a4 = upload(a, count * sa, F32), b4 = upload(b, count * sb, F32);
  cl_mem a8 = upload(a, count * sa, F64), b8 = upload(b, count * sb, F64);

  /* CLBlastSgemm, row-major, B transposed. */
  cl_mem cb = upload(c, sc, F32);
  memcpy(want, c, sc * sizeof(double));
  int status = sgemm(101, 111, 112, m, n, k, 1.0f, a4, 0, k, b4, 0, k, 0.5f, cb, 0, n, &queue, NULL);
  CHECK(status == 0, "CLBlastSgemm status %d", status);
  reference(101, 111, 112, m, n, k, 1.0, a, 0, k, b, 0, k, 0.5, want, 0, n);
  download(cb, got, sc, F32);
  CHECK(max_error(got, want, sc) < 1e-4, "CLBlastSgemm error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);

  /* CLBlastDgemm, column-major, A transposed. */
  cb = upload(c, sc, F64);
  memcpy(want, c, sc * sizeof(double));
  status = dgemm(102, 112, 111, m, n, k, -1.5, a8, 0, k, b8, 0, k, 1.0, cb, 0, m, &queue, NULL);
  CHECK(status == 0, "CLBlastDgemm status %d", status);
  reference(102, 112, 111, m, n, k, -1.5, a, 0, k, b, 0, k, 1.0, want, 0, m);
  download(cb, got, sc, F64);
  CHECK(max_error(got, want, sc) < 1e-10, "CLBlastDgemm error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);

  /* CLBlastSgemmStridedBatched, row-major. */
  cb = upload(c, count * sc, F32);
  memcpy(want, c, count * sc * sizeof(double));
  status = sgemm_strided(101, 111, 111, m, n, k, 2.0f, a4, 0, k, sa, b4, 0, n, sb, 0.0f, cb, 0, n, sc, count, &queue,
                         NULL);
  CHECK(status == 0, "CLBlastSgemmStridedBatched status %d", status);
  for (size_t i = 0; i < count; i++) reference(101, 111, 111, m, n, k, 2.0, a, i * sa, k, b, i * sb, n, 0.0, want, i * sc, n);
  download(cb, got, count * sc, F32);
  CHECK(max_error(got, want, count * sc) < 1e-4, "CLBlastSgemmStridedBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  /* CLBlastDgemmBatched with per-item alphas and betas, column-major. */
  cb = upload(c, count * sc, F64);
  memcpy(want, c, count * sc * sizeof(double));
  const double alphas[3] = {1.0, -1.0, 0.25}, betas[3] = {1.0, 0.0, -2.0};
  const size_t ao[3] = {sa, 2 * sa, 0}, bo[3] = {2 * sb, 0, sb}, co[3] = {0, 2 * sc, sc};
  status = dgemm_batched(102, 111, 111, m, n, k, alphas, a8, ao, m, b8, bo, k, betas, cb, co, m, count, &queue, NULL);
  CHECK(status == 0, "CLBlastDgemmBatched status %d", status);
  for (size_t i = 0; i < count; i++) reference(102, 111, 111, m, n, k, alphas[i], a, ao[i], m, b, bo[i], k, betas[i], want, co[i], m);
  download(cb, got, count * sc, F64);
  CHECK(max_error(got, want, count * sc) < 1e-10, "CLBlastDgemmBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  /* CLBlastSaxpy: y = 3 x + y over the first 100 elements, from the real CLBlast behind the shim. */
  cl_mem yb = upload(c, 100, F32);
  status = saxpy(100, 3.0f, a4, 0, 1, yb, 0, 1, &queue, NULL);
  CHECK(status == 0, "CLBlastSaxpy status %d", status);
  for (size_t i = 0; i < 100; i++) want[i] = 3.0 * (float)a[i] + (float)c[i];
  download(yb, got, 100, F32);
  CHECK(max_error(got, want, 100) < 1e-5, "CLBlastSaxpy error %g", max_error(got, want, 100));
  clReleaseMemObject(yb);

  uint64_t (*builds)(void) = (uint64_t (*)(void))dlsym(handle, "FewfitProgramBuilds");
  if (builds) printf("backend: fewfit (%llu program builds)\n", (unsigned long long)builds());
  else printf("backend: clblast\n");
  printf("results: %s (%d of %d checks)\n", failures ? "WRONG" : "ok", checks - failures, checks);
  return failures ? 1 : 0;
}
