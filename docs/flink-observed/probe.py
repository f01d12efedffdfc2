#!/usr/bin/env python3
"""Ask Flink (one JVM, no job execution) whether many small statements are accepted.

    /opt/flink-venv/bin/python probe.py > probe-results.md

Each probe is either a DDL (executed with executeSql), a query (sql_query -> result schema), or
an INSERT (statement set with that one INSERT, explain()).  Prints ACCEPTED (with the result
schema for queries) or REJECTED with the first line(s) of Flink's message.
"""
import re
from pyflink.table import EnvironmentSettings, TableEnvironment

t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
BASE = [
    """CREATE TABLE t (i INT, b BIGINT, s STRING, d DOUBLE, m DECIMAL(10, 2), big DECIMAL(38, 2),
       ts TIMESTAMP(3), ts6 TIMESTAMP(6), dt DATE, flag BOOLEAN)
       WITH ('connector' = 'filesystem', 'path' = '/tmp/probe_in.csv', 'format' = 'csv')""",
    """CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/probe_u.csv', 'format' = 'csv')""",
]
for s in BASE:
    t_env.execute_sql(s)

SINK_TYPES = ['BIGINT', 'INT', 'DECIMAL(10, 2)', 'DOUBLE', 'STRING', 'VARCHAR(3)', 'CHAR(3)', 'TIMESTAMP(3)',
              'TIMESTAMP(6)', 'DATE', 'BOOLEAN', 'TINYINT', 'FLOAT', 'DECIMAL(5, 0)']
for k, ty in enumerate(SINK_TYPES):
    t_env.execute_sql(f"CREATE TABLE sink_{k} (x {ty}) WITH ('connector' = 'blackhole')")
SINK = {ty: f'sink_{k}' for k, ty in enumerate(SINK_TYPES)}
t_env.execute_sql("CREATE TABLE sink3 (region STRING, cnt BIGINT, total DECIMAL(38, 2)) WITH ('connector' = 'blackhole')")


def first_msg(e):
    """Top-level message, plus the root cause when it says more."""
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
    return out[:400].replace('|', '\\|')


def probe(kind, sql, label=None):
    label = label or sql
    try:
        if kind == 'ddl':
            t_env.execute_sql(sql)
            extra = ''
        elif kind == 'query':
            tab = t_env.sql_query(sql)
            extra = ' -> ' + ', '.join(f"{n}: {t!r}" for n, t in zip(tab.get_schema().get_field_names(),
                                                                     tab.get_schema().get_field_data_types()))
            tab.explain()  # validation alone misses errors raised by the optimizer
        else:
            ss = t_env.create_statement_set()
            ss.add_insert_sql(sql)
            ss.explain()
            extra = ''
        print(f"| `{label}` | ACCEPTED{extra} |", flush=True)
    except Exception as e:  # noqa
        print(f"| `{label}` | REJECTED: {first_msg(e)} |", flush=True)


print("| probe | Flink 2.3 |\n|---|---|")
# implicit casts on INSERT (query column type -> sink column type)
for src, expr in [('INT', 'i'), ('BIGINT', 'b'), ('DECIMAL(38, 2)', 'big'), ('DECIMAL(10, 2)', 'm'), ('DOUBLE', 'd'),
                  ('STRING', 's'), ('TIMESTAMP(6)', 'ts6'), ('TIMESTAMP(3)', 'ts'), ('DATE', 'dt'), ('BOOLEAN', 'flag')]:
    for ty in SINK_TYPES:
        if ty == src:
            continue
        probe('insert', f"INSERT INTO {SINK[ty]} SELECT {expr} FROM t", f"{src} column into {ty} sink column")
