#!/usr/bin/env python3
"""Diff stmtc's accept/reject against Flink 2.3's, over generated jobs.

    cd compiler/fuzz && cargo run --release --no-default-features --bin flink_diff_jobs -- --out /tmp/fd --seeds 300
    /opt/flinkvenv/bin/python docs/flink-observed/flink_diff.py /tmp/fd > findings.md

Every `<seed>.sql` in the folder is planned by Flink in ONE JVM (a fresh
TableEnvironment per job: SET, DDL, every INSERT in one statement set,
`explain`, nothing executed), and Flink's verdict is compared with the
`<seed>.stmtc` verdict that `flink_diff_jobs` wrote. Planning is where Flink
refuses a job (parser, validator, planner); a job Flink accepts here may still
fail at run time on its data, which this diff does not see.

Prints a Markdown report: the counts, then every disagreement with both
verdicts. "stmtc accepts, Flink refuses" breaks the rule that a job file that
runs on stmtc runs on Flink; "Flink accepts, stmtc refuses" is a feature gap.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_JOB_DIR = os.environ.get('RUN_JOB_DIR', os.path.join(HERE, '../../../shared/flink'))
sys.path.insert(0, RUN_JOB_DIR)
import run_job  # noqa: E402  (split_sql / classify)


def first_line(e):
    text = str(e)
    # py4j wraps the Java exception; keep the innermost meaningful message.
    msgs = re.findall(r'(?:org\.apache\.[\w.$]+|java\.[\w.$]+)(?:Exception|Error): (.+)', text)
    if msgs:
        return msgs[-1].strip()[:300]
    return (text.strip().splitlines() or ['error'])[0][:300]


def flink_verdict(text, TableEnvironment, EnvironmentSettings, Configuration):
    items = run_job.classify(run_job.split_sql(text))
    conf = {k: v for it in items if it[0] == 'set' for (k, v) in [it[2]]}
    mode = conf.get('execution.runtime-mode', 'streaming').lower()
    j_conf = Configuration()
    for k, v in conf.items():
        j_conf.set_string(k, v)
    b = EnvironmentSettings.new_instance()
    b = b.in_batch_mode() if mode == 'batch' else b.in_streaming_mode()
    t_env = TableEnvironment.create(b.with_configuration(j_conf).build())
    inserts = []
    try:
        for it in items:
            kind, s = it[0], it[1]
            if kind == 'set':
                continue
            if kind == 'insert':
                inserts.append(s)
            elif kind == 'query':
                t_env.sql_query(s)
            else:
                t_env.execute_sql(s)
        if not inserts:
            return 'accepted (no INSERT)'
        stmt_set = t_env.create_statement_set()
        for s in inserts:
            stmt_set.add_insert_sql(s)
        stmt_set.explain()
        return 'accepted'
    except Exception as e:  # py4j carries the Java error
        return 'refused: ' + first_line(e)


def main():
    folder = sys.argv[1]
    from pyflink.common import Configuration
    from pyflink.table import EnvironmentSettings, TableEnvironment
    seeds = sorted(int(f[:-4]) for f in os.listdir(folder) if f.endswith('.sql'))
    rows, counts = [], {}
    for seed in seeds:
        with open(os.path.join(folder, f'{seed}.sql'), encoding='utf-8', errors='replace') as f:
            text = f.read()
        with open(os.path.join(folder, f'{seed}.stmtc'), encoding='utf-8') as f:
            ours = f.read().strip()
        try:
            theirs = flink_verdict(text, TableEnvironment, EnvironmentSettings, Configuration)
        except (Exception, SystemExit) as e:  # a job run_job cannot even split
            theirs = 'refused: ' + first_line(e)
        key = (ours == 'accepted', theirs.startswith('accepted'))
        counts[key] = counts.get(key, 0) + 1
        if key[0] != key[1]:
            rows.append((seed, ours, theirs))
        print(f'{seed}: stmtc {ours[:60]!r} / flink {theirs[:60]!r}', file=sys.stderr, flush=True)
    name = {(True, True): 'both accept', (False, False): 'both refuse',
            (True, False): 'stmtc accepts, Flink refuses', (False, True): 'Flink accepts, stmtc refuses'}
    print(f'# stmtc vs Flink 2.3: accept/reject over {len(seeds)} generated jobs ({folder})\n')
    for k in [(True, True), (False, False), (True, False), (False, True)]:
        print(f'- {name[k]}: {counts.get(k, 0)}')
    print()
    for seed, ours, theirs in rows:
        print(f'## seed {seed}: {name[(ours == "accepted", theirs.startswith("accepted"))]}\n')
        print(f'- stmtc: {ours}\n- Flink: {theirs}\n')


if __name__ == '__main__':
    main()
