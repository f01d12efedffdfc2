"""Runs a list of queries on Flink 2.3 (batch, parallelism 1) and prints each one's rows or error.

Run: /work/flink-venv/bin/python probe_queries.py DIR/queries.txt
Each line of queries.txt is `NAME :: SELECT ...`. The tables are the csv files beside it: t.csv is
t(k INT, v INT), u.csv is u(k INT, w INT); an empty field is NULL. Used by grouping-probes/,
over-offset-probe/ and row-in-subquery/."""
import os
import sys

from pyflink.table import EnvironmentSettings, TableEnvironment

queries = os.path.abspath(sys.argv[1])
here = os.path.dirname(queries)
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
env.get_config().set("parallelism.default", "1")
for name, cols in [('t', 'k INT, v INT'), ('u', 'k INT, w INT')]:
    if os.path.exists(f'{here}/{name}.csv'):
        env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{here}/{name}.csv', 'format' = 'csv', 'csv.null-literal' = '')")
for line in open(queries):
    if not line.strip() or line.startswith('#'):
        continue
    name, q = line.rstrip('\n').split(' :: ', 1)
    try:
        rows = sorted([tuple(r) for r in env.execute_sql(q).collect()], key=repr)
        print(name, "::", rows)
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        cause = [m for m in msg if 'Caused by' in m][-1:]
        print(name, ":: ERR", " / ".join(msg[0:2] + cause)[:300])
