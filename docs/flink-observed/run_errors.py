#!/usr/bin/env python3
"""Run error fixtures through the real Flink and save its error message.

    run_errors.py fixtures/error_*          (sequentially; ~10-25 s each)

For each case: cd into the folder and run
    /opt/flink-venv/bin/python /work/shared/flink/run_job.py job.sql --no-execute --explain
If Flink fails, the exception message (top-level exception and its causes, without the Java
stack frames) is written to FLINK_ERROR.txt.  If run_job.py itself rejects the file before
Flink sees it (e.g. a non-INSERT statement inside a statement set), the file is also handed to
Flink directly (`direct_exec` below: DDLs one by one, then the whole
`EXECUTE STATEMENT SET BEGIN ... END` as one executeSql call) so that Flink's own message is
recorded.  If Flink accepts the job, nothing is written and ACCEPTED is printed.
"""
import os
import re
import subprocess
import sys

RUN_JOB = os.environ.get('RUN_JOB', '/work/shared/flink/run_job.py')
FLINK_PY = os.environ.get('FLINK_PY', '/opt/flink-venv/bin/python')
MAX_BLOCK = int(os.environ.get('MAX_BLOCK', '20'))


def extract(stderr):
    """Top-level Java exception + every 'Caused by' block, without stack frames, deduplicated."""
    lines = stderr.splitlines()
    blocks, cur = [], None
    for ln in lines:
        if ln.startswith(': ') and cur is None and not blocks and re.match(r'^: [\w.$]+(Exception|Error)', ln):
            cur = [ln[2:]]
            continue
        # PyFlink re-raises some Java exceptions as pyflink.util.exceptions.X: <java class>: <message>
        m = re.match(r'^pyflink\.util\.exceptions\.\w+: ([\w.$]+(?:Exception|Error).*)$', ln)
        if m and cur is None and not blocks:
            cur = [m.group(1)]
            continue
        if ln.startswith('Caused by: '):
            if cur:
                blocks.append(cur)
            cur = [ln[len('Caused by: '):]]
            continue
        if cur is not None:
            if ln.startswith('\tat ') or re.match(r'^\t\.\.\. \d+ more', ln) or ln.startswith('\tSuppressed'):
                blocks.append(cur)
                cur = None
            else:
                cur.append(ln)
    if cur:
        blocks.append(cur)
    # keep the top-level exception, the root cause, and intermediate causes that add text
    def key_of(b):
        return re.sub(r'^[\w.$]+: ', '', '\n'.join(b).strip())
    if len(blocks) > 2:
        top, root = key_of(blocks[0]), key_of(blocks[-1])
        blocks = [blocks[0]] + [b for b in blocks[1:-1] if key_of(b) not in top and key_of(b) not in root] \
            + [blocks[-1]]
    # a cause that repeats the top block's continuation lines ("Was expecting one of: ...")
    # keeps only its own first line
    if len(blocks) > 1:
        top_rest = set(l for l in blocks[0][1:] if l.strip())
        for b in blocks[1:]:
            if len(b) > 1 and all((l in top_rest) or not l.strip() for l in b[1:]):
                del b[1:]
    out, seen = [], set()
    for b in blocks:
        while b and not b[-1].strip():
            b.pop()
        # the message without the exception class name, to drop re-wrapped duplicates
        msg = '\n'.join(b)
        key = re.sub(r'^[\w.$]+: ', '', msg)
        if key in seen:
            continue
        seen.add(key)
        if len(b) > MAX_BLOCK:
            b = b[:MAX_BLOCK] + [f'    ... ({len(b) - MAX_BLOCK} more lines)']
        out.append('\n'.join(b))
    return out


DIRECT = r'''
import sys
sys.path.insert(0, %(dir)r)
import run_job
from pyflink.table import EnvironmentSettings, TableEnvironment
text = open('job.sql', encoding='utf-8').read()
stmts = run_job.split_sql(text)
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
i = 0
while i < len(stmts):
    s = stmts[i]
    if run_job.SET_BEGIN_RE.match(s):
        block = []
        while i < len(stmts) and not __import__('re').fullmatch(r'END', stmts[i], __import__('re').I):
            block.append(stmts[i])
            i += 1
        sql = ';\n'.join(block) + ';\nEND'
        print('direct executeSql of the statement set block', file=sys.stderr)
        t_env.execute_sql(sql)
    elif s.split(None, 1)[0].upper() != 'SET':
        t_env.execute_sql(s)
    i += 1
'''


def run_case(case):
    case = os.path.abspath(case)
    name = os.path.basename(case)
    p = subprocess.run([FLINK_PY, RUN_JOB, 'job.sql', '--no-execute', '--explain'], cwd=case,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    target = os.path.join(case, 'FLINK_ERROR.txt')
    if p.returncode == 0:
        print(f"{name}: ACCEPTED by Flink", flush=True)
        with open(os.path.join(case, 'ACCEPTED.explain.txt'), 'w') as f:
            f.write(p.stdout)
        return
    blocks = extract(p.stderr)
    header = []
    if not blocks:
        # run_job.py's own SystemExit: last stderr line; then ask Flink itself
        own = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f'rc={p.returncode}'
        header = [f'(run_job.py refused the file before Flink saw it: "{own}")',
                  'Flink, given the statement set block directly via executeSql:']
        q = subprocess.run([FLINK_PY, '-c', DIRECT % {'dir': os.path.dirname(RUN_JOB)}], cwd=case,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        blocks = extract(q.stderr) or [q.stderr.strip()[-2000:] or f'(direct run rc={q.returncode}, no error)']
    with open(target, 'w') as f:
        f.write('\n'.join(header + ['\n---\n'.join(blocks)]) + '\n')
    first = blocks[0].splitlines()[0] if blocks else ''
    print(f"{name}: {first[:200]}", flush=True)


if __name__ == '__main__':
    for c in sys.argv[1:]:
        run_case(c)
