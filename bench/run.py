#!/usr/bin/env python3
"""The stmtc benchmark (issue 6), one command:

    python3 bench/run.py --rows 1M --runs 3
    python3 bench/run.py --sizes 1M,10M --runs 3 --report bench/results-10M.md
    python3 bench/run.py --rows 10M --stmtc-bin path/to/job      # a job binary built elsewhere
    python3 bench/run.py --sizes 100M --engines stmtc,handwritten,cat --runs 1

What it does (Python stdlib only; the peers get their own venv):
1. generates bench/data/<size>/orders.csv and bench/data/users.csv if missing
   (gen_data.py) and points bench/data/orders.csv at the size being measured;
2. creates bench/.venv from requirements.txt (DuckDB, DataFusion, Polars);
3. builds the hand-written pass (bench/handwritten) and stmtc's job binary:
   --stmtc-bin PATH if given; else `stmtc compile bench/job.sql` into
   bench/build/stmtc-job and `cargo build --release` there (also timing
   compile latency and a warm rebuild); else `stmtc run` if only that exists;
   else stmtc is "not available yet" and ratios are to the hand-written pass;
4. runs every engine --runs times, interleaved (after --warmup untimed rounds),
   each with bench/ as its working directory and its output directory emptied
   first, measuring wall time and peak RSS (wait4 of the child);
5. checks that every engine wrote the same seven outputs (check.py);
6. prints a markdown report (and writes it to --report FILE).
"""
import argparse
import hashlib
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
VENV = os.path.join(BENCH, ".venv")
VPY = os.path.join(VENV, "bin", "python")
DATA = os.path.join(BENCH, "data")
BUILD = os.path.join(BENCH, "build")
LOGS = os.path.join(BENCH, "logs")
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
HANDWRITTEN_BIN = os.path.join(BENCH, "handwritten", "target", "release", "bench-handwritten")

sys.path.insert(0, BENCH)
from gen_data import parse_rows, size_label  # noqa: E402


class Engine:
    def __init__(self, name, what, reads, cmd, out, python=False):
        self.name, self.what, self.reads, self.cmd, self.out, self.python = name, what, reads, cmd, out, python


def peer_engines():
    py = [VPY]
    return [
        Engine("handwritten", "hand-written Rust, one pass, thread-local aggregates", "1",
               [HANDWRITTEN_BIN], "out-handwritten"),
        Engine("duckdb-seq", "DuckDB, view + seven COPY statements in sequence", "7",
               py + ["peers/duckdb_job.py", "--variant", "seq"], "out-duckdb-seq", True),
        Engine("duckdb-temp", "DuckDB, view materialized in a TEMP table first", "1",
               py + ["peers/duckdb_job.py", "--variant", "temp"], "out-duckdb-temp", True),
        Engine("datafusion-seq", "DataFusion, view + seven queries in sequence", "7",
               py + ["peers/datafusion_job.py", "--variant", "seq"], "out-datafusion-seq", True),
        Engine("datafusion-cached", "DataFusion, view DataFrame cached first", "1",
               py + ["peers/datafusion_job.py", "--variant", "cached"], "out-datafusion-cached", True),
        Engine("polars", "Polars, collect_all over seven lazy frames", "1",
               py + ["peers/polars_job.py"], "out-polars", True),
        Engine("cat", "`cat data/orders.csv > /dev/null` (I/O floor)", "1",
               ["cat", "data/orders.csv"], None),
    ]


def log(msg):
    print(f"[run.py] {msg}", file=sys.stderr, flush=True)


def sh(cmd, cwd=BENCH, check=True, env=None, quiet=False):
    log(("$ " + " ".join(shlex.quote(c) for c in cmd)) + (f"   (in {os.path.relpath(cwd, ROOT) or '.'})" if cwd != BENCH else ""))
    out = subprocess.DEVNULL if quiet else None
    return subprocess.run(cmd, cwd=cwd, check=check, env=env, stdout=out)


