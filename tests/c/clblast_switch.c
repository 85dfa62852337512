/* A CLBlast client, built with `gcc ... -lclblast -lOpenCL -ldl` against Debian's libclblast-dev,
 * knowing nothing of fewfit. It reports which library each CLBlast GEMM symbol resolves to
 * (dladdr) and whether fewfit is loaded (dlsym of FewfitProgramBuilds), then checks
 * CLBlastSgemm, CLBlastSgemmStridedBatched and CLBlastSgemmBatched against an f64 reference,
 * CLBlastHgemm (fewfit runs it on any device; CLBlast returns CLBlastNoHalfPrecision on a device
 * without cl_khr_fp16, C untouched), then CLBlastClearCache and a GEMM after it.
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
  where("CLBlastHgemm", (void*)CLBlastHgemm);
  where("CLBlastHgemmBatched", (void*)CLBlastHgemmBatched);
  where("CLBlastHgemmStridedBatched", (void*)CLBlastHgemmStridedBatched);
  where("CLBlastClearCache", (void*)CLBlastClearCache);
  open_device();
  uint64_t (*builds)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "FewfitProgramBuilds");

  const size_t m = 19, n = 24, k = 33, count = 3, sa = m * k, sb = k * n, sc = m * n;
  double *a = random_array(count * sa), *b = random_array(count * sb), *c = random_array(count * sc);
  double *want = malloc(count * sc * sizeof(double)), *got = malloc(count * sc * sizeof(double));
  cl_mem ab = upload(a, count * sa, F32), bb = upload(b, count * sb, F32);

  /* One GEMM, column-major, A transposed. */
  cl_mem cb = upload(c, sc, F32);
  memcpy(want, c, sc * sizeof(double));
  cl_event ev = NULL;
  int status = CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeYes, CLBlastTransposeNo, m, n, k, 1.5f, ab, 0, k,
                            bb, 0, k, -0.5f, cb, 0, m, &queue, &ev);
  CHECK(status == CLBlastSuccess, "CLBlastSgemm status %d", status);
  if (ev) { clWaitForEvents(1, &ev); clReleaseEvent(ev); }
  reference(102, 112, 111, m, n, k, 1.5, a, 0, k, b, 0, k, -0.5, want, 0, m);
  download(cb, got, sc, F32);
  CHECK(max_error(got, want, sc) < 1e-4, "CLBlastSgemm error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);

  /* A strided batch, row-major. */
  cb = upload(c, count * sc, F32);
  memcpy(want, c, count * sc * sizeof(double));
  status = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                                      ab, 0, k, sa, bb, 0, n, sb, 1.0f, cb, 0, n, sc, count, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemmStridedBatched status %d", status);
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 111, m, n, k, 1.0, a, i * sa, k, b, i * sb, n, 1.0, want, i * sc, n);
  download(cb, got, count * sc, F32);
  CHECK(max_error(got, want, count * sc) < 1e-4, "CLBlastSgemmStridedBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  /* The array form with per-item alphas and betas. */
  cb = upload(c, count * sc, F32);
  memcpy(want, c, count * sc * sizeof(double));
  const float alphas[3] = {1.0f, -2.0f, 0.5f}, betas[3] = {0.0f, 1.0f, 2.0f};
  const size_t ao[3] = {2 * sa, 0, sa}, bo[3] = {0, sb, 2 * sb}, co[3] = {sc, 2 * sc, 0};
  status = CLBlastSgemmBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, alphas, ab, ao,
                               k, bb, bo, n, betas, cb, co, n, count, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemmBatched status %d", status);
  for (size_t i = 0; i < count; i++)
    reference(101, 111, 111, m, n, k, alphas[i], a, ao[i], k, b, bo[i], n, betas[i], want, co[i], n);
  download(cb, got, count * sc, F32);
  CHECK(max_error(got, want, count * sc) < 1e-4, "CLBlastSgemmBatched error %g", max_error(got, want, count * sc));
  clReleaseMemObject(cb);

  /* CLBlastHgemm, row-major, B transposed: binary16 data, alpha and beta as cl_half bits. */
  size_t extensions_size = 0;
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &extensions_size);
  char* extensions = calloc(extensions_size + 1, 1);
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, extensions_size, extensions, NULL);
  const int runs = builds || strstr(extensions, "cl_khr_fp16") != NULL;
  free(extensions);
  cl_mem ah = upload(a, sa, F16), bh = upload(b, sb, F16), ch = upload(c, sc, F16);
  double *a16 = malloc(sa * sizeof(double)), *b16 = malloc(sb * sizeof(double)), *c16 = malloc(sc * sizeof(double));
  for (size_t i = 0; i < sa; i++) a16[i] = rounded(a[i], F16);
  for (size_t i = 0; i < sb; i++) b16[i] = rounded(b[i], F16);
  for (size_t i = 0; i < sc; i++) c16[i] = rounded(c[i], F16);
  memcpy(want, c16, sc * sizeof(double));
  status = CLBlastHgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, m, n, k, f16_bits(1.5), ah, 0,
                        k, bh, 0, k, f16_bits(0.5), ch, 0, n, &queue, NULL);
  CHECK(status == (runs ? CLBlastSuccess : CLBlastNoHalfPrecision), "CLBlastHgemm status %d", status);
  if (runs) reference(101, 111, 112, m, n, k, 1.5, a16, 0, k, b16, 0, k, 0.5, want, 0, n);
  download(ch, got, sc, F16);
  /* fewfit: f32 arithmetic, C rounded once; CLBlast (on a device with fp16): half arithmetic. */
  const double half_tol = !runs ? 0 : builds ? tolerance(F16, k) : 5e-2;
  CHECK(max_error(got, want, sc) <= half_tol, "CLBlastHgemm error %g", max_error(got, want, sc));
  clReleaseMemObject(ah), clReleaseMemObject(bh), clReleaseMemObject(ch);
  free(a16), free(b16), free(c16);

  if (builds) printf("backend: fewfit (%llu program builds)\n", (unsigned long long)builds());
  else printf("backend: clblast\n");

  /* The caches cleared (fewfit's, then CLBlast's behind it), and a GEMM right after. */
  uint64_t built = builds ? builds() : 0;
  status = CLBlastClearCache();
  CHECK(status == CLBlastSuccess, "CLBlastClearCache status %d", status);
  cb = upload(c, sc, F32);
  memcpy(want, c, sc * sizeof(double));
  status = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeYes, m, n, k, 2.0f, ab, 0, k, bb, 0,
                        k, 0.0f, cb, 0, n, &queue, NULL);
  CHECK(status == CLBlastSuccess, "CLBlastSgemm after CLBlastClearCache status %d", status);
  reference(101, 111, 112, m, n, k, 2.0, a, 0, k, b, 0, k, 0.0, want, 0, n);
  download(cb, got, sc, F32);
  CHECK(max_error(got, want, sc) < 1e-4, "CLBlastSgemm after CLBlastClearCache error %g", max_error(got, want, sc));
  clReleaseMemObject(cb);
  if (builds) CHECK(builds() > built, "fewfit built nothing after CLBlastClearCache");
  printf("results: %s (%d of %d checks)\n", failures ? "WRONG" : "ok", checks - failures, checks);
  return failures ? 1 : 0;
}
