// A client of CLBlast's C++ API, as the programs that really called CLBlast's GEMM were (ggml's
// CLBlast backend, ArrayFire, Caffe's OpenCL branch, primitiv call clblast::Gemm<T>), built against
// Debian's libclblast-dev and knowing nothing of fewfit:
//   g++ -std=c++17 clblast_cpp.cpp -lclblast -lOpenCL -ldl
// It reports which library each C++ GEMM and cache symbol resolves to (dladdr) and whether fewfit is
// loaded (dlsym of FewfitProgramBuilds), then checks Gemm<float> (with an event), Gemm<double>
// (with a temporary buffer), GemmBatched<float> (per-item alphas and betas),
// GemmStridedBatched<double> against an f64 reference, a leading dimension too small
// (kInvalidLeadDimA), Gemm<half>, GemmBatched<half> and GemmStridedBatched<half> (half is cl_half;
// fewfit runs them on any device, CLBlast where the device has cl_khr_fp16 and returns
// kNoHalfPrecision elsewhere, C untouched), with `--fill-cache` FillCache(device), then ClearCache()
// and a Gemm after it.
// Run plainly it uses CLBlast; with LD_PRELOAD of fewfit's library (feature clblast-compat),
// fewfit; linked against fewfit alone (tests/c/cmake_consumer), fewfit without CLBlast.
// Prints "symbol NAME LIBRARY" lines, "backend: ..." and "results: ok"; exit status 0 if correct.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CL_TARGET_OPENCL_VERSION 300
#include <clblast.h>
#include <clblast_half.h>

namespace {

int checks = 0, failures = 0;

void check(bool ok, const char* what, double value = 0.0) {
  checks++;
  if (!ok) {
    failures++;
    std::fprintf(stderr, "FAIL %s (%g)\n", what, value);
  }
}

void where(const char* name, void* address) {
  Dl_info info;
  std::printf("symbol %s %s\n", name, dladdr(address, &info) && info.dli_fname ? info.dli_fname : "?");
}

cl_device_id device;
cl_context context;
cl_command_queue queue;

// The first device of the type FEWFIT_DEVICE names (gpu, cpu; else any) of the first platform with one.
void open_device() {
  const char* spec = std::getenv("FEWFIT_DEVICE");
  cl_device_type type = CL_DEVICE_TYPE_ALL;
  if (spec && std::strcmp(spec, "gpu") == 0) type = CL_DEVICE_TYPE_GPU;
  if (spec && std::strcmp(spec, "cpu") == 0) type = CL_DEVICE_TYPE_CPU;
  cl_platform_id platforms[8];
  cl_uint count = 0;
  clGetPlatformIDs(8, platforms, &count);
  for (cl_uint p = 0; p < count; p++) {
    cl_uint found = 0;
    if (clGetDeviceIDs(platforms[p], type, 1, &device, &found) == CL_SUCCESS && found > 0) {
      cl_int err;
      context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
      if (err == CL_SUCCESS) queue = clCreateCommandQueueWithProperties(context, device, nullptr, &err);
      if (err == CL_SUCCESS) return;
    }
  }
  std::fprintf(stderr, "no OpenCL device\n");
  std::exit(2);
}

template <typename T>
std::vector<T> random_values(size_t len, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(len);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

template <typename T>
cl_mem upload(const std::vector<T>& v) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T),
                            const_cast<T*>(v.data()), &err);
  if (err != CL_SUCCESS) { std::fprintf(stderr, "clCreateBuffer %d\n", err); std::exit(2); }
  return m;
}

template <typename T>
std::vector<T> download(cl_mem m, size_t len) {
  std::vector<T> v(len);
  clEnqueueReadBuffer(queue, m, CL_TRUE, 0, len * sizeof(T), v.data(), 0, nullptr, nullptr);
  return v;
}

// C = alpha op(A) op(B) + beta C in f64 at the given offsets, CLBlast's layouts and transposes.
template <typename T>
void reference(clblast::Layout layout, clblast::Transpose ta, clblast::Transpose tb, size_t m, size_t n, size_t k,
               double alpha, const std::vector<T>& a, size_t ao, size_t lda, const std::vector<T>& b, size_t bo,
               size_t ldb, double beta, std::vector<double>& c, size_t co, size_t ldc) {
  const bool row = layout == clblast::Layout::kRowMajor;
  auto at = [&](size_t r, size_t col, size_t ld) { return row ? r * ld + col : r + col * ld; };
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double sum = 0;
      for (size_t l = 0; l < k; l++) {
        double x = a[ao + (ta == clblast::Transpose::kNo ? at(i, l, lda) : at(l, i, lda))];
        double y = b[bo + (tb == clblast::Transpose::kNo ? at(l, j, ldb) : at(j, l, ldb))];
        sum += x * y;
      }
      double& out = c[co + at(i, j, ldc)];
      out = alpha * sum + beta * out;
    }
}

