#!/usr/bin/env python3
"""Reads the output of CLBlast's correctness testers (clblast_test_xgemm, ...) run with -verbose,
for scripts/clblast-suite.sh: the passed / skipped / failed counts of each routine, each case's
outcome, and fewfit's statistics line (FEWFIT_STATS=1).

  clblast_suite.py check NAME FEWFIT_OUTPUT [CLBLAST_OUTPUT]

Passes (exit 0) when, for the single-, double- and half-precision routines of the run with fewfit
preloaded (fewfit's; the testers run half only where the device has cl_khr_fp16, and report it
"All tests skipped: Unsupported precision" elsewhere, as on PoCL): some passed and none failed,
except, with -full_test, the cases the tester's own reference gets wrong (reference_offset_bug);
fewfit's statistics line shows calls served in each of these precisions that ran; given
CLBLAST_OUTPUT (the same binary and options with CLBlast itself), every case has CLBlast's outcome
(the same pass, or the same status code) and every routine CLBlast's counts, except the deliberate
differences in ALLOWED; and, for the tester's default cases (no -full_test), the counts and calls
are those recorded in EXPECTED. Complex precision stays CLBlast's: its counts are printed, not
checked. Prints one summary line a routine.
"""

import re
import sys

# What CLBlast 1.5.3's testers (Debian's clblast-tests, reference: CPU BLAS) report for their default
# cases on a device with fp64, with CLBlast itself and with fewfit alike: (passed, skipped, failed) per
# single/double routine (xgemm runs each routine twice, once per kernel kind, summed here), and fewfit's
# (single calls, double calls, half calls, bf16 calls, calls returning an error status). Half is
# not run there (PoCL has no cl_khr_fp16), so no half calls. The skipped cases are those whose
# leading dimension is below the matrix's line length: CLBlast returns kInvalidLeadDimA/B/C (fewfit
# too) and a CPU-BLAS reference cannot check a status, so the tester skips them; in the batched
# tester, its own check returns that status for A and B before the call, so fewer calls reach fewfit.
EXPECTED = {
    "xgemm": ({"SGEMM": (468, 556, 0), "DGEMM": (468, 556, 0)}, (1024, 1024, 0, 0, 1112)),
    "xgemmbatched": ({"SGEMMBATCHED": (468, 556, 0), "DGEMMBATCHED": (468, 556, 0)}, (592, 592, 0, 0, 248)),
    "xgemmstridedbatched": (
        {"SGEMMSTRIDEDBATCHED": (468, 556, 0), "DGEMMSTRIDEDBATCHED": (468, 556, 0)},
        (1024, 1024, 0, 0, 1112),
    ),
}

# Cases where fewfit deliberately returns another outcome than CLBlast, as (routine, regex on the
# case's arguments, CLBlast's outcome, fewfit's outcome, why). None of the testers' cases needs one:
# fewfit's differences (docs/CLBLAST.md) are outside them (a temporary buffer too small, C items
# that overlap, matrices beyond 2^31 - 1 elements, buffers of another context).
ALLOWED = []

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STATS = re.compile(
    r"fewfit stats: (\d+) GEMM calls served \(single (\d+), double (\d+), half (\d+), bf16 (\d+); (\d+) returned an error status\)"
)
# The precisions of fewfit's statistics line, by their routines' first letter (bf16 has no routine).
STATS_NAMES = {"S": "single", "D": "double", "H": "half"}


