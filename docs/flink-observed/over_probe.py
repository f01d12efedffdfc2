#!/usr/bin/env python3
"""Ask Flink 2.3 (batch, one JVM, nothing executed) about OVER windows: result types of every
window function and which frames/forms it accepts.  Prints a markdown table.

    /opt/flinkvenv/bin/python over_probe.py > over-probe-results.md
"""
import re
import sys
from pyflink.table import EnvironmentSettings, TableEnvironment

mode = sys.argv[1] if len(sys.argv) > 1 else 'batch'
t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode() if mode == 'batch'
                                else EnvironmentSettings.in_streaming_mode())
t_env.execute_sql("""CREATE TABLE t (k STRING, i INT, b BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING,
    ts TIMESTAMP(3), dt DATE, f FLOAT, si SMALLINT, ti TINYINT, nn INT NOT NULL, big DECIMAL(38, 4))
    WITH ('connector' = 'filesystem', 'path' = '/tmp/probe_over.csv', 'format' = 'csv')""")


def first_msg(e):
    s = str(e)
    lines = [l for l in s.splitlines() if l.strip() and not l.startswith('\tat ')]
    top = None
    for l in lines:
        m = re.search(r'(?:Exception|Error): (.*)$', l)
        if m and 'An error occurred while calling' not in l:
            top = m.group(1)
            break
    causes = [re.sub(r'^Caused by: [\w.$]+: ', '', l) for l in lines if l.startswith('Caused by: ')]
    out = top or (lines[0] if lines else repr(e))
    if causes and causes[-1] not in out:
        out += ' // root cause: ' + causes[-1]
    return out[:500].replace('|', '\\|')


def probe(sql, show_plan=False):
    try:
        tab = t_env.sql_query(sql)
        schema = tab.get_schema()
        extra = ', '.join(f"{n}: {t!r}" for n, t in zip(schema.get_field_names(), schema.get_field_data_types()))
        plan = tab.explain()
        verdict = 'ACCEPTED -> ' + extra
        if show_plan:
            opt = plan.split('== Optimized Physical Plan ==')[-1].split('== Optimized Execution Plan ==')[0]
            verdict += ' <br> ' + ' <br> '.join(l.strip()[:300] for l in opt.strip().splitlines())
    except Exception as e:  # noqa
        verdict = 'REJECTED: ' + first_msg(e)
    verdict = verdict.replace('|', '\\|')
    print(f"| `{sql}` | {verdict} |", flush=True)


W = "OVER (PARTITION BY k ORDER BY i)"
print("| probe | Flink 2.3 |\n|---|---|")
for f in ["ROW_NUMBER()", "RANK()", "DENSE_RANK()", "PERCENT_RANK()", "CUME_DIST()", "NTILE(3)",
          "LAG(i)", "LAG(i, 2)", "LAG(i, 1, 0)", "LAG(b, 1, 0)", "LAG(m, 1, 0)", "LAG(i, 1, 1.5)", "LAG(d, 1, 0)",
          "LAG(s, 1, 'x')", "LAG(s, 1, 'longer default')", "LAG(nn)", "LAG(nn, 1, 0)", "LAG(i, 1, b)",
          "LAG(i, 1, CAST(NULL AS INT))", "LAG(ts)", "LEAD(i)", "LEAD(i, 2, -1)", "LEAD(s, 1)",
          "LAG(i, 0)", "LAG(i, -1)", "LAG(i, i)", "NTILE(i)", "NTILE(0)", "NTILE(-1)",
          "FIRST_VALUE(i)", "LAST_VALUE(i)", "FIRST_VALUE(s)", "LAST_VALUE(nn)", "FIRST_VALUE(m)",
          "COUNT(*)", "COUNT(i)", "COUNT(nn)", "COUNT(1)",
          "SUM(i)", "SUM(b)", "SUM(d)", "SUM(m)", "SUM(si)", "SUM(ti)", "SUM(f)", "SUM(nn)", "SUM(big)",
          "AVG(i)", "AVG(b)", "AVG(d)", "AVG(m)", "AVG(si)", "AVG(f)", "AVG(nn)", "AVG(big)",
          "MIN(i)", "MAX(s)", "MIN(ts)", "MAX(m)", "MIN(nn)", "MAX(d)", "MIN(dt)",
          "COUNT(DISTINCT i)", "SUM(DISTINCT i)", "SUM(s)", "STDDEV_POP(d)", "VAR_POP(i)", "LISTAGG(s)",
          "FIRST_VALUE(i) IGNORE NULLS", "LAG(i) IGNORE NULLS"]:
    probe(f"SELECT k, i, {f} {W} AS w FROM t")
