#!/usr/bin/env python3
"""TPC-H side by side (issue 11): the 12 queries stmtc supports as ONE statement set,
stmtc's job binary vs DuckDB (over the .tbl files directly, and after loading them).

    python3 bench/tpch/run.py --sf 1 --runs 3 [--dir /tmp/tpch-sf1] [--report FILE] [--queries all]

(`--queries all`: the 22-query statement set of issue 12 instead of issue 11's 12;
`--stmtc-budget 200mb`: also the same binary with that memory budget, interleaved.)

1. venv (default /tmp/tpch-venv) with tpchgen-cli==4.0.0 and duckdb;
2. data: `tpchgen-cli tbl -s SF` into DIR/data, trailing '|' of every line dropped
   (as fixtures/tpch/gen_data.py does for SF 0.01); reused if present;
3. DIR/job.sql = fixtures/tpch/job.sql with only the 12 supported INSERTs
   (like compiler/tests/suite/tpch.rs `statement_set_of`); `cargo build --release -p stmtc`,
   `stmtc compile job.sql -o DIR/build/stmtc-job` (run in DIR), `cargo build --release` there;
4. runs stmtc, duckdb-direct, duckdb-loaded interleaved, --runs rounds (after --warmup
   untimed rounds), each in DIR, under /usr/bin/time (peak RSS) with wall time from Python;
5. checks that each query's rows agree (multiset of rows; numbers within a relative 1e-9,
   as DOUBLEs print differently: Java `5.6586554400729126E10` vs DuckDB `56586554400.72935`);
6. prints a markdown table of medians with ratios.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from tpch_sql import ALL, SUPPORTED, parse_job, statement_set_of  # noqa: E402

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]


def log(msg):
    print(f"[tpch] {msg}", file=sys.stderr, flush=True)


def sh(cmd, cwd=None, **kw):
    log("$ " + " ".join(cmd) + (f"   (in {cwd})" if cwd else ""))
    return subprocess.run(cmd, cwd=cwd, check=True, **kw)


def ensure_venv(venv):
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        sh([sys.executable, "-m", "venv", venv])
    r = subprocess.run([py, "-c", "import duckdb"], capture_output=True)
    if r.returncode != 0 or not os.path.exists(os.path.join(venv, "bin", "tpchgen-cli")):
        sh([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "tpchgen-cli==4.0.0", "duckdb"])
    return py


def ensure_data(venv, d, sf):
    data = os.path.join(d, "data")
    if all(os.path.exists(os.path.join(data, f"{t}.tbl")) for t in TABLES):
        log(f"reusing {data}")
        return
    raw = os.path.join(d, "raw")
    os.makedirs(raw, exist_ok=True)
    os.makedirs(data, exist_ok=True)
    sh([os.path.join(venv, "bin", "tpchgen-cli"), "tbl", "-s", str(sf), "-o", raw])
    for t in TABLES:
        # dbgen's trailing '|' would be one more, empty column for a '|'-delimited csv reader.
        with open(os.path.join(raw, f"{t}.tbl"), "rb") as src, open(os.path.join(data, f"{t}.tbl"), "wb") as dst:
            for line in src:
                line = line.rstrip(b"\n")
                dst.write((line[:-1] if line.endswith(b"|") else line) + b"\n")
    shutil.rmtree(raw)


def build_stmtc(d, skip_build, queries):
    text = statement_set_of(open(os.path.join(ROOT, "fixtures", "tpch", "job.sql")).read(), queries)
    with open(os.path.join(d, "job.sql"), "w") as f:
        f.write(text)
    # stmtc's own build honours CARGO_TARGET_DIR; the job crate builds in its own target/.
    stmtc = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "stmtc")
    job_env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
    crate = os.path.join(d, "build", "stmtc-job")
    binary = os.path.join(crate, "target", "release", "job")
    if skip_build and os.access(binary, os.X_OK):
        log(f"--skip-build: using {binary}")
        return binary
    sh(["cargo", "build", "--release", "-q", "-p", "stmtc"], cwd=ROOT)
    sh([stmtc, "check", "job.sql"], cwd=d)
    sh([stmtc, "compile", "job.sql", "-o", crate], cwd=d, stdout=subprocess.DEVNULL)
    sh(["cargo", "build", "--release", "-q"], cwd=crate, env=job_env)
    return binary


class Engine:
    def __init__(self, name, cmd, out):
        self.name, self.cmd, self.out = name, cmd, out


def run_once(e, d, logs):
    shutil.rmtree(os.path.join(d, e.out), ignore_errors=True)
    # Flush earlier runs' dirty output outside the timing (see bench/run.py).
    os.sync()
    log_path = os.path.join(logs, f"{e.name}.log")
    rss_path = os.path.join(logs, "rss.txt")
    t0 = time.perf_counter()
    with open(log_path, "w") as lf:
        rc = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", rss_path] + e.cmd, cwd=d,
                            stdout=lf, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - t0
    rss_kb, user, system = open(rss_path).read().split()[-3:]
    if rc != 0:
        sys.exit(f"{e.name} failed (exit {rc}):\n" + open(log_path).read()[-3000:])
    return wall, int(rss_kb) / 1024, float(user) + float(system), open(log_path).read()


# ---------------------------------------------------------------- reads per table


def stmtc_reads(summary):
    return {m.group(2): 1 for m in re.finditer(r"read\s+(\d+) rows from (\w+)", summary)}


def duckdb_direct_reads(py, d):
    """Base-table references per query, from DuckDB's own parse tree (json_serialize_sql)."""
    code = r"""
import duckdb, json, sys
sys.path.insert(0, sys.argv[1])
from tpch_sql import parse_job
tables, inserts = parse_job(open('job.sql').read())
counts = {}
def walk(x):
    if isinstance(x, dict):
        if x.get('type') == 'BASE_TABLE' and x.get('table_name') in tables:
            counts[x['table_name']] = counts.get(x['table_name'], 0) + 1
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
for sink, select in inserts:
    tree = json.loads(duckdb.execute("SELECT json_serialize_sql(?)", [select]).fetchall()[0][0])
    assert not tree.get('error'), tree
    walk(tree)
print(json.dumps(counts))
"""
    r = subprocess.run([py, "-c", code, HERE], cwd=d, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


# ---------------------------------------------------------------- agreement


def read_rows(path):
    files = sorted(os.path.join(path, f) for f in os.listdir(path)) if os.path.isdir(path) else [path]
    rows = []
    for f in files:
        if os.path.basename(f).startswith("."):
            continue
        with open(f, newline="") as fh:
            rows += [tuple(r) for r in csv.reader(fh, delimiter="|", quotechar='"')]
    return rows


def norm(v):
    try:
        return (0, float(v), "")
    except ValueError:
        return (1, 0.0, v)


def same_value(a, b):
    if a[0] == 0 and b[0] == 0:
        return a[1] == b[1] or abs(a[1] - b[1]) <= 1e-9 * max(abs(a[1]), abs(b[1]))
    return a == b


def compare(ref_dir, other_dir, sink_of_ref, sink_of_other, queries):
    """{sink: (ref rows, other rows, problem or None)}."""
    res = {}
    for q in queries:
        a = sorted([norm(v) for v in r] for r in read_rows(sink_of_ref(ref_dir, q)))
        b = sorted([norm(v) for v in r] for r in read_rows(sink_of_other(other_dir, q)))
        problem = None
        if len(a) != len(b):
            problem = f"{len(a)} vs {len(b)} rows"
        else:
            for ra, rb in zip(a, b):
                if len(ra) != len(rb) or not all(same_value(x, y) for x, y in zip(ra, rb)):
                    problem = f"row differs: {[x[2] or x[1] for x in ra]} vs {[y[2] or y[1] for y in rb]}"
                    break
        res[q] = (len(a), len(b), problem)
    return res


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", default="1", help="scale factor (default 1)")
    ap.add_argument("--dir", help="data + build folder outside the repo (default /tmp/tpch-sf<SF>)")
    ap.add_argument("--venv", default="/tmp/tpch-venv")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=0, help="untimed rounds first (default 0; data generation "
                                                         "and the check run already warm the page cache)")
    ap.add_argument("--skip-build", action="store_true", help="reuse DIR/build/stmtc-job's binary if present")
    ap.add_argument("--report", help="also write the markdown report to this file")
    ap.add_argument("--queries", choices=["issue11", "all"], default="issue11",
                    help="the 12 queries of issue 11 (default) or all 22")
    ap.add_argument("--stmtc-budget", metavar="SIZE",
                    help="also run the same job binary with --memory-budget SIZE (e.g. 200mb), as engine "
                         "stmtc-SIZE right after stmtc; it writes the same out/ folder, so the row checks "
                         "compare whichever ran last (the budgeted run)")
    args = ap.parse_args()
    d = os.path.abspath(args.dir or f"/tmp/tpch-sf{args.sf}")
    os.makedirs(d, exist_ok=True)
    logs = os.path.join(d, "logs")
    os.makedirs(logs, exist_ok=True)
    py = ensure_venv(args.venv)
    ensure_data(args.venv, d, args.sf)
    queries = ALL if args.queries == "all" else SUPPORTED
    binary = build_stmtc(d, args.skip_build, queries)
    engines = [
        Engine("stmtc", [binary], "out"),
        *([Engine(f"stmtc-{args.stmtc_budget}", [binary, "--memory-budget", args.stmtc_budget], "out")]
          if args.stmtc_budget else []),
        Engine("duckdb-direct", [py, os.path.join(HERE, "duckdb_job.py"), "--variant", "direct",
                                 "--out", "out-duckdb-direct"], "out-duckdb-direct"),
        Engine("duckdb-loaded", [py, os.path.join(HERE, "duckdb_job.py"), "--variant", "loaded",
                                 "--out", "out-duckdb-loaded"], "out-duckdb-loaded"),
    ]
    load0 = os.getloadavg()
    results = {e.name: [] for e in engines}
    summaries = {}
    for rnd in range(args.warmup + args.runs):
        for e in engines:
            wall, rss, cpu, out = run_once(e, d, logs)
            warm = rnd < args.warmup
            log(f"{'warm-up' if warm else f'run {rnd - args.warmup + 1}/{args.runs}'} {e.name:14} "
                f"{wall:7.2f} s  {rss:8.0f} MB  cpu {cpu:6.1f} s")
            if e.name.startswith("stmtc"):
                summaries[e.name] = out
            if not warm:
                results[e.name].append((wall, rss, cpu))
    load1 = os.getloadavg()

    summary = summaries.get("stmtc", "")
    reads = {"duckdb-direct": duckdb_direct_reads(py, d), "duckdb-loaded": {t: 1 for t in TABLES}}
    reads.update({name: stmtc_reads(text) for name, text in summaries.items()})
    checks = {name: compare(d, os.path.join(d, e_out),
                            lambda base, q: os.path.join(base, "out", q),
                            lambda base, q: os.path.join(base, f"{q}.csv"), queries)
              for name, e_out in (("duckdb-direct", "out-duckdb-direct"), ("duckdb-loaded", "out-duckdb-loaded"))}

    base = statistics.median(w for w, _, _ in results["stmtc"])
    base_rss = max(r for _, r, _ in results["stmtc"])
    sizes = {t: os.path.getsize(os.path.join(d, "data", f"{t}.tbl")) for t in TABLES}
    lines = [f"Command: `python3 bench/tpch/run.py {' '.join(sys.argv[1:])}` ({args.runs} timed round(s), "
             f"interleaved {' → '.join(e.name for e in engines)}, {args.warmup} warm-up); "
             f"{time.strftime('%Y-%m-%d %H:%M %Z')}", "",
             f"- data: TPC-H SF {args.sf}, {sum(sizes.values()) / 1e9:.2f} GB of .tbl "
             f"(lineitem {sizes['lineitem'] / 1e6:.0f} MB), in {d}/data",
             f"- load average (1/5/15 min) before: {load0[0]:.1f}/{load0[1]:.1f}/{load0[2]:.1f}, "
             f"after: {load1[0]:.1f}/{load1[1]:.1f}/{load1[2]:.1f}; {os.cpu_count()} cores", "",
             "| engine | median wall s | min–max s | median CPU s (user+sys) | peak RSS MB | wall ÷ stmtc | RSS ÷ stmtc | "
             + " | ".join(f"reads {t}" for t in TABLES) + " |",
             "|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(TABLES)]
    for e in engines:
        rs = results[e.name]
        walls = [w for w, _, _ in rs]
        med = statistics.median(walls)
        rss = max(r for _, r, _ in rs)
        cpu = statistics.median(c for _, _, c in rs)
        lines.append(f"| {e.name} | {med:.2f} | {min(walls):.2f}–{max(walls):.2f} | {cpu:.1f} | {rss:.0f} | "
                     f"{med / base:.2f}× | {rss / base_rss:.2f}× | "
                     + " | ".join(str(reads[e.name].get(t, 0)) for t in TABLES) + " |")
    lines += ["", "Ratios of the other way round (how many times faster stmtc is): "
              + ", ".join(f"{e.name} {statistics.median(w for w, _, _ in results[e.name]) / base:.2f}× stmtc's wall"
                          for e in engines if e.name != "stmtc"), ""]
    lines.append("| query | stmtc rows | " + " | ".join(f"{n} rows / agrees" for n in checks) + " |")
    lines.append("|---|---:|" + "---|" * len(checks))
    ok = True
    for q in queries:
        cells = []
        for n, c in checks.items():
            ra, rb, problem = c[q]
            ok = ok and problem is None
            cells.append(f"{rb} / {'yes' if problem is None else 'NO: ' + problem[:200]}")
        lines.append(f"| {q} | {checks['duckdb-direct'][q][0]} | " + " | ".join(cells) + " |")
    lines += ["", "stmtc summary (last run):", "```", summary.strip(), "```"]
    report = "\n".join(lines)
    print(report)
    if args.report:
        with open(args.report, "w") as f:
            f.write(report + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