def parse(path):
    """(counts, cases, stats, device, full_test, failures, marks, unsupported): counts[routine] =
    [passed, skipped, failed] summed over the routine's runs; cases = [(routine#run, section,
    arguments, outcome)] (with -verbose); stats = (single, double, half, bf16, errors) or None;
    failures = [(routine#run, section, arguments, error rate)] (the tester's error log);
    marks[(routine#run, section)] = the outcome marks of the section's cases in order (without
    -verbose); unsupported = the routines the tester skipped whole for an unsupported precision."""
    text = ANSI.sub("", open(path, encoding="utf-8", errors="replace").read())
    counts, cases, runs, failures, marks, unsupported = {}, [], {}, [], {}, set()
    routine, section, case = None, None, None

    def close():
        nonlocal case
        if case is not None:
            name, sec, args, chunk = case
            code = re.search(r"-> (-?\d+) ->", chunk)
            mark = chunk.rstrip()[-1:] if chunk.strip() else "?"
            cases.append((name, sec, args, f"status {code.group(1)}" if code else {":": "ok"}.get(mark, mark)))
            case = None

    for line in text.splitlines():
        if "Starting tests for the '" in line:
            close()
            routine = line.split("'")[1]
            runs[routine] = runs.get(routine, 0) + 1
            counts.setdefault(routine, [0, 0, 0])
        elif "All tests skipped: Unsupported precision" in line:
            unsupported.add(routine)
        elif line.startswith("* Testing '"):
            close()
            section = line.split("for '", 1)[-1].rstrip("':")
        elif re.match(r"\s+Error rate [0-9.]+%: ", line):
            close()
            rate, args = line.split("Error rate ", 1)[1].split(": ", 1)
            failures.append((f"{routine}#{runs.get(routine, 0)}", section, args.strip(), rate))
        elif case is None and re.fullmatch(r"\s+[:.X/\\o-]+", line):
            key = (f"{routine}#{runs.get(routine, 0)}", section)
            marks[key] = marks.get(key, "") + line.strip()
        elif "Testing: " in line:
            close()
            args = line.split("Testing: ", 1)[1].split(" [CLBlast]")[0].strip()
            case = (f"{routine}#{runs.get(routine, 0)}", section, args, line.split(" [CLBlast]", 1)[-1])
        elif re.match(r"\s+\d+ test\(s\) (passed|skipped|failed)", line):
            close()
            number, kind = int(line.split()[0]), line.split()[2]
            counts[routine][["passed", "skipped", "failed"].index(kind)] += number
        elif "Pass rate" in line or line.startswith("*"):
            close()
        elif case is not None and "error suppressed" not in line:
            # The outcome mark ends the case's last line, after any printed element errors.
            case = case[:3] + (case[3] + "\n" + line,)
    close()
    match = STATS.search(text)
    stats = tuple(int(match.group(i)) for i in (2, 3, 4, 5, 6)) if match else None
    device = re.search(r"Running on OpenCL device '([^']*)'", text)
    full_test = "-full_test [true]" in text
    return counts, cases, stats, device.group(1) if device else "?", full_test, failures, marks, unsupported


def real(routine):
    """Single, double and half precision: fewfit's."""
    return routine[:1] in STATS_NAMES


def reference_offset_bug(name, args):
    """Whether a failing case is one the tester's own reference gets wrong. CLBlast 1.5.3's
    test/routines/levelx/xgemmstridedbatched.hpp swaps B's and C's offsets in its references
    (`b_batch_offset = args.c_offset + ...`, `c_batch_offset = args.b_offset + ...`), so with
    -full_test (offsets 0 and 10) clblast_test_xgemmstridedbatched fails every case with offb != offc
    whose C changes, for CLBlast itself as for fewfit (seen on PoCL, alike for both)."""
    offsets = dict(re.findall(r"(offb|offc)=(\d+)", args))
    return name == "xgemmstridedbatched" and offsets.get("offb") != offsets.get("offc")


