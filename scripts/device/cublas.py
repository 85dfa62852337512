"""cuBLAS FP32 (TF32 off) through PyTorch on row-major NN GEMMs: median of 20 timed calls after
warm-up, with the device synchronised around each call. Shapes as 'm n k' lines on stdin or argv."""
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def time_gemm(m, n, k, repeats=20):
    a = torch.randn(m, k, device="cuda", dtype=torch.float32)
    b = torch.randn(k, n, device="cuda", dtype=torch.float32)
    for _ in range(3):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        torch.matmul(a, b)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    lines = sys.argv[1:] or [l for l in sys.stdin.read().splitlines()]
    print(f"cuBLAS via torch {torch.__version__} on {torch.cuda.get_device_name(0)} (TF32 off)")
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        m, n, k = (int(x) for x in line.replace(",", " ").split()[:3])
        t = time_gemm(m, n, k)
        print(f"cublas {m} {n} {k} median_ms {t * 1e3:.4f} gflops {2 * m * n * k / t / 1e9:.1f}")


if __name__ == "__main__":
    main()
