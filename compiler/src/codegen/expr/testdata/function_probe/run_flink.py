#!/usr/bin/env python3
"""Runs the function probe (job.sql) through Flink 2.3 once and writes the golden
table expected/<sink>.csv.

    /opt/flinkvenv/bin/python run_flink.py        # from this folder

Unlike run_job.py, each expression runs in its own small job within one JVM, so an
expression that fails the job on some row does not lose the others: the failing
rows are found (one job per row) and their cell holds `<flink fails: message>`,
which the test counts as a match only where stmtc's generated code fails on
that value too (it writes `<stmtc fails: message>`).
"""
import csv
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, '/work/shared/flink')
import run_job  # noqa: E402  (split_sql / classify)

from pyflink.common import Configuration  # noqa: E402
from pyflink.table import EnvironmentSettings, TableEnvironment  # noqa: E402


def message(e):
    lines = [l for l in str(e).splitlines() if l.strip() and not l.lstrip().startswith('at ')]
    causes = [re.sub(r'^Caused by: ', '', l) for l in lines if l.startswith('Caused by: ')]
    causes = [c for c in causes if 'TaskExecutor is shutting down' not in c
              and 'Recovery is suppressed' not in c and 'Job execution failed' not in c
              and 'Failed to wait job finish' not in c]
    text = causes[-1] if causes else (lines[0] if lines else repr(e))
    return text.replace('\t', ' ')[:200]


def main():
    os.chdir(HERE)
    text = open('job.sql', encoding='utf-8').read()
    items = run_job.classify(run_job.split_sql(text))
    conf = Configuration()
    conf.set_string('parallelism.default', '1')
    sets = [it[2] for it in items if it[0] == 'set']
    for k, v in sets:
        conf.set_string(k, v)
    t_env = TableEnvironment.create(EnvironmentSettings.new_instance().in_batch_mode()
                                    .with_configuration(conf).build())
    for k, v in sets:
        t_env.get_config().set(k, v)
    source = None
    for kind, s, *_ in items:
        if kind == 'ddl' and re.match(r'CREATE TABLE a ', s):
            source = s
            t_env.execute_sql(s)
    ids = [int(l.split(',', 1)[0]) for l in open('data/args.csv', encoding='utf-8')]
    inserts = [s for kind, s, *_ in items if kind == 'insert']
    os.makedirs('expected', exist_ok=True)
    scratch = os.path.join('/tmp', 'function_probe_flink')
    shutil.rmtree(scratch, ignore_errors=True)
    n = 0

    def run(selects, where=''):
        """Rows (id -> list of value texts) of `SELECT id, <selects> FROM a [WHERE ...]`."""
        nonlocal n
        n += 1
        path = os.path.join(scratch, f'r{n}')
        cols = ', '.join(f'c{k} STRING' for k in range(len(selects)))
        t_env.execute_sql(f"CREATE TABLE r{n} (id INT, {cols}) WITH ("
                          f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')")
        t_env.execute_sql(f"INSERT INTO r{n} SELECT id, {', '.join(selects)} FROM a {where}").wait()
        rows = {}
        for f in sorted(os.listdir(path)):
            if not f.startswith('.'):
                for rec in csv.reader(open(os.path.join(path, f), encoding='utf-8', newline='')):
                    rows[int(rec[0])] = rec[1:]
        return rows

    def columns_of(exprs):
        """One dict (id -> value) per expression; failing jobs are split in halves,
        a failing single expression is run row by row."""
        try:
            rows = run(exprs)
            return [{i: r[k] for i, r in rows.items()} for k in range(len(exprs))]
        except Exception as ex:  # noqa: BLE001 (Py4J errors)
            if len(exprs) > 1:
                half = len(exprs) // 2
                return columns_of(exprs[:half]) + columns_of(exprs[half:])
            print(f'{exprs[0]}: fails ({message(ex)}); row by row', file=sys.stderr)
        values = {}

        def rows_of(group):
            """Bisects the rows: a row that fails alone gets Flink's message."""
            where = 'WHERE id IN (' + ', '.join(map(str, group)) + ')'
            try:
                values.update({k: r[0] for k, r in run(exprs, where).items()})
            except Exception as ex2:  # noqa: BLE001
                if len(group) == 1:
                    values[group[0]] = '<flink fails: ' + message(ex2) + '>'
                else:
                    rows_of(group[:len(group) // 2])
                    rows_of(group[len(group) // 2:])

        rows_of(ids)
        return [values]

    for insert in inserts:
        sink = re.match(r'INSERT INTO (\w+)', insert).group(1)
        if os.path.exists(os.path.join('expected', f'{sink}.csv')) and not os.environ.get('FRESH'):
            continue  # done by an earlier run (FRESH=1 redoes every sink)
        body = insert.split(' SELECT id,', 1)[1].rsplit('FROM a', 1)[0]
        exprs = [e.strip() for e in re.split(r',\n', body.strip())]
        columns = columns_of(exprs)
        with open(os.path.join('expected', f'{sink}.csv'), 'w', encoding='utf-8', newline='') as out:
            w = csv.writer(out, lineterminator='\n')
            for i in ids:
                w.writerow([i] + [c.get(i, '') for c in columns])
        print(f'{sink}: {len(exprs)} expressions', file=sys.stderr)

if __name__ == '__main__':
    main()