def check(name, fewfit_path, clblast_path=None):
    counts, cases, stats, device, full_test, failures, marks, unsupported = parse(fewfit_path)
    print(f"clblast-suite: {name:20} on '{device}'{' with -full_test' if full_test else ''}")
    problems = []
    for routine, (passed, skipped, failed) in sorted(counts.items()):
        if routine in unsupported:
            print(f"clblast-suite: {name:20} {routine:20} not run: the tester finds the precision unsupported by the device")
            continue
        served = "fewfit" if real(routine) else "CLBlast"
        print(f"clblast-suite: {name:20} {routine:20} {passed:6} passed {skipped:6} skipped {failed:6} failed ({served})")
        if real(routine) and not passed:
            problems.append(f"{routine}: no case passed")
    ran = sorted({r[:1] for r in counts if real(r) and r not in unsupported}, key="SDH".index)
    if not {"S", "D"} <= set(ran):
        problems.append("a single- or double-precision routine did not run")
    mine_failed = [f for f in failures if real(f[0])]
    if sum(c[2] for r, c in counts.items() if real(r)) != len(mine_failed):
        problems.append(f"{len(mine_failed)} failing cases in the error logs, {sum(c[2] for r, c in counts.items() if real(r))} counted")
    harness = [f for f in mine_failed if full_test and reference_offset_bug(name, f[2])]
    if harness:
        print(f"clblast-suite: {name:20} {len(harness)} single/double/half cases fail on the tester's own reference (offb != offc: it swaps B's and C's offsets), as with CLBlast itself")
    for f in mine_failed:
        if f not in harness:
            problems.append(f"failed: {f[0]} [{f[1]}] {f[2]} (error rate {f[3]})")
    if stats is None:
        problems.append("no `fewfit stats` line: fewfit was not loaded, or FEWFIT_STATS unset")
    else:
        print(
            f"clblast-suite: {name:20} fewfit served {stats[0]} single, {stats[1]} double and {stats[2]} half calls "
            f"({stats[4]} returned an error status)"
        )
        served = dict(zip(("S", "D", "H"), stats))
        if not all(served[p] for p in ran):
            problems.append(f"fewfit served no calls in a precision whose routine ran ({', '.join(STATS_NAMES[p] for p in ran)}): {stats}")
    if clblast_path:
        want_counts, want_cases, _, _, _, want_failures, want_marks, _ = parse(clblast_path)
        for routine in sorted(set(counts) | set(want_counts)):
            if real(routine) and counts.get(routine) != want_counts.get(routine):
                problems.append(f"{routine}: counts {counts.get(routine)} with fewfit, {want_counts.get(routine)} with CLBlast")
        if cases and want_cases:
            mine = {c[:3]: c[3] for c in cases if real(c[0])}
            theirs = {c[:3]: c[3] for c in want_cases if real(c[0])}
            what = "cases (outcome and status code)"
        else:
            mine = {k: v for k, v in marks.items() if real(k[0])}
            theirs = {k: v for k, v in want_marks.items() if real(k[0])}
            mine.update({("failed",) + f[:3]: f[3] for f in mine_failed})
            theirs.update({("failed",) + f[:3]: f[3] for f in want_failures if real(f[0])})
            what = "sections' outcome marks and failing cases"
        differing = []
        for key in sorted(set(mine) | set(theirs), key=str):
            got, want = mine.get(key), theirs.get(key)
            if got == want:
                continue
            reason = next(
                (a[4] for a in ALLOWED if a[0] == key[0].split("#")[0] and re.search(a[1], str(key)) and (a[2], a[3]) == (want, got)),
                None,
            )
            if reason:
                print(f"clblast-suite: {name}: deliberate difference, {key}: CLBlast {want}, fewfit {got} ({reason})")
            else:
                differing.append(f"{key}: CLBlast {want}, fewfit {got}")
        print(f"clblast-suite: {name:20} {len(mine)} single/double/half {what} compared with CLBlast's own run, {len(differing)} differ")
        problems += differing[:20]
    if name in EXPECTED and not full_test:
        want_counts, want_stats = EXPECTED[name]
        for routine, want in want_counts.items():
            if tuple(counts.get(routine, ())) != want:
                problems.append(f"{routine}: {counts.get(routine)}, recorded {want}")
        if stats is not None and stats != want_stats:
            problems.append(f"fewfit's calls {stats}, recorded {want_stats}")
    for p in problems:
        print(f"clblast-suite: {name}: FAIL {p}")
    return not problems


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[1] != "check":
        sys.exit(__doc__)
    sys.exit(0 if check(*sys.argv[2:]) else 1)