probe('insert', "INSERT INTO sink_0 SELECT 1 FROM t", "INT literal 1 into BIGINT sink")
probe('insert', "INSERT INTO sink_4 SELECT 1 FROM t", "INT literal 1 into STRING sink")
probe('insert', "INSERT INTO sink_1 SELECT '1' FROM t", "STRING literal '1' into INT sink")
probe('insert', "INSERT INTO sink_7 SELECT '2024-01-05 00:00:00' FROM t", "STRING literal into TIMESTAMP(3) sink")
probe('insert', "INSERT INTO sink_4 SELECT NULL FROM t", "bare NULL into STRING sink")
probe('insert', "INSERT INTO sink3 (region, cnt) SELECT s, b FROM t", "partial INSERT column list (total omitted)")
probe('insert', "INSERT INTO sink3 (cnt, region, total) SELECT b, s, big FROM t", "INSERT column list in another order")
# expressions
for e in ["i = '5'", "s = 5", "ts > '2024-01-05 00:00:00'", "dt = '2024-01-05'", "i + '1'", "CONCAT(s, i)", "s || i",
          "i IN ('1', '2')", "s IN (1, 2)", "COALESCE(i, b)", "COALESCE(i, m)", "COALESCE(i, d)", "COALESCE(s, i)",
          "CASE WHEN flag THEN i ELSE d END", "CASE WHEN flag THEN m ELSE d END", "CASE WHEN flag THEN 'a' ELSE 'bcd' END",
          "CHAR_LENGTH(i)", "ROUND(i, 1)", "SUBSTRING(i, 1, 2)", "SUBSTRING(s FROM 2)", "NOT i", "i AND flag",
          "flag = 1", "'a' < 1", "1 / 0", "i / 0", "3000000000", "2147483647 + 1", "CAST(s AS INT)", "TRY_CAST(i AS DATE)",
          "CAST(i AS TIMESTAMP(3))", "CAST(ts AS BIGINT)", "CAST(dt AS INT)", "CAST(flag AS INT)", "CAST(i AS BOOLEAN)",
          "CAST(s AS BOOLEAN)", "CAST(d AS BOOLEAN)", "CAST(m AS BOOLEAN)", "m / 0", "d / 0", "i % 0",
          "1.5", "1.5e0", "CAST(1.5 AS FLOAT)", "0.1 + 0.2", "1 / 3", "1.0 / 3", "10 / 4.0", "i * 1.0",
          "m * m", "big * big", "big / 3", "big + m", "m / m", "AVG(i)", "AVG(m)", "AVG(d)", "SUM(big)",
          "SUM(flag)", "AVG(s)", "MIN(flag)", "MAX(s)", "COUNT(DISTINCT i, s)", "COUNT(*) FILTER (WHERE i > 0)",
          "NULL", "CAST(NULL AS INT)", "NULLIF(i, s)", "ABS(s)", "ts - ts", "dt - dt", "ts + 1", "dt + 1",
          "TIMESTAMPDIFF(HOUR, ts, ts6)", "DATE_FORMAT(dt, 'yyyy')", "DATE_FORMAT(s, 'yyyy')", "EXTRACT(HOUR FROM dt)",
          "FLOOR(dt TO HOUR)", "CURRENT_TIMESTAMP", "CURRENT_DATE", "LOCALTIMESTAMP", "NOW()", "i BETWEEN 'a' AND 'b'",
          "s BETWEEN 1 AND 2", "s LIKE 1", "UPPER(1)", "UPPER(NULL)", "LENGTH(s)", "i IS TRUE", "s IS TRUE"]:
    probe('query', f"SELECT {e} AS x FROM t", f"SELECT {e}")
