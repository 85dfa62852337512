#!/usr/bin/env python3
"""Gives the records of the committed datasets measured before `fewfit sweep` recorded the device's
compute units (2026-12-03) the count their device reports, so that trees see the feature
`compute_units` on them and a new sweep of the same device resumes and merges with them (the count
is part of a record's device). Every device of those datasets is one of four, told apart by class
and driver:
  - nvidia-gpu, driver 580.159.04: the lent H200 and H100 SXM, 132 SMs each;
  - cpu, PoCL 5.0: the GPU machine's 16-core Intel Xeon (clinfo there: 16 compute units);
  - cpu, PoCL 3.1: a 2-core VM of the dev machine (2 compute units).
A record of any other device is left as it is and counted. Rewrites the files in place (gzip, no
timestamp, so a second run changes nothing).
Usage: python3 docs/data/compute-units-2026-12-03/backfill.py FILE.jsonl.gz...
"""
import gzip
import json
import sys

def compute_units(device):
    if device.get("class") == "nvidia-gpu" and device.get("driver") == "580.159.04":
        return 132
    if device.get("class") == "cpu" and device.get("driver", "").startswith("5.0"):
        return 16
    if device.get("class") == "cpu" and device.get("driver", "").startswith("3.1"):
        return 2
    return None

filled = unknown = kept = 0
for path in sys.argv[1:]:
    out = []
    changed = False
    with gzip.open(path, "rt") as f:
        for line in f:
            try:
                record = json.loads(line)
                device = record["device"]
            except (ValueError, KeyError, TypeError):
                out.append(line)  # a corrupt line (test data): kept for the loader to count
                continue
            if "compute_units" in device:
                kept += 1
            elif (units := compute_units(device)) is None:
                unknown += 1
            else:
                device["compute_units"] = units
                filled += 1
                changed = True
                line = json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
            out.append(line)
    if changed:
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
            f.write("".join(out).encode())
print(f"{filled} records given compute units, {kept} had them, {unknown} of unknown devices left as they were")
