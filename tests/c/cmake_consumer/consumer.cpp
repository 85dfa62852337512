// A C++ program of a project that uses fewfit's C API (CMakeLists.txt beside it): a row-major
// single- and double-precision GEMM on the first OpenCL device of the type FEWFIT_DEVICE names,
// checked against a host loop. Prints "consumer: ok" and exits 0 if correct.
#include <fewfit.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static cl_context context;
static cl_command_queue queue;

static bool open_device() {
  const char* spec = std::getenv("FEWFIT_DEVICE");
  cl_device_type type = CL_DEVICE_TYPE_ALL;
  if (spec && std::strcmp(spec, "gpu") == 0) type = CL_DEVICE_TYPE_GPU;
  if (spec && std::strcmp(spec, "cpu") == 0) type = CL_DEVICE_TYPE_CPU;
  cl_platform_id platforms[8];
  cl_uint count = 0;
  clGetPlatformIDs(8, platforms, &count);
  for (cl_uint p = 0; p < count; p++) {
    cl_device_id device;
    cl_uint found = 0;
    if (clGetDeviceIDs(platforms[p], type, 1, &device, &found) == CL_SUCCESS && found > 0) {
      cl_int err;
      context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
      if (err == CL_SUCCESS) queue = clCreateCommandQueueWithProperties(context, device, nullptr, &err);
      return err == CL_SUCCESS;
    }
  }
  return false;
}

// C (m x n) = A (m x k) * B (k x n), row-major, through fewfit; the largest error against a host loop.
template <typename T>
static double run(FewfitStatusCode (*gemm)(FewfitLayout, FewfitTranspose, FewfitTranspose, size_t, size_t, size_t, T,
                                           cl_mem, size_t, size_t, cl_mem, size_t, size_t, T, cl_mem, size_t, size_t,
                                           cl_command_queue*, cl_event*)) {
  const size_t m = 30, n = 20, k = 50;
  std::vector<T> a(m * k), b(k * n), c(m * n, T(0));
  for (size_t i = 0; i < a.size(); i++) a[i] = T((i * 7 % 13) - 6) / T(8);
  for (size_t i = 0; i < b.size(); i++) b[i] = T((i * 5 % 11) - 5) / T(4);
  cl_int err;
  cl_mem ab = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, a.size() * sizeof(T), a.data(), &err);
  cl_mem bb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, b.size() * sizeof(T), b.data(), &err);
  cl_mem cb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, c.size() * sizeof(T), c.data(), &err);
  FewfitStatusCode status = gemm(FewfitLayoutRowMajor, FewfitTransposeNo, FewfitTransposeNo, m, n, k, T(1), ab, 0, k,
                                 bb, 0, n, T(0), cb, 0, n, &queue, nullptr);
  if (status != FewfitSuccess) {
    std::fprintf(stderr, "status %d\n", status);
    return 1e9;
  }
  clEnqueueReadBuffer(queue, cb, CL_TRUE, 0, c.size() * sizeof(T), c.data(), 0, nullptr, nullptr);
  double worst = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double want = 0;
      for (size_t l = 0; l < k; l++) want += double(a[i * k + l]) * double(b[l * n + j]);
      worst = std::fmax(worst, std::fabs(double(c[i * n + j]) - want));
    }
  for (cl_mem mem : {ab, bb, cb}) clReleaseMemObject(mem);
  return worst;
}

int main() {
  if (!open_device()) {
    std::fprintf(stderr, "no OpenCL device\n");
    return 2;
  }
  const double single = run<float>(FewfitSgemm), twice = run<double>(FewfitDgemm);
  const bool ok = single < 1e-4 && twice < 1e-10 && FewfitProgramBuilds() > 0;
  std::printf("consumer: %s (errors %g in single, %g in double; %llu program builds)\n", ok ? "ok" : "WRONG", single,
              twice, static_cast<unsigned long long>(FewfitProgramBuilds()));
  FewfitClearCache();
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return ok ? 0 : 1;
}
