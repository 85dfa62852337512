"""Prints criterion's median per call from target/criterion: selection latency per shape (each
sample of benches/select.rs selects 4096 shapes) and per-call host overhead (benches/overhead*.rs)."""
import glob
import json
import os
import platform
import subprocess
import time

SHAPES_PER_SELECT_ITERATION = 4096


def main():
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
    print(f"# {time.strftime('%Y-%m-%d')}, {platform.node() or 'host'}: {cpu}, {os.cpu_count()} cores")
    for path in sorted(glob.glob("target/criterion/**/new/estimates.json", recursive=True)):
        name = "/".join(path.split(os.sep)[2:-2])
        median = json.load(open(path))["median"]["point_estimate"]
        if name.startswith("select/"):
            print(f"{name:<40} {median / SHAPES_PER_SELECT_ITERATION:8.1f} ns per selection")
        else:
            print(f"{name:<40} {median / 1000:8.2f} us per call (median)")


if __name__ == "__main__":
    main()