probe('query', "SELECT i FROM t WHERE i", "WHERE <INT>")
probe('query', "SELECT i FROM t WHERE NULL", "WHERE NULL")
probe('query', "SELECT i FROM t WHERE s", "WHERE <STRING>")
probe('query', "SELECT t.i FROM t JOIN u ON t.s = u.id", "JOIN ON STRING = INT")
probe('query', "SELECT t.i FROM t JOIN u ON t.i = u.id + 0.5", "JOIN ON INT = DECIMAL")
probe('query', "SELECT t.i FROM t JOIN u ON t.b = u.id", "JOIN ON BIGINT = INT")
probe('query', "SELECT i FROM t UNION ALL SELECT s FROM t", "UNION ALL INT with STRING")
probe('query', "SELECT i FROM t UNION ALL SELECT b FROM t", "UNION ALL INT with BIGINT")
probe('query', "SELECT m FROM t UNION ALL SELECT d FROM t", "UNION ALL DECIMAL with DOUBLE")
probe('query', "SELECT s FROM t UNION ALL SELECT 'x' FROM t", "UNION ALL STRING with CHAR(1) literal")
probe('query', "SELECT 'a' AS x FROM t UNION ALL SELECT 'bcd' FROM t", "UNION ALL CHAR(1) with CHAR(3)")
probe('query', "SELECT s, COUNT(*) FROM t GROUP BY 1", "GROUP BY ordinal 1")
probe('query', "SELECT s, COUNT(*) AS c FROM t GROUP BY s ORDER BY 2 DESC", "ORDER BY ordinal 2")
probe('query', "SELECT COUNT(*) FROM t HAVING COUNT(*) > 1", "HAVING without GROUP BY")
probe('query', "SELECT i * 2 AS dbl FROM t WHERE dbl > 1", "WHERE refers to SELECT alias")
probe('query', "SELECT s AS k, COUNT(*) FROM t GROUP BY k", "GROUP BY SELECT alias")
probe('query', "SELECT s, COUNT(*) AS c FROM t GROUP BY s HAVING c > 1", "HAVING refers to SELECT alias")
probe('query', "SELECT s, COUNT(*) AS c FROM t GROUP BY s ORDER BY c", "ORDER BY SELECT alias")
probe('query', "SELECT I FROM t", "upper-case column name I (declared i)")
probe('query', "SELECT i FROM T", "upper-case table name T (declared t)")
probe('query', "SELECT `i` FROM `t`", "back-quoted identifiers")
probe('query', "SELECT \"i\" FROM t", "double-quoted identifier")
probe('query', "SELECT 'it''s' AS x FROM t", "doubled quote in string literal")
probe('query', "SELECT i FROM t LIMIT 5", "LIMIT without ORDER BY")
probe('query', "SELECT i FROM t ORDER BY i", "ORDER BY without LIMIT")
probe('query', "SELECT * FROM (SELECT i FROM t ORDER BY i) AS x", "ORDER BY in subquery")
probe('query', "SELECT i FROM t FETCH FIRST 3 ROWS ONLY", "FETCH FIRST")
probe('query', "SELECT i, i FROM t", "duplicate output column names")
probe('query', "SELECT * FROM t, u", "comma join (cross join)")
probe('query', "SELECT * FROM t JOIN u ON t.i > u.id", "non-equi inner join")
probe('query', "SELECT * FROM t FULL JOIN u ON t.i > u.id", "non-equi full join")
probe('query', "SELECT * FROM t LEFT JOIN u ON TRUE", "LEFT JOIN ON TRUE")
probe('query', "SELECT * FROM t JOIN u USING (i)", "JOIN USING unknown column")
probe('query', "SELECT i FROM t WHERE i IN (SELECT id FROM u)", "IN subquery")
probe('query', "SELECT i FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.i)", "EXISTS subquery")
probe('query', "SELECT (SELECT MAX(id) FROM u) AS x FROM t", "scalar subquery")
probe('query', "SELECT s FROM t UNION SELECT name FROM u", "UNION (distinct)")
probe('query', "SELECT s FROM t INTERSECT SELECT name FROM u", "INTERSECT")
probe('query', "SELECT s FROM t EXCEPT SELECT name FROM u", "EXCEPT")
probe('query', "WITH x AS (SELECT i FROM t) SELECT * FROM x", "WITH (CTE)")
probe('query', "SELECT i, ROW_NUMBER() OVER (PARTITION BY s ORDER BY i) AS rn FROM t", "ROW_NUMBER OVER")
probe('query', "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y)", "VALUES in FROM")
probe('query', "SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS v(x, y)", "VALUES with bare NULL in 2nd row")
probe('query', "SELECT * FROM (VALUES (1), (2.5)) AS v(x)", "VALUES INT and DECIMAL rows")
probe('query', "SELECT * FROM (VALUES ('a'), ('bcd')) AS v(x)", "VALUES CHAR(1) and CHAR(3) rows")
probe('query', "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(dt), INTERVAL '1' DAY)) GROUP BY window_start",
      "TUMBLE on a DATE column")
