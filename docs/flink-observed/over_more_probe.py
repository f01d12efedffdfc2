#!/usr/bin/env python3
"""Ask Flink 2.3 (batch, parallelism 1) about the OVER-window forms of
docs/sql-reference/over-windows.md that over_probe.py does not cover: window
calls in grouped queries and ORDER BY, named windows, NTILE(0), LAG/LEAD
offsets and defaults, RANGE offsets over DECIMAL/DOUBLE/DATE/TIMESTAMP keys,
FILTER / IGNORE NULLS, window calls beside scalar subqueries. Queries are
read from stdin, separated by `;;`; each prints its result types and rows,
or Flink's error (planning or run time).

    /opt/flinkvenv/bin/python over_more_probe.py < over-more-probe-queries.sql
"""
import re, sys
from pyflink.table import EnvironmentSettings, TableEnvironment
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.get_config().set("parallelism.default", "1")
t_env.execute_sql("""CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES
 ('a', 1, CAST(1 AS BIGINT), 1.5e0, CAST(1.25 AS DECIMAL(10,2)), 'x', TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01'),
 ('a', 2, CAST(2 AS BIGINT), 2.5e0, CAST(2.50 AS DECIMAL(10,2)), 'y', TIMESTAMP '2024-01-01 00:30:00', DATE '2024-01-02'),
 ('a', CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10,2)), CAST(NULL AS STRING), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS DATE)),
 ('b', 5, CAST(0 AS BIGINT), 5.0e0, CAST(5.00 AS DECIMAL(10,2)), 'z', TIMESTAMP '2024-01-01 02:00:00', DATE '2024-01-05'),
 ('b', 5, CAST(3 AS BIGINT), 6.0e0, CAST(6.00 AS DECIMAL(10,2)), 'w', TIMESTAMP '2024-01-01 02:59:00', DATE '2024-01-06'),
 (CAST(NULL AS STRING), 7, CAST(1 AS BIGINT), 7.0e0, CAST(7.00 AS DECIMAL(10,2)), 'v', TIMESTAMP '2024-01-01 05:00:00', DATE '2024-01-09')
) AS v(k, i, b, d, m, s, ts, dt)""")

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
