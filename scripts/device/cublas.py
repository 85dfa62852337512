"""cuBLAS through PyTorch on row-major NN GEMMs (NT with --transpose-b: B stored N x K,
as a `Linear` layer's weights, multiplied as b.t()) in one precision (--dtype): f32 (TF32 off), f16 or
bf16 (half / bfloat16 tensors, on tensor cores with f32 accumulation: PyTorch's reduced-precision
reductions are turned off), or tf32 (float32 tensors with TF32 allowed), timed as examples/peers.rs times
fewfit: warm-up calls, then the median of N calls with the device synchronised after each (wall
time), and the median of CUDA events around each call (device time). The events of the device time
follow a spin kernel (torch.cuda._sleep) that keeps the stream busy while the host enqueues the
call, so that they time the GPU's work and not PyTorch's launch path, as fewfit's OpenCL profiling
events time its kernels only.

Usage: python3 cublas.py [--dtype f32|f16|bf16|tf32] [--shapes FILE] [--json OUT] [--repeats 20] [--warmup 3]
                         [--max-flops F] [--transpose-b] [M N K ...]
Shapes: 'M N K' lines of FILE (# comments), else triples on the command line, else lines on stdin.
Prints one 'cublas M N K wall_ms X event_ms Y gflops Z event_gflops W' line per shape."""
import argparse
import datetime
import json
import sys
import time

import torch

# Storage dtype per --dtype (tf32 stores float32).
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}

# GPU clock cycles of the spin kernel before each timed call's events: about 100 µs at 2 GHz, longer
# than PyTorch takes to enqueue the events and the GEMM.
BUSY_CYCLES = 200_000


def parse_shapes(lines):
    shapes = []
    for line in lines:
        line = line.split("#")[0].replace(",", " ").replace("x", " ").strip()
        if line:
            m, n, k = (int(x) for x in line.split()[:3])
            shapes.append((m, n, k))
    return shapes


def set_precision(dtype):
    """TF32 only for tf32; f16 and bf16 accumulate in f32 (as fewfit), not in reduced precision."""
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = dtype == "tf32"
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False


def random(rows, cols, dtype):
    """Uniform in [-1, 1), drawn in float32 and rounded to the storage type."""
    return (torch.rand(rows, cols, device="cuda", dtype=torch.float32) * 2 - 1).to(DTYPES[dtype])


def time_gemm(m, n, k, repeats, warmup, transpose_b=False, dtype="f32"):
    a = random(m, k, dtype)
    b = random(n, k, dtype).t() if transpose_b else random(k, n, dtype)
    for _ in range(warmup):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    wall, device = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        torch.matmul(a, b)
        torch.cuda.synchronize()
        wall.append((time.perf_counter() - t) * 1e3)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(repeats):
        torch.cuda._sleep(BUSY_CYCLES)
        start.record()
        torch.matmul(a, b)
        end.record()
        torch.cuda.synchronize()
        device.append(start.elapsed_time(end))
    return sorted(wall)[repeats // 2], min(wall), sorted(device)[repeats // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=list(DTYPES), default="f32")
    p.add_argument("--shapes")
    p.add_argument("--json")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--max-flops", type=float)
    p.add_argument("--transpose-b", action="store_true")
    p.add_argument("dims", nargs="*")
    args = p.parse_args()
    if args.shapes:
        shapes = parse_shapes(open(args.shapes).read().splitlines())
    elif args.dims:
        shapes = parse_shapes(args.dims if any(" " in d for d in args.dims)
                              else [" ".join(args.dims[i:i + 3]) for i in range(0, len(args.dims), 3)])
    else:
        shapes = parse_shapes(sys.stdin.read().splitlines())
    set_precision(args.dtype)
    name = torch.cuda.get_device_name(0)
    layout = "NT" if args.transpose_b else "NN"
    tf32 = args.dtype == "tf32"
    print(f"cuBLAS via torch {torch.__version__} on {name} ({args.dtype}, TF32 {'on' if tf32 else 'off'}, "
          f"f32 accumulation, row-major {layout}), {args.warmup} warm-up calls, median of {args.repeats}")
    rows = []
    for m, n, k in shapes:
        flops = 2.0 * m * n * k
        if args.max_flops is not None and flops > args.max_flops:
            rows.append({"m": m, "n": n, "k": k, "flops": flops, "skipped": f"flops > --max-flops {args.max_flops:g}"})
            continue
        wall, wall_min, event = time_gemm(m, n, k, args.repeats, args.warmup, args.transpose_b, args.dtype)
        row = {"m": m, "n": n, "k": k, "flops": flops, "wall_ms": wall, "wall_min_ms": wall_min, "event_ms": event,
               "gflops": flops / wall / 1e6, "event_gflops": flops / event / 1e6}
        rows.append(row)
        print(f"cublas {m} {n} {k} wall_ms {wall:.4f} event_ms {event:.4f} "
              f"gflops {row['gflops']:.1f} event_gflops {row['event_gflops']:.1f}", flush=True)
    if args.json:
        report = {"tool": "cublas-torch", "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                  "command": " ".join(sys.argv), "device": name, "torch": torch.__version__, "precision": args.dtype, "tf32": tf32,
                  "layout": layout, "repeats": args.repeats, "warmup": args.warmup, "rows": rows}
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