probe('query', "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts6), INTERVAL '1' HOUR)) GROUP BY window_start",
      "TUMBLE on a TIMESTAMP(6) column")
probe('query', "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start",
      "TUMBLE grouped by window_start only")
probe('query', "SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR))",
      "TUMBLE without grouping by window columns")
probe('query', "SELECT window_start, s, COUNT(*) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '7' MINUTE, INTERVAL '1' HOUR)) GROUP BY window_start, s",
      "HOP size not a multiple of slide")
probe('query', "SELECT window_start, COUNT(*) FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '7' MINUTE, INTERVAL '1' HOUR)) GROUP BY window_start",
      "CUMULATE max size not a multiple of step")
# DDL
for col in ['value', 'year', '`date`', 'date', 'user', 'count', 'time', 'name', 'status', 'type', 'comment',
            'position', 'result', 'language', 'hour', 'day', 'month', 'data', 'key', 'text', 'level', 'rank', 'row',
            'at', 'dec', 'end', 'start', 'first', 'last', 'size', 'zone', 'current', 'system', 'source', 'sum', 'min']:
    probe('ddl', f"CREATE TEMPORARY TABLE kw_{re.sub('[^a-z]', '', col)} ({col} INT) WITH ('connector' = 'blackhole')",
          f"column named {col}")
probe('ddl', "CREATE TABLE o1 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'foo' = 'bar')",
      "unknown option 'foo' on filesystem (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o1", "  ... and reading it")
probe('ddl', "CREATE TABLE o2 (x INT) WITH ('connector' = 'print', 'path' = '/tmp/x')", "print with 'path' (DDL only)")
probe('insert', "INSERT INTO o2 SELECT i FROM t", "  ... and writing it")
probe('ddl', "CREATE TABLE o3 (x INT) WITH ('connector' = 'datagen', 'fields.y.kind' = 'sequence', 'fields.y.start' = '1', 'fields.y.end' = '5')",
      "datagen option for unknown field y (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o3", "  ... and reading it")
probe('ddl', "CREATE TABLE o4 (x INT) WITH ('connector' = 'datagen', 'fields.x.kind' = 'sequence')",
      "datagen sequence without start/end (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o4", "  ... and reading it")
probe('ddl', "CREATE TABLE o5 (x INT) WITH ('connector' = 'datagen', 'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '10')",
      "datagen sequence without number-of-rows (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o5", "  ... and reading it")
probe('ddl', "CREATE TABLE o6 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'parquett')",
      "unknown format 'parquett' (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o6", "  ... and reading it")
probe('ddl', "CREATE TABLE o7 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json', 'csv.field-delimiter' = ';')",
      "csv option on a json table (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o7", "  ... and reading it")
probe('ddl', "CREATE TABLE o8 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.field-delimiter' = ';;')",
      "two-char csv.field-delimiter (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o8", "  ... and reading it")
probe('ddl', "CREATE TABLE o9 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.ignore-parse-errors' = 'yes')",
      "boolean option 'yes' (DDL only)")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o9", "  ... and reading it")
probe('ddl', "CREATE TABLE o10 (x INT, PRIMARY KEY (x) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv')",
      "PRIMARY KEY NOT ENFORCED on filesystem")
