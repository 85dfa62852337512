"""Runs a set of ML GEMM shapes through fewfit and pyclblast on the default OpenCL device, prints a
table and writes a bar chart of GFLOP/s per shape for both.

    pip install fewfit[examples] pyclblast   # pyclblast is optional: without it, fewfit alone
    python python/examples/ml_shapes.py --out ml_shapes.png

The device is pyopencl's default (PYOPENCL_CTX picks another). Each shape is a row-major NN GEMM
(C = A B, float32 unless --dtype float64) on pyopencl Arrays, called as pyclblast.gemm is; the time
is the median wall time of a call and its event's wait after one warm-up call, checked against
NumPy first.
"""

import argparse
import datetime
import os
import platform
import statistics
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import fewfit

try:
    import pyclblast
except ImportError:  # the comparison is left out
    pyclblast = None

# (name, m, n, k): the shapes of examples/ml_shapes.rs.
SHAPES = [
    ("llama decode q/k/v proj", 1, 4096, 4096),
    ("llama decode mlp up, 8 tokens", 8, 11008, 4096),
    ("bert attention out, 128 tokens", 128, 768, 768),
    ("bert mlp up, 384 tokens", 384, 3072, 768),
    ("gpt2 mlp down, 512 tokens", 512, 768, 3072),
    ("resnet50 conv3x3 (im2col), 14x14", 196, 256, 2304),
    ("resnet50 conv, 7x7 batch 1", 49, 512, 4608),
    ("lm head, 16 tokens", 16, 32000, 4096),
    ("odd sizes", 1000, 1023, 999),
    ("square 1024", 1024, 1024, 1024),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def time_gemm(module, queue, shape, a, b, c, reps):
    """Median seconds of module.gemm + wait, after a warm-up call (which builds its kernels)."""
    _, m, n, k = shape
    module.gemm(queue, m, n, k, a, b, c, k, n, n).wait()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        module.gemm(queue, m, n, k, a, b, c, k, n, n).wait()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="ml_shapes.png", help="the bar chart (PNG)")
    parser.add_argument("--reps", type=int, default=7, help="timed calls per shape and library")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    args = parser.parse_args()
    dtype = np.dtype(args.dtype)

    queue = cl.CommandQueue(cl.create_some_context(interactive=False))
    dev = fewfit.device(queue)
    machine = f"{cpu_model()}, {os.cpu_count()} cores" if dev.device_class == "cpu" else dev.name
    print(f"device: {dev}")
    print(f"machine: {machine}")
    start = time.perf_counter()
    fewfit.warm_up(queue, dtype)
    print(f"fewfit's variant set ready in {time.perf_counter() - start:.2f} s")
    if pyclblast is None:
        print("pyclblast is not installed: fewfit alone")

    rng = np.random.default_rng(42)
    rows = []
    header = f"{'shape':<34} {'M':>5} {'N':>6} {'K':>5}  {'fewfit variant':<26} {'fewfit':>8}"
    header += f" {'pyclblast':>10} {'ratio':>6}" if pyclblast else ""
    print("\nGFLOP/s (median of %d calls, %s)\n%s" % (args.reps, dtype.name, header))
    for shape in SHAPES:
        name, m, n, k = shape
        a_h = rng.uniform(-1, 1, (m, k)).astype(dtype)
        b_h = rng.uniform(-1, 1, (k, n)).astype(dtype)
        a, b = cla.to_device(queue, a_h), cla.to_device(queue, b_h)
        c = cla.zeros(queue, (m, n), dtype)
        fewfit.gemm(queue, m, n, k, a, b, c, k, n, n).wait()
        expected = a_h.astype(np.float64) @ b_h
        np.testing.assert_allclose(c.get(), expected, rtol=1e-3, atol=1e-3 * np.sqrt(k))
        flops = 2.0 * m * n * k
        ours = flops / time_gemm(fewfit, queue, shape, a, b, c, args.reps) / 1e9
        theirs = None
        if pyclblast is not None:
            theirs = flops / time_gemm(pyclblast, queue, shape, a, b, c, args.reps) / 1e9
        variant = fewfit.explain(m, n, k, queue=queue).variant
        line = f"{name:<34} {m:>5} {n:>6} {k:>5}  {variant:<26} {ours:>8.1f}"
        line += f" {theirs:>10.1f} {ours / theirs:>5.2f}x" if theirs else ""
        print(line)
        rows.append((name, ours, theirs))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.2), dpi=80)
    x = np.arange(len(rows))
    width = 0.4 if pyclblast else 0.6
    ax.bar(x - (width / 2 if pyclblast else 0), [r[1] for r in rows], width, label="fewfit", color="#2a7ab0")
    if pyclblast:
        ax.bar(x + width / 2, [r[2] for r in rows], width, label="pyclblast (CLBlast)", color="#e08a2c")
    ax.set_xticks(x)
    ax.set_xticklabels([r[0] for r in rows], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"GFLOP/s ({dtype.name}, higher is better)")
    day = datetime.date.today().isoformat()
    words = dev.platform_version.split()
    runtime = " ".join(words[2:4]) if words[:1] == ["OpenCL"] else dev.platform_version
    libraries = "fewfit and pyclblast" if pyclblast else "fewfit"
    ax.set_title(f"ML GEMM shapes through {libraries}, {day}\n{dev.name} ({runtime}) on {machine}", fontsize=9)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