template <typename T>
double max_error(const std::vector<T>& got, const std::vector<double>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); i++) worst = std::fmax(worst, std::fabs(got[i] - want[i]));
  return worst;
}

template <typename T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// The values of binary16 elements.
std::vector<double> widen_half(const std::vector<cl_half>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); i++) out[i] = HalfToFloat(v[i]);
  return out;
}

// Whether the device lists cl_khr_fp16, which CLBlast's half precision needs (fewfit's does not).
bool device_has_fp16() {
  size_t size = 0;
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::vector<char> extensions(size + 1, '\0');
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  return std::strstr(extensions.data(), "cl_khr_fp16") != nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using clblast::Layout;
  using clblast::StatusCode;
  using clblast::Transpose;
  const bool fill_cache = argc > 1 && std::strcmp(argv[1], "--fill-cache") == 0;
  where("clblast::Gemm<float>", reinterpret_cast<void*>(&clblast::Gemm<float>));
  where("clblast::Gemm<double>", reinterpret_cast<void*>(&clblast::Gemm<double>));
  where("clblast::GemmBatched<float>", reinterpret_cast<void*>(&clblast::GemmBatched<float>));
  where("clblast::GemmBatched<double>", reinterpret_cast<void*>(&clblast::GemmBatched<double>));
  where("clblast::GemmStridedBatched<float>", reinterpret_cast<void*>(&clblast::GemmStridedBatched<float>));
  where("clblast::GemmStridedBatched<double>", reinterpret_cast<void*>(&clblast::GemmStridedBatched<double>));
  where("clblast::Gemm<half>", reinterpret_cast<void*>(&clblast::Gemm<cl_half>));
  where("clblast::GemmBatched<half>", reinterpret_cast<void*>(&clblast::GemmBatched<cl_half>));
  where("clblast::GemmStridedBatched<half>", reinterpret_cast<void*>(&clblast::GemmStridedBatched<cl_half>));
  where("clblast::ClearCache", reinterpret_cast<void*>(&clblast::ClearCache));
  where("clblast::FillCache", reinterpret_cast<void*>(&clblast::FillCache));
  open_device();
  auto builds = reinterpret_cast<uint64_t (*)()>(dlsym(RTLD_DEFAULT, "FewfitProgramBuilds"));

  const size_t m = 19, n = 24, k = 33, count = 3, sa = m * k, sb = k * n, sc = m * n;
  const auto a32 = random_values<float>(count * sa, 1), b32 = random_values<float>(count * sb, 2);
  const auto c32 = random_values<float>(count * sc, 3);
  const auto a64 = random_values<double>(count * sa, 4), b64 = random_values<double>(count * sb, 5);
  const auto c64 = random_values<double>(count * sc, 6);
  cl_mem a32b = upload(a32), b32b = upload(b32), a64b = upload(a64), b64b = upload(b64);

  // Gemm<float>: column-major, A transposed, with an event.
  {
    cl_mem cb = upload(c32);
    cl_event event = nullptr;
    auto status = clblast::Gemm<float>(Layout::kColMajor, Transpose::kYes, Transpose::kNo, m, n, k, 1.5f, a32b, 0,
                                       k, b32b, 0, k, -0.5f, cb, 0, m, &queue, &event);
    check(status == StatusCode::kSuccess, "Gemm<float> status", static_cast<int>(status));
    if (event) { clWaitForEvents(1, &event); clReleaseEvent(event); }
    auto want = widen(std::vector<float>(c32.begin(), c32.begin() + sc));
    reference(Layout::kColMajor, Transpose::kYes, Transpose::kNo, m, n, k, 1.5, a32, 0, k, b32, 0, k, -0.5, want, 0, m);
    auto err = max_error(download<float>(cb, sc), want);
    check(err < 1e-4, "Gemm<float> error", err);
    clReleaseMemObject(cb);
  }
  // Gemm<double>: row-major, B transposed, offsets, a temporary buffer, no event.
  {
    cl_mem cb = upload(c64);
    cl_int err;
    cl_mem temp = clCreateBuffer(context, CL_MEM_READ_WRITE, 1 << 20, nullptr, &err);
    auto status = clblast::Gemm<double>(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k, 2.0, a64b, sa,
                                        k, b64b, sb, k, 0.5, cb, sc, n, &queue, nullptr, temp);
    check(status == StatusCode::kSuccess, "Gemm<double> status", static_cast<int>(status));
    auto want = widen(c64);
    reference(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k, 2.0, a64, sa, k, b64, sb, k, 0.5, want, sc,
              n);
    auto e = max_error(download<double>(cb, count * sc), want);
    check(e < 1e-10, "Gemm<double> error", e);
    clReleaseMemObject(temp);
    clReleaseMemObject(cb);
  }
  // GemmBatched<float>: per-item alphas, betas and offsets.
  {
    cl_mem cb = upload(c32);
    const float alphas[3] = {1.0f, -2.0f, 0.5f}, betas[3] = {0.0f, 1.0f, 2.0f};
    const size_t ao[3] = {2 * sa, 0, sa}, bo[3] = {0, sb, 2 * sb}, co[3] = {sc, 2 * sc, 0};
    auto status = clblast::GemmBatched<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, m, n, k, alphas,
                                              a32b, ao, k, b32b, bo, n, betas, cb, co, n, count, &queue, nullptr);
    check(status == StatusCode::kSuccess, "GemmBatched<float> status", static_cast<int>(status));
    auto want = widen(c32);
    for (size_t i = 0; i < count; i++)
      reference(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, m, n, k, alphas[i], a32, ao[i], k, b32, bo[i], n,
                betas[i], want, co[i], n);
    auto e = max_error(download<float>(cb, count * sc), want);
    check(e < 1e-4, "GemmBatched<float> error", e);
    clReleaseMemObject(cb);
  }
  // GemmStridedBatched<double>: column-major, both transposed.
  {
    cl_mem cb = upload(c64);
    auto status = clblast::GemmStridedBatched<double>(Layout::kColMajor, Transpose::kYes, Transpose::kYes, m, n, k,
                                                      1.0, a64b, 0, k, sa, b64b, 0, n, sb, -1.0, cb, 0, m, sc, count,
                                                      &queue, nullptr);
    check(status == StatusCode::kSuccess, "GemmStridedBatched<double> status", static_cast<int>(status));
    auto want = widen(c64);
    for (size_t i = 0; i < count; i++)
      reference(Layout::kColMajor, Transpose::kYes, Transpose::kYes, m, n, k, 1.0, a64, i * sa, k, b64, i * sb, n,
                -1.0, want, i * sc, m);
    auto e = max_error(download<double>(cb, count * sc), want);
    check(e < 1e-10, "GemmStridedBatched<double> error", e);
    clReleaseMemObject(cb);
  }
  // A's leading dimension below its line length: CLBlast's code, and C untouched.
  {
    cl_mem cb = upload(c32);
    auto status = clblast::Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, m, n, k, 1.0f, a32b, 0,
                                       k - 1, b32b, 0, n, 0.0f, cb, 0, n, &queue);
    check(status == StatusCode::kInvalidLeadDimA, "Gemm<float> with lda < k: status", static_cast<int>(status));
    auto e = max_error(download<float>(cb, sc), widen(std::vector<float>(c32.begin(), c32.begin() + sc)));
    check(e == 0, "Gemm<float> with lda < k: C changed", e);
    clReleaseMemObject(cb);
  }

  // Half precision: Gemm<half> (column-major, A transposed), GemmBatched<half> (per-item alphas and
  // betas) and GemmStridedBatched<half> (row-major, B transposed). fewfit computes in f32 and rounds
  // C once; CLBlast, where it runs them, computes in half.
  {
    const bool runs = builds || device_has_fp16();
    const double tol = builds ? 4e-3 : 5e-2;
    std::vector<cl_half> a16(count * sa), b16(count * sb), c16(count * sc);
    for (size_t i = 0; i < a16.size(); i++) a16[i] = FloatToHalf(a32[i]);
    for (size_t i = 0; i < b16.size(); i++) b16[i] = FloatToHalf(b32[i]);
    for (size_t i = 0; i < c16.size(); i++) c16[i] = FloatToHalf(c32[i]);
    const auto a = widen_half(a16), b = widen_half(b16), c = widen_half(c16);
    cl_mem a16b = upload(a16), b16b = upload(b16);
    auto expect = [&](StatusCode status, cl_mem cb, const std::vector<double>& want, const char* what) {
      std::string label = std::string(what) + (runs ? " status" : " status (kNoHalfPrecision expected)");
      check(status == (runs ? StatusCode::kSuccess : StatusCode::kNoHalfPrecision), label.c_str(),
            static_cast<int>(status));
      auto e = max_error(widen_half(download<cl_half>(cb, count * sc)), runs ? want : c);
      check(runs ? e < tol : e == 0, (std::string(what) + (runs ? " error" : ": C changed")).c_str(), e);
    };
    cl_mem cb = upload(c16);
    auto status = clblast::Gemm<cl_half>(Layout::kColMajor, Transpose::kYes, Transpose::kNo, m, n, k,
                                         FloatToHalf(1.5f), a16b, 0, k, b16b, 0, k, FloatToHalf(-0.5f), cb, 0, m,
                                         &queue, nullptr);
    auto want = c;
    reference(Layout::kColMajor, Transpose::kYes, Transpose::kNo, m, n, k, 1.5, a, 0, k, b, 0, k, -0.5, want, 0, m);
    expect(status, cb, want, "Gemm<half>");
    clReleaseMemObject(cb);

    cb = upload(c16);
    const cl_half alphas[3] = {FloatToHalf(1.0f), FloatToHalf(-2.0f), FloatToHalf(0.5f)};
    const cl_half betas[3] = {FloatToHalf(0.0f), FloatToHalf(1.0f), FloatToHalf(2.0f)};
    const size_t ao[3] = {2 * sa, 0, sa}, bo[3] = {0, sb, 2 * sb}, co[3] = {sc, 2 * sc, 0};
    status = clblast::GemmBatched<cl_half>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, m, n, k, alphas, a16b,
                                           ao, k, b16b, bo, n, betas, cb, co, n, count, &queue, nullptr);
    want = c;
    for (size_t i = 0; i < count; i++)
      reference(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, m, n, k, HalfToFloat(alphas[i]), a, ao[i], k, b,
                bo[i], n, HalfToFloat(betas[i]), want, co[i], n);
    expect(status, cb, want, "GemmBatched<half>");
    clReleaseMemObject(cb);

    cb = upload(c16);
    status = clblast::GemmStridedBatched<cl_half>(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k,
                                                  FloatToHalf(0.75f), a16b, 0, k, sa, b16b, 0, k, sb,
                                                  FloatToHalf(1.0f), cb, 0, n, sc, count, &queue, nullptr);
    want = c;
    for (size_t i = 0; i < count; i++)
      reference(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k, 0.75, a, i * sa, k, b, i * sb, k, 1.0,
                want, i * sc, n);
    expect(status, cb, want, "GemmStridedBatched<half>");
    clReleaseMemObject(cb);
    clReleaseMemObject(a16b);
    clReleaseMemObject(b16b);
  }

  if (builds) std::printf("backend: fewfit (%llu program builds)\n", static_cast<unsigned long long>(builds()));
  else std::printf("backend: clblast\n");

  if (fill_cache) {
    auto status = clblast::FillCache(device);
    check(status == StatusCode::kSuccess, "FillCache status", static_cast<int>(status));
  }
  // The caches cleared, and a GEMM right after.
  const uint64_t built = builds ? builds() : 0;
  auto status = clblast::ClearCache();
  check(status == StatusCode::kSuccess, "ClearCache status", static_cast<int>(status));
  {
    cl_mem cb = upload(c32);
    status = clblast::Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k, 2.0f, a32b, 0, k,
                                  b32b, 0, k, 0.0f, cb, 0, n, &queue);
    check(status == StatusCode::kSuccess, "Gemm<float> after ClearCache status", static_cast<int>(status));
    auto want = widen(std::vector<float>(c32.begin(), c32.begin() + sc));
    reference(Layout::kRowMajor, Transpose::kNo, Transpose::kYes, m, n, k, 2.0, a32, 0, k, b32, 0, k, 0.0, want, 0, n);
    auto e = max_error(download<float>(cb, sc), want);
    check(e < 1e-4, "Gemm<float> after ClearCache error", e);
    clReleaseMemObject(cb);
  }
  if (builds) check(builds() > built, "fewfit built nothing after ClearCache");
  for (cl_mem b : {a32b, b32b, a64b, b64b}) clReleaseMemObject(b);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  std::printf("results: %s (%d of %d checks)\n", failures ? "WRONG" : "ok", checks - failures, checks);
  return failures ? 1 : 0;
}
