#!/usr/bin/env python3
"""A/B of job binaries on a noisy machine: alternate them, report medians.

    cd bench && python3 ab.py N BIN [BIN...] [-- ARGS...]

Runs each BIN with `--quiet` (plus ARGS, e.g. `--threads 1`) N rounds,
round-robin, from the current directory (job.sql's relative paths), and
prints the minimum and median of wall and user time of each. Alternating
matters here: this machine's speed drifts by 15% from minute to minute,
so all runs of one binary then all of the other (hyperfine's order)
compare two moments, not two binaries. Stdlib only.
"""
import resource
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    bins = sys.argv[2:]
    extra = []
    if "--" in bins:
        i = bins.index("--")
        bins, extra = bins[:i], bins[i + 1:]
    times = {b: [] for b in bins}
    for _ in range(n):
        for b in bins:
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
            start = time.perf_counter()
            subprocess.run([b, "--quiet"] + extra, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
            times[b].append((wall, user))
    for b, runs in times.items():
        wall = [w for w, _ in runs]
        user = [u for _, u in runs]
        print(
            f"{b:40s} wall min {min(wall):.3f} med {statistics.median(wall):.3f}"
            f"  user min {min(user):.3f} med {statistics.median(user):.3f}"
        )


if __name__ == "__main__":
    main()
