#!/usr/bin/env python3
"""Produce fixtures/<case>/expected/ by running the real Flink once.

    FLINK_PY=/opt/flink-venv/bin/python run_fixture.py fixtures/<case> [more cases...]

For each case: cd into the case folder, run ../../../shared/flink/run_job.py job.sql
--clean-sinks, capture stdout (print sinks) into expected/stdout.txt (only if the job
has a print sink), then for every filesystem sink that is an INSERT target concatenate
all part files into expected/<sink>.<format>.  Lines are sorted bytewise (LC_ALL=C sort
order) unless expected/ORDERED exists (create it beforehand for ORDER BY cases).
Finally the out/ directories are deleted and FLINK.md is written.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_JOB = os.environ.get('RUN_JOB', '/work/shared/flink/run_job.py')
FLINK_PY = os.environ.get('FLINK_PY', '/opt/flink-venv/bin/python')
sys.path.insert(0, os.path.dirname(RUN_JOB))
import run_job  # noqa: E402  (split_sql / classify only)


def sinks_of(job_text):
    items = run_job.classify(run_job.split_sql(job_text))
    tables = {}
    for it in items:
        if it[0] != 'ddl':
            continue
        s = it[1]
        m = re.match(r'^CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([`\w.]+)', s, re.I)
        if not m:
            continue
        w = list(re.finditer(r'\)\s*WITH\s*\(', s, re.I))
        opts = dict((k.lower(), v) for k, v in
                    re.findall(r"'([^']+)'\s*=\s*'((?:[^']|'')*)'", s[w[-1].end():] if w else ''))
        tables[m.group(1).split('.')[-1].strip('`').lower()] = (m.group(1).split('.')[-1].strip('`'), opts)
    sinks = []
    for it in items:
        if it[0] == 'insert':
            name = run_job.INSERT_RE.match(it[1]).group(1).split('.')[-1].strip('`').lower()
            if name in tables and tables[name] not in sinks:
                sinks.append(tables[name])
    return sinks


def sort_lines(data: bytes) -> bytes:
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    lines.sort()
    return b''.join(l + b'\n' for l in lines)


def run_case(case):
    case = os.path.abspath(case)
    job = os.path.join(case, 'job.sql')
    with open(job, encoding='utf-8') as f:
        text = f.read()
    sinks = sinks_of(text)
    exp = os.path.join(case, 'expected')
    ordered = os.path.exists(os.path.join(exp, 'ORDERED'))
    if os.path.isdir(exp):
        for fn in os.listdir(exp):
            if fn != 'ORDERED':
                os.remove(os.path.join(exp, fn))
    os.makedirs(exp, exist_ok=True)
    cmd = [FLINK_PY, RUN_JOB, 'job.sql', '--clean-sinks']
    print(f"== {os.path.basename(case)}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    p = subprocess.run(cmd, cwd=case, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(os.path.join(case, 'flink_stderr.log'), 'wb') as f:
        f.write(p.stderr)
    if p.returncode != 0:
        print(p.stderr.decode(errors='replace')[-4000:], file=sys.stderr)
        raise SystemExit(f"{case}: flink failed rc={p.returncode}")
    os.remove(os.path.join(case, 'flink_stderr.log'))
    has_print = any(o.get('connector') == 'print' for _, o in sinks)
    if has_print:
        out = p.stdout if ordered else sort_lines(p.stdout)
        with open(os.path.join(exp, 'stdout.txt'), 'wb') as f:
            f.write(out)
    outdirs = set()
    for name, opts in sinks:
        if opts.get('connector') != 'filesystem':
            continue
        path = os.path.join(case, opts['path'])
        fmt = opts.get('format', 'csv')
        data = b''
        if os.path.isdir(path):
            for fn in sorted(os.listdir(path)):
                if fn.startswith('.'):
                    continue
                with open(os.path.join(path, fn), 'rb') as f:
                    d = f.read()
                if d and not d.endswith(b'\n'):
                    d += b'\n'
                data += d
        if not ordered:
            data = sort_lines(data)
        with open(os.path.join(exp, f'{name}.{fmt}'), 'wb') as f:
            f.write(data)
        outdirs.add(os.path.normpath(opts['path']).split(os.sep)[0])
    for d in outdirs:
        if d == 'out' and os.path.isdir(os.path.join(case, d)):
            shutil.rmtree(os.path.join(case, d))
    ver = subprocess.run([FLINK_PY, '-c', 'import importlib.metadata as m; print(m.version("apache-flink"))'],
                         stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(os.path.join(case, 'FLINK.md'), 'w') as f:
        f.write(f"""# How expected/ was produced

Flink version: apache-flink {ver} (PyPI, PyFlink local mini-cluster), OpenJDK 17, parallelism 1.

Run from this folder (relative paths in job.sql resolve against the current directory):

    /opt/flink-venv/bin/python /work/shared/flink/run_job.py job.sql --clean-sinks{' > stdout.raw' if has_print else ''}

Then, for each filesystem sink, all part files under its `path` were concatenated
{'(Flink order kept: the output order is defined by ORDER BY, see expected/ORDERED)' if ordered else 'and the lines sorted bytewise (LC_ALL=C sort)'} into
`expected/<sink>.<format>`{'; the print-sink lines (stdout) went to expected/stdout.txt' + ('' if ordered else ', sorted the same way') if has_print else ''}.
The out/ directories were then deleted.  Automated by
`docs/flink-observed/run_fixture.py fixtures/{os.path.basename(case)}`.
""")
    print(f"   ok: {[n for n, _ in sinks]}", file=sys.stderr)


if __name__ == '__main__':
    for c in sys.argv[1:]:
        run_case(c)
