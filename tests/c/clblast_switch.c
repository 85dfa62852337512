/* A CLBlast client, built with `gcc ... -lclblast -lOpenCL -ldl` against Debian's libclblast-dev,
 * knowing nothing of fewfit. It reports which library each CLBlast GEMM symbol resolves to
 * (dladdr) and whether fewfit is loaded (dlsym of FewfitProgramBuilds), then checks
 * CLBlastSgemm, CLBlastSgemmStridedBatched and CLBlastSgemmBatched against an f64 reference, then
 * CLBlastClearCache and a GEMM after it.
 * Run plainly it uses CLBlast; with LD_PRELOAD=<libfewfit.so built with clblast-compat>, fewfit.
 * Prints "symbol NAME LIBRARY" lines, "backend: ..." and "results: ok"; exit status 0 if correct. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#define CL_TARGET_OPENCL_VERSION 300
#include <clblast_c.h>
#include "common.h"

static void where(const char* name, void* address) {
  Dl_info info;
  printf("symbol %s %s\n", name, dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?");
}

int main(void) {
  where("CLBlastSgemm", (void*)CLBlastSgemm);
  where("CLBlastDgemm", (void*)CLBlastDgemm);
  where("CLBlastSgemmBatched", (void*)CLBlastSgemmBatched);
  where("CLBlastDgemmBatched", (void*)CLBlastDgemmBatched);
  where("CLBlastSgemmStridedBatched", (void*)CLBlastSgemmStridedBatched);
  where("CLBlastDgemmStridedBatched", (void*)CLBlastDgemmStridedBatched);
  where("CLBlastClearCache", (void*)CLBlastClearCache);
  open_device();

  const size_t m = 19, n = 24, k = 33, count = 3, sa = m * k, sb = k * n, sc = m * n;
  double *a = random_array(count * sa), *b = random_array(count * sb), *c = random_array(count * sc);
  double *want = malloc(count * sc * sizeof(double)), *got = malloc(count * sc * sizeof(double));
  cl_mem ab = upload(a, count * sa, 4), bb = upload(b, count * sb, 4);

  /* One GEMM, column-major, A transposed. */
  cl_mem cb = upload(c, sc, 4);
  memcpy(want, c, sc * sizeof(double));
  cl_event ev = NULL;
  int status = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeYes, CLBlastTransposeNo, m, n, k, 1.5f, ab, 0, k,
                            bb, 0, k, -0.5f, cb, 0, m, &queue, &ev);
  CHECK(status == CLBlastSuccess, "CLBlastSgemm status %d", status);
  if (ev) { clWaitForEvents(1, &ev); clReleaseEvent(ev); }
  reference(102, 112, 111, m, n, k, 1.5, a, 0, k, b, 0, k, -0.5, want, 0, m);
  download(cb, got, sc, 4);
  CHECK(max_error(got, want, sc) < 1e-4, "CLBlastSgemm error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);

  /* A strided batch, row-major. */
  cb = upload(c, count * sc, 4);
  memcpy(want, c, count * sc * sizeof(double));
  status = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                                      ab, 0, k, sa, bb, 0, n, sb, 1.0f, cb, 0, n, sc, count, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemmStridedBatched status %d", status);
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 111, m, n, k, 1.0, a, i * sa, k, b, i * sb, n, 1.0, want, i * sc, n);
  download(cb, got, count * sc, 4);
  CHECK(max_error(got, want, count * sc) < 1e-4, "CLBlastSgemmStridedBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  /* The array form with per-item alphas and betas. */
  cb = upload(c, count * sc, 4);
  memcpy(want, c, count * sc * sizeof(double));
  const float alphas[3] = {1.0f, -2.0f, 0.5f}, betas[3] = {0.0f, 1.0f, 2.0f};
  const size_t ao[3] = {2 * sa, 0, sa}, bo[3] = {0, sb, 2 * sb}, co[3] = {sc, 2 * sc, 0};
  status = CLBlastSgemmBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, alphas, ab, ao,
                               k, bb, bo, n, betas, cb, co, n, count, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemmBatched status %d", status);
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 111, m, n, k, alphas[i], a, ao[i], k, b, bo[i], n, betas[i], want, co[i], n);
  download(cb, got, count * sc, 4);
  CHECK(max_error(got, want, count * sc) < 1e-4, "CLBlastSgemmBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  uint64_t (*builds)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "FewfitProgramBuilds");
  if (builds) printf("backend: fewfit (%llu program builds)\n", (unsigned long long)builds());
  else printf("backend: clblast\n");

  /* The caches cleared (fewfit's, then CLBlast's behind it), and a GEMM right after. */
  uint64_t built = builds ? builds() : 0;
  status = CLBlastClearCache();
  CHECK(status == CLBlastSuccess, "CLBlastClearCache status %d", status);
  cb = upload(c, sc, 4);
  memcpy(want, c, sc * sizeof(double));
  status = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, m, n, k, 2.0f, ab, 0, k, bb, 0,
                        k, 0.0f, cb, 0, n, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemm after CLBlastClearCache status %d", status);
  reference(101, 111, 112, m, n, k, 2.0, a, 0, k, b, 0, k, 0.0, want, 0, n);
  download(cb, got, sc, 4);
  CHECK(max_error(got, want, sc) < 1e-4, "CLBlastSgemm after CLBlastClearCache error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);
  if (builds) CHECK(builds() > built, "fewfit built nothing after CLBlastClearCache");
  printf("results: %s (%d of %d checks)\n", failures ? "WRONG" : "ok", checks - failures, checks);
  return failures ? 1 : 0;
}