# default frames and explicit frames
for w in ["OVER ()", "OVER (PARTITION BY k)", "OVER (ORDER BY i)", "OVER (PARTITION BY k ORDER BY i DESC NULLS FIRST)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i ROWS 2 PRECEDING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 PRECEDING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i ROWS CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i ROWS UNBOUNDED PRECEDING)",
          "OVER (PARTITION BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN 10 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN CURRENT ROW AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i DESC RANGE BETWEEN 10 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY d RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY m RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY s RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY s RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY dt RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i, b RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i, b RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i RANGE 10 PRECEDING)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN i PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i ROWS BETWEEN -1 PRECEDING AND CURRENT ROW)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING)",
          "OVER (PARTITION BY k ORDER BY i RANGE BETWEEN 3 PRECEDING AND 1 PRECEDING)",
          "OVER (PARTITION BY k, s ORDER BY i)", "OVER (PARTITION BY k ORDER BY i + 1)",
          "OVER (PARTITION BY UPPER(k) ORDER BY i)"]:
    probe(f"SELECT k, i, SUM(i) {w} AS w FROM t")
    probe(f"SELECT k, i, COUNT(*) {w} AS w FROM t")
for f in ["ROW_NUMBER()", "RANK()", "DENSE_RANK()", "PERCENT_RANK()", "CUME_DIST()", "NTILE(2)", "LAG(i)", "LEAD(i)",
          "FIRST_VALUE(i)", "LAST_VALUE(i)"]:
    probe(f"SELECT k, i, {f} OVER (PARTITION BY k ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS w FROM t")
    probe(f"SELECT k, i, {f} OVER (PARTITION BY k ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS w FROM t")
    probe(f"SELECT k, i, {f} OVER (PARTITION BY k ORDER BY i RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS w FROM t")
    probe(f"SELECT k, i, {f} OVER (PARTITION BY k) AS w FROM t")
    probe(f"SELECT k, i, {f} OVER () AS w FROM t")
# other placements
probe("SELECT k, i FROM t WHERE ROW_NUMBER() OVER (ORDER BY i) = 1")
probe("SELECT k, SUM(i) FROM t GROUP BY k HAVING ROW_NUMBER() OVER (ORDER BY k) = 1")
probe("SELECT k, SUM(SUM(i)) OVER (ORDER BY k) FROM t GROUP BY k")
probe("SELECT k, RANK() OVER (ORDER BY SUM(i)) FROM t GROUP BY k")
probe("SELECT k, i, SUM(i) OVER w, MIN(i) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY i)")
probe("SELECT k, i FROM t ORDER BY ROW_NUMBER() OVER (ORDER BY i)")
probe("SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i) + 1 AS w FROM t")
probe("SELECT k, i, SUM(i) OVER (PARTITION BY k ORDER BY i) * 2 AS w FROM t")
probe("SELECT DISTINCT k, COUNT(*) OVER (PARTITION BY k) FROM t")
probe("SELECT k, SUM(ROW_NUMBER() OVER (ORDER BY i)) FROM t GROUP BY k")
probe("SELECT k, i, SUM(i) OVER (PARTITION BY k ORDER BY i), SUM(i) OVER (ORDER BY i ROWS 1 PRECEDING) FROM t")
probe("SELECT k, i, SUM(i + 1) OVER (PARTITION BY k ORDER BY i) FROM t")
probe("SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i NULLS FIRST) FROM t")
probe("SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i DESC NULLS LAST) FROM t")
# Top-N and deduplication shapes (plan shown)
for where in ["rn <= 2", "rn < 3", "rn = 1", "rn = 2", "rn BETWEEN 2 AND 3", "rn <= 2 AND i > 0", "rn > 1",
              "rn >= 2 AND rn <= 3", "2 >= rn", "rn <= 0"]:
    for f in ["ROW_NUMBER()", "RANK()", "DENSE_RANK()"]:
        probe(f"SELECT * FROM (SELECT k, i, s, {f} OVER (PARTITION BY k ORDER BY i DESC) AS rn FROM t) WHERE {where}", True)
probe("SELECT k, i FROM (SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i) AS rn FROM t) WHERE rn <= 2", True)
probe("SELECT k, i FROM (SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t) WHERE rn = 1", True)
probe("SELECT k, i FROM (SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1", True)
probe("SELECT * FROM (SELECT k, i, ROW_NUMBER() OVER (ORDER BY i) AS rn FROM t) WHERE rn <= 2", True)
probe("SELECT * FROM (SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i) AS rn FROM t) WHERE k = 'a'", True)
probe("SELECT * FROM (SELECT k, i, SUM(i) OVER (PARTITION BY k ORDER BY i) AS w FROM t) WHERE w > 3 AND k = 'a'", True)
probe("SELECT * FROM (SELECT k, i, ROW_NUMBER() OVER (PARTITION BY k ORDER BY i) AS rn FROM t) WHERE rn <= i", True)
probe("SELECT k, i, SUM(i) OVER (PARTITION BY k ORDER BY i ROWS 1 PRECEDING) AS w FROM t", True)