probe('ddl', "CREATE TABLE o11 (x INT, PRIMARY KEY (x)) WITH ('connector' = 'blackhole')", "PRIMARY KEY without NOT ENFORCED")
probe('ddl', "CREATE TABLE o12 (x INT NOT NULL, y STRING NULL) WITH ('connector' = 'blackhole')", "NOT NULL / NULL column constraints")
probe('ddl', "CREATE TABLE o13 (x INT) WITH ('connector' = 'blackhole')", "CREATE TABLE ... (blackhole, fine)")
probe('ddl', "CREATE TABLE IF NOT EXISTS o13 (x INT) WITH ('connector' = 'blackhole')", "CREATE TABLE IF NOT EXISTS on existing")
probe('ddl', "CREATE TEMPORARY TABLE o13 (x INT) WITH ('connector' = 'blackhole')", "CREATE TEMPORARY TABLE shadowing permanent one")
probe('ddl', "CREATE TEMPORARY VIEW o13 AS SELECT 1 AS x", "CREATE TEMPORARY VIEW with a table's name")
probe('ddl', "CREATE VIEW v1 AS SELECT i FROM t", "CREATE VIEW (non temporary)")
probe('ddl', "CREATE TEMPORARY VIEW v2 (a) AS SELECT i FROM t", "CREATE TEMPORARY VIEW with column list")
probe('ddl', "CREATE TEMPORARY VIEW v3 AS SELECT i, i FROM t", "view with duplicate column names")
probe('ddl', "CREATE TABLE o14 (x VARCHAR) WITH ('connector' = 'blackhole')", "VARCHAR without length")
probe('query', "SELECT * FROM o14", "  ... its type")
probe('ddl', "CREATE TABLE o15 (x CHAR, y DECIMAL, z TIMESTAMP, w TIME, v FLOAT, u DOUBLE PRECISION, k INTEGER, l TIMESTAMP_LTZ) WITH ('connector' = 'blackhole')",
      "type defaults: CHAR, DECIMAL, TIMESTAMP, TIME, TIMESTAMP_LTZ without params")
probe('query', "SELECT * FROM o15", "  ... their types")
probe('ddl', "CREATE TABLE o16 (x TIMESTAMP(10)) WITH ('connector' = 'blackhole')", "TIMESTAMP(10)")
probe('ddl', "CREATE TABLE o17 (x DECIMAL(0, 0)) WITH ('connector' = 'blackhole')", "DECIMAL(0, 0)")
probe('ddl', "CREATE TABLE o18 (x DECIMAL(5, 6)) WITH ('connector' = 'blackhole')", "DECIMAL(5, 6)")
probe('ddl', "CREATE TABLE o19 (x DECIMAL(40, 2)) WITH ('connector' = 'blackhole')", "DECIMAL(40, 2)")
probe('query', "SELECT * FROM o19", "  ... its type")
probe('ddl', "CREATE TABLE o20 (x INT, y AS x + 1, WATERMARK FOR x AS x) WITH ('connector' = 'blackhole')", "WATERMARK on an INT column")
probe('ddl', "CREATE TABLE o21 (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'blackhole')", "WATERMARK ok")
probe('ddl', "CREATE TABLE o22 (x INT) WITH ('connector' = 'blackhole') ", "blackhole, no options")
probe('ddl', "CREATE TABLE o23 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'connector' = 'print')", "duplicate option key")
probe('ddl', "CREATE TABLE o24 (x INT)", "CREATE TABLE without WITH")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o24", "  ... and reading it")
probe('ddl', "CREATE TABLE o25 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.null-literal' = '')", "csv.null-literal empty")
probe('ddl', "CREATE TABLE o26 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.field-delimiter' = '\\t')", "csv.field-delimiter '\\t'")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o26", "  ... and reading it")
probe('ddl', "CREATE TABLE o27 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.field-delimiter' = U&'\\0009')", "csv.field-delimiter U&'\\0009'")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o27", "  ... and reading it")
probe('ddl', "CREATE TABLE o28 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.disable-quote-character' = 'true')", "csv.disable-quote-character")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o28", "  ... and reading it")
probe('ddl', "CREATE TABLE o29 (x INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'csv', 'csv.allow-comments' = 'true')", "csv.allow-comments")
probe('insert', "INSERT INTO sink_1 SELECT x FROM o29", "  ... and reading it")

for tname in ['o14', 'o15', 'o19', 'o16']:
    try:
        with t_env.execute_sql(f"DESCRIBE {tname}").collect() as rows:
            cols = [f"{r[0]}: {r[1]}" for r in rows]
        print(f"| `DESCRIBE {tname}` | " + ', '.join(cols) + " |")
    except Exception as e:  # noqa
        print(f"| `DESCRIBE {tname}` | REJECTED: {first_msg(e)} |")
