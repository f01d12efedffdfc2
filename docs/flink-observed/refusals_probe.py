#!/usr/bin/env python3
"""Ask Flink 2.3 (one JVM, nothing executed) about reserved words used as
identifiers and about untyped NULLs in VALUES.  Prints a markdown table.

    /opt/flinkvenv/bin/python refusals_probe.py   # results: refusals.md
"""
import re
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t_env.execute_sql("CREATE TABLE t (i INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
t_env.execute_sql("CREATE TABLE sink2 (a INT, b STRING) WITH ('connector' = 'blackhole')")
t_env.execute_sql("CREATE TABLE sink1 (a INT) WITH ('connector' = 'blackhole')")


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
    return out[:300].replace('|', '\\|')


def probe(kind, sql):
    try:
        if kind == 'ddl':
            t_env.execute_sql(sql)
        elif kind == 'query':
            t_env.sql_query(sql).explain()
        else:
            ss = t_env.create_statement_set()
            ss.add_insert_sql(sql)
            ss.explain()
        verdict = 'ACCEPTED'
    except Exception as e:  # noqa
        verdict = 'REJECTED: ' + first_msg(e)
    print(f"| `{sql}` | {verdict} |", flush=True)


print("| probe | Flink 2.3 |\n|---|---|")
RESERVED = ['RAW', 'VALUE', 'STRING', 'BYTES', 'COUNT', 'ABS', 'DATE', 'RANK', 'WATERMARK', 'DOT', 'SQL',
            'YEAR', 'USER', 'COMMENT', 'STATEMENT', 'MOD', 'LN', 'MINUS']
NON_RESERVED = ['DATA', 'NAME', 'KEY', 'STATE', 'TYPE', 'VIEW', 'TEMPORARY', 'DESC', 'ZONE', 'YEARS', 'TUMBLE', 'JSON']
for n, w in enumerate(RESERVED + NON_RESERVED):
    low = w.lower()
    probe('ddl', f"CREATE TABLE {low} (a INT) WITH ('connector' = 'blackhole')")
    probe('ddl', f"CREATE TABLE col_{n} ({low} INT) WITH ('connector' = 'blackhole')")
    probe('query', f"SELECT i AS {low} FROM t")
    probe('query', f"SELECT {low}.i FROM t {low}")
    probe('query', f"SELECT {low} FROM (SELECT i AS `{low}` FROM t)")
probe('ddl', "CREATE VIEW v_raw (raw) AS SELECT i FROM t")
probe('ddl', "CREATE TABLE pk_value (a INT, PRIMARY KEY (value) NOT ENFORCED) WITH ('connector' = 'blackhole')")
probe('insert', "INSERT INTO sink2 (a, value) SELECT i, s FROM t")
probe('query', "SELECT COUNT(*), ABS(i), MOD(i, 2), USER, CURRENT_DATE FROM t GROUP BY i")
probe('query', "WITH raw AS (SELECT i FROM t) SELECT i FROM raw")
probe('query', "SELECT i FROM t ORDER BY i LIMIT 1")
# untyped NULL in VALUES
probe('query', "SELECT * FROM (VALUES (1, NULL), (2, NULL)) AS v(a, b)")
probe('query', "SELECT * FROM (VALUES (1, 'x'), (2, NULL)) AS v(a, b)")
probe('query', "SELECT * FROM (VALUES (1, NULL), (2, 'x')) AS v(a, b)")
probe('query', "SELECT * FROM (VALUES (1, NULL)) AS v(a, b)")
probe('query', "SELECT * FROM (VALUES (NULL)) AS v(a)")
probe('query', "SELECT * FROM (VALUES (NULL), (NULL)) AS v(a)")
probe('query', "SELECT * FROM (VALUES (1, CAST(NULL AS STRING)), (2, NULL)) AS v(a, b)")
probe('query', "VALUES (1, NULL), (2, NULL)")
probe('query', "SELECT NULL")
probe('query', "SELECT NULL FROM t")
probe('query', "SELECT NULL AS x FROM t")
probe('insert', "INSERT INTO sink2 VALUES (1, NULL), (2, NULL)")
probe('insert', "INSERT INTO sink2 VALUES (1, NULL)")
probe('insert', "INSERT INTO sink2 VALUES (1, 'x'), (2, NULL)")
probe('insert', "INSERT INTO sink2 SELECT * FROM (VALUES (1, NULL), (2, NULL))")
probe('insert', "INSERT INTO sink2 SELECT * FROM (VALUES (1, NULL))")
probe('insert', "INSERT INTO sink1 VALUES (NULL), (NULL)")
probe('insert', "INSERT INTO sink1 VALUES (NULL)")
probe('insert', "INSERT INTO sink1 SELECT NULL")
probe('insert', "INSERT INTO sink2 SELECT 1, NULL FROM t")
probe('insert', "INSERT INTO sink1 SELECT a FROM (VALUES (1), (NULL)) AS v(a)")
probe('insert', "INSERT INTO sink1 SELECT a FROM (VALUES (NULL), (NULL)) AS v(a) UNION ALL SELECT i FROM t")