# ---------------------------------------------------------------- setup


def ensure_data(label):
    if not os.path.exists(os.path.join(DATA, label, "orders.csv")) or not os.path.exists(os.path.join(DATA, "users.csv")):
        sh([sys.executable, os.path.join(BENCH, "gen_data.py"), "--rows", label])
    link = os.path.join(DATA, "orders.csv")
    if os.path.exists(link) and not os.path.islink(link):
        sys.exit(f"{link} is a regular file; run.py points it at data/<size>/orders.csv, move it away first")
    if os.path.islink(link):
        os.remove(link)
    os.symlink(os.path.join(label, "orders.csv"), link)


def ensure_venv():
    req = os.path.join(BENCH, "requirements.txt")
    with open(req, "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    marker = os.path.join(VENV, ".requirements.sha256")
    if os.path.exists(VPY) and os.path.exists(marker) and open(marker).read().strip() == want:
        return
    if not os.path.exists(VPY):
        sh([sys.executable, "-m", "venv", VENV])
    sh([VPY, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", req])
    with open(marker, "w") as f:
        f.write(want + "\n")


def build_handwritten():
    sh(["cargo", "build", "--release", "--quiet", "--manifest-path", os.path.join(BENCH, "handwritten", "Cargo.toml")])


def stmtc_commands():
    """The subcommands the CLI in this checkout has, via `cargo run -p stmtc -- --help`."""
    r = subprocess.run(["cargo", "run", "-q", "--release", "-p", "stmtc", "--", "--help"], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode != 0:
        log("stmtc does not build:\n" + r.stderr[-2000:])
        return None, set()
    cmds = set()
    in_cmds = False
    for line in r.stdout.splitlines():
        if line.strip().lower().startswith("commands:"):
            in_cmds = True
            continue
        if in_cmds:
            if not line.startswith("  "):
                in_cmds = False
                continue
            cmds.add(line.split()[0])
    return os.path.join(ROOT, "target", "release", "stmtc"), cmds


def timed(cmd, cwd, log_path=None):
    t0 = time.perf_counter()
    with open(log_path or os.devnull, "w") as lf:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=lf, stderr=subprocess.STDOUT)
        _, status, _ = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, p.returncode


def setup_stmtc(args, notes):
    """Returns (Engine or None, status text)."""
    def engine(cmd, what):
        return Engine("stmtc", what, "1", cmd, "out")

    extra = shlex.split(args.stmtc_args or "")
    if args.stmtc_bin:
        path = os.path.abspath(args.stmtc_bin)
        if not os.access(path, os.X_OK):
            sys.exit(f"--stmtc-bin {path}: not an executable")
        return engine([path] + extra, f"stmtc job binary `{args.stmtc_bin}`"), "prebuilt binary"
    if args.no_stmtc:
        return None, "left out (--no-stmtc)"
    stmtc, cmds = stmtc_commands()
    if "compile" in cmds:
        crate = os.path.join(BUILD, "stmtc-job")
        os.makedirs(BUILD, exist_ok=True)
        log_path = os.path.join(BUILD, "stmtc-build.log")
        # Compile latency: median of 5 runs into a scratch folder.
        times = []
        for _ in range(5):
            scratch = os.path.join(BUILD, "stmtc-compile-timing")
            shutil.rmtree(scratch, ignore_errors=True)
            t, rc = timed([stmtc, "compile", "job.sql", "-o", scratch], BENCH, log_path)
            if rc != 0:
                return None, f"`stmtc compile` failed (see {os.path.relpath(log_path, ROOT)})"
            times.append(t)
        shutil.rmtree(os.path.join(BUILD, "stmtc-compile-timing"), ignore_errors=True)
        t, rc = timed([stmtc, "compile", "job.sql", "-o", crate], BENCH, log_path)
        if rc != 0:
            return None, f"`stmtc compile` failed (see {os.path.relpath(log_path, ROOT)})"
        t_build, rc = timed(["cargo", "build", "--release"], crate, log_path)
        if rc != 0:
            return None, f"the generated crate does not build (see {os.path.relpath(log_path, ROOT)})"
        os.utime(os.path.join(crate, "src", "main.rs"))
        t_warm, rc = timed(["cargo", "build", "--release"], crate, log_path)
        notes.append(f"`stmtc compile bench/job.sql`: median {statistics.median(times) * 1000:.0f} ms of 5 "
                     f"(target < 100 ms); `cargo build --release` of the job crate: first {t_build:.1f} s "
                     f"(runtime included), warm rebuild after touching src/main.rs {t_warm:.1f} s (target < 10 s).")
        name = package_name(os.path.join(crate, "Cargo.toml"))
        binary = os.path.join(crate, "target", "release", name)
        if not os.access(binary, os.X_OK):
            return None, f"no binary at {binary}"
        return (engine([binary] + extra, "the job binary from `stmtc compile job.sql` + `cargo build --release`"),
                "job binary from `stmtc compile` + `cargo build --release`")
    if "run" in cmds:
        # The first (warm-up) run compiles and builds; timed runs hit the cache.
        return engine([stmtc, "run", "job.sql"] + extra, "`stmtc run job.sql` (cached build)"), "`stmtc run job.sql`"
    return None, "not available yet (no `stmtc compile`/`stmtc run` in this checkout)"


def package_name(cargo_toml):
    name = None
    section = None
    for line in open(cargo_toml):
        s = line.strip()
        if s.startswith("["):
            section = s
        elif section in ("[[bin]]", "[package]") and s.startswith("name"):
            name = s.split("=", 1)[1].strip().strip('"')
            if section == "[[bin]]":
                return name
    return name


# ---------------------------------------------------------------- measuring


def run_once(e, label, rnd):
    if e.out:
        shutil.rmtree(os.path.join(BENCH, e.out), ignore_errors=True)
    # Earlier runs' output is still in the page cache, dirty; the kernel
    # writes it back ~30 s later, in whichever run is timed then. Flush it
    # now, outside the timing, so no engine pays for another's writes.
    os.sync()
    os.makedirs(LOGS, exist_ok=True)
    log_path = os.path.join(LOGS, f"{e.name}-{label}.log")
    cmd = e.cmd
    rss_file = os.path.join(LOGS, "rss.txt")
    if GNU_TIME:
        # GNU time forks from a 2 MB process; wait4 from Python would count
        # Python's own ~20 MB (the pre-exec image) into small programs' peak RSS.
        cmd = [GNU_TIME, "-f", "%M", "-o", rss_file] + cmd
    t0 = time.perf_counter()
    with open(log_path, "w") as lf:
        # cat's output goes to /dev/null; everyone else's stdout/stderr to the log.
        p = subprocess.Popen(cmd, cwd=BENCH, stdout=subprocess.DEVNULL if e.name == "cat" else lf,
                             stderr=subprocess.STDOUT if e.name != "cat" else lf)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    rss_mb = ru.ru_maxrss / 1024  # KiB on Linux
    # CPU of the run (wait4 counts the children it reaped: GNU time's child).
    cpu = ru.ru_utime + ru.ru_stime
    if GNU_TIME:
        try:
            rss_mb = int(open(rss_file).read().split()[-1]) / 1024
        except (OSError, ValueError, IndexError):
            pass
    if rc != 0:
        tail = open(log_path, errors="replace").read()[-1500:]
        log(f"{e.name} failed (exit {rc}) in round {rnd}; log {os.path.relpath(log_path, ROOT)}:\n{tail}")
    return wall, rss_mb, rc, cpu


def measure(engines, label, args):
    results = {e.name: [] for e in engines}
    failed = set()
    rounds = args.warmup + args.runs
    for rnd in range(rounds):
        warm = rnd < args.warmup
        for e in engines:
            if e.name in failed:
                continue
            wall, rss, rc, cpu = run_once(e, label, rnd)
            log(f"{label} {'warm-up' if warm else f'run {rnd - args.warmup + 1}/{args.runs}'} "
                f"{e.name:18} {wall:7.2f} s {rss:8.1f} MB  CPU {cpu:6.2f} s" + (f"  EXIT {rc}" if rc else ""))
            if rc != 0:
                failed.add(e.name)
                continue
            if not warm:
                results[e.name].append((wall, rss))
    return results, failed


def check(engines, ref_name, failed):
    order = sorted([e for e in engines if e.out and e.name not in failed], key=lambda e: e.name != ref_name)
    if len(order) < 2:
        return "(fewer than two engines with outputs: nothing to compare)", True
    r = subprocess.run([VPY, "check.py"] + [f"{e.name}={e.out}" for e in order], cwd=BENCH,
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return f"check.py failed:\n```\n{r.stderr[-3000:]}\n```", False
    return r.stdout.strip(), r.returncode == 0


# ---------------------------------------------------------------- report


def machine_lines():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    vers = "?"
    if os.path.exists(VPY):
        r = subprocess.run([VPY, "-c", "import duckdb, polars, datafusion, sys; "
                                       "print(f'DuckDB {duckdb.__version__}, Polars {polars.__version__}, "
                                       "DataFusion {datafusion.__version__}, Python {sys.version.split()[0]}')"],
                           capture_output=True, text=True)
        vers = r.stdout.strip() or "?"
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return [f"- machine: {os.cpu_count()} cores ({cpu}), {mem} RAM, {platform.system()} {platform.release()}",
            f"- peers: {vers}; {rustc}"]


def git_state():
    """The checkout stmtc was built from (read-only git queries)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "compiler", "runtime"],
                               cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return f" (checkout {head}{' + uncommitted changes in compiler/ or runtime/' if dirty else ''})"
    except (OSError, subprocess.CalledProcessError):
        return ""


def fmt_ratio(x):
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def size_table(engines, results, failed, label, rows, mb, base):
    lines = []
    base_name = base.name if base else None
    base_med = statistics.median([w for w, _ in results[base_name]]) if base and results.get(base_name) else None
    base_rss = max(r for _, r in results[base_name]) if base_med else None
    col = f"÷ {base_name}" if base_name else "ratio"
    lines.append(f"| engine | reads of orders.csv | median wall s | min–max s | peak RSS MB | "
                 f"M rows/s | wall {col} | RSS {col} |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for e in engines:
        if e.name in failed:
            lines.append(f"| {e.name} | {e.reads} | failed | | | | | |")
            continue
        rs = results[e.name]
        if not rs:
            continue
        walls = [w for w, _ in rs]
        med = statistics.median(walls)
        rss = max(r for _, r in rs)
        ratio = fmt_ratio(med / base_med) if base_med else ""
        rss_ratio = fmt_ratio(rss / base_rss) if base_rss else ""
        lines.append(f"| {e.name} | {e.reads} | {med:.2f} | {min(walls):.2f}–{max(walls):.2f} | {rss:.0f} | "
                     f"{rows / med / 1e6:.1f} | {ratio} | {rss_ratio} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1M", help="orders rows for one size (default 1M)")
    ap.add_argument("--sizes", help="comma list of sizes, e.g. 1M,10M (overrides --rows); adds a throughput table")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per engine (default 3)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    ap.add_argument("--engines", help="comma list to run: stmtc,handwritten,duckdb-seq,duckdb-temp,"
                                      "datafusion-seq,datafusion-cached,polars,cat (default all)")
    ap.add_argument("--stmtc-bin", help="a prebuilt stmtc job binary of bench/job.sql to measure")
    ap.add_argument("--stmtc-args", help="extra arguments for the stmtc binary/command (one string)")
    ap.add_argument("--no-stmtc", action="store_true", help="do not try to build stmtc's binary")
    ap.add_argument("--no-check", action="store_true", help="skip the output agreement check")
    ap.add_argument("--report", help="also write the markdown report to this file")
    args = ap.parse_args()

    labels = [size_label(parse_rows(s)) for s in (args.sizes.split(",") if args.sizes else [args.rows])]
    wanted = set(args.engines.split(",")) if args.engines else None
    engines = [e for e in peer_engines() if wanted is None or e.name in wanted]
    if any(e.python for e in engines):
        ensure_venv()
    if any(e.name == "handwritten" for e in engines):
        build_handwritten()
    notes = []
    stmtc, stmtc_status = (None, "not selected")
    if wanted is None or "stmtc" in wanted:
        stmtc, stmtc_status = setup_stmtc(args, notes)
    if stmtc:
        engines.insert(0, stmtc)
    base = stmtc or next((e for e in engines if e.name == "handwritten"), None)

    out = ["# stmtc benchmark: bench/job.sql (7 sinks over one `orders` scan)", ""]
    out.append(f"Command: `python3 bench/run.py {' '.join(shlex.quote(a) for a in sys.argv[1:])}` "
               f"({args.runs} timed runs per engine, interleaved, after {args.warmup} warm-up round(s)); "
               f"{time.strftime('%Y-%m-%d %H:%M %Z')}")
    out.append("")
    out += machine_lines()
    out.append(f"- stmtc: {'**not available yet**: ' if not stmtc else ''}{stmtc_status}"
               f"{git_state() if stmtc and not args.stmtc_bin else ''}")
    for n in notes:
        out.append(f"- {n}")
    out.append("")
    through = {}
    all_ok = True
    for label in labels:
        ensure_data(label)
        orders = os.path.join(DATA, label, "orders.csv")
        rows = parse_rows(label)
        mb = os.path.getsize(orders) / 1e6
        load0 = os.getloadavg()[0]
        results, failed = measure(engines, label, args)
        load1 = os.getloadavg()[0]
        out.append(f"## {label} rows ({mb:.0f} MB orders.csv)")
        out.append("")
        if not stmtc:
            out.append("stmtc: not available yet; ratios are to the hand-written pass.")
            out.append("")
        out += size_table(engines, results, failed, label, rows, mb, base)
        out.append("")
        out.append(f"Load average (1 min) before/after: {load0:.2f} / {load1:.2f}. "
                   "Peak RSS is the largest of the runs"
                   + (" (GNU time's %M)" if GNU_TIME else " (wait4 from Python: includes a ~20 MB floor; "
                      "`apt-get install time` for exact values)")
                   + "; wall is from spawn to exit (Python peers include "
                   "interpreter start and imports).")
        out.append("")
        if not args.no_check:
            table, ok = check(engines, base.name if base else engines[0].name, failed)
            all_ok &= ok
            out.append(f"Outputs ({'all engines agree' if ok else '**engines disagree**'}; rows per sink):")
            out.append("")
            out.append(table)
            out.append("")
        for e in engines:
            if results.get(e.name):
                through[(e.name, label)] = (statistics.median([w for w, _ in results[e.name]]),
                                            max(r for _, r in results[e.name]), rows, mb)
    if len(labels) > 1:
        out.append("## Throughput per size")
        out.append("")
        out.append("| engine | " + " | ".join(f"{l}: s / M rows/s / MB/s / RSS MB" for l in labels) + " |")
        out.append("|---|" + "---:|" * len(labels))
        for e in engines:
            cells = []
            for l in labels:
                t = through.get((e.name, l))
                cells.append(f"{t[0]:.2f} / {t[2] / t[0] / 1e6:.1f} / {t[3] / t[0]:.0f} / {t[1]:.0f}" if t else "—")
            out.append(f"| {e.name} | " + " | ".join(cells) + " |")
        out.append("")
    out.append("Engines: " + "; ".join(f"**{e.name}**: {e.what}" for e in engines) + ".")
    text = "\n".join(out) + "\n"
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
        log(f"wrote {args.report}")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
