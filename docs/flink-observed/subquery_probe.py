"""Runs each query of a probe file on Flink 2.3 (batch, parallelism 1) and prints
its rows, sorted, or the first lines of its error.

    subquery_probe.py FILE.sql    -- DDL first, then the queries, separated by lines "---"
"""
import sys
from pyflink.table import EnvironmentSettings, TableEnvironment
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
env.get_config().set("parallelism.default", "1")
ddl = open(sys.argv[1]).read().split(";\n---\n")
setup, queries = ddl[0], ddl[1:]
for stmt in setup.split(";\n"):
    if stmt.strip():
        env.execute_sql(stmt)
for q in queries:
    q = q.strip().rstrip(';')
    if not q: continue
    print("=== " + q.replace("\n", " "))
    try:
        rows = list(env.execute_sql(q).collect())
        for r in sorted(rows, key=lambda r: str(r)):
            print("   ", r)
    except Exception as e:
        msg = str(e).split("\n")
        print("   ERROR:", " | ".join(m for m in msg[:6]))
