#!/usr/bin/env python3
"""As over_more_probe.py, over a table with NULLs between values (LAG/LEAD
IGNORE NULLS) and DATE keys a few days apart (RANGE INTERVAL offsets).

    /opt/flinkvenv/bin/python over_more_probe_nulls.py < over-more-probe-nulls-queries.sql
"""
import re, sys
from pyflink.table import EnvironmentSettings, TableEnvironment
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("""CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES
 ('a', 1, 1, DATE '2024-01-01'), ('a', 2, CAST(NULL AS INT), DATE '2024-01-02'), ('a', 3, CAST(NULL AS INT), DATE '2024-01-03'),
 ('a', 4, 40, DATE '2024-01-04'), ('a', 5, CAST(NULL AS INT), DATE '2024-01-07'), ('b', 1, CAST(NULL AS INT), DATE '2024-01-01'), ('b', 2, 7, DATE '2024-01-03')
) AS v(k, id, i, dt)""")

def first_msg(e):
    s = str(e)
    lines = [l for l in s.splitlines() if l.strip() and not l.startswith('\tat ')]
    top = None
    for l in lines:
        m = re.search(r'(?:Exception|Error): (.*)$', l)
        if m and 'An error occurred while calling' not in l:
            top = m.group(1); break
    causes = [re.sub(r'^Caused by: [\w.$]+: ', '', l) for l in lines if l.startswith('Caused by: ')]
    out = top or (lines[0] if lines else repr(e))
    if causes and causes[-1] not in out:
        out += ' // root cause: ' + causes[-1]
    return out[:700]

def probe(sql, run=True):
    print("==", sql, flush=True)
    try:
        tab = t_env.sql_query(sql)
        schema = tab.get_schema()
        print("  TYPES:", ', '.join(f"{n}: {t!r}" for n, t in zip(schema.get_field_names(), schema.get_field_data_types())))
        if run:
            with tab.execute().collect() as res:
                for r in res:
                    print("   ", r)
    except Exception as e:
        print("  REJECTED:", first_msg(e))
    sys.stdout.flush()

for q in sys.stdin.read().split(';;'):
    q = q.strip()
    if q:
        probe(q)
