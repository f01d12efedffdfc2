#!/usr/bin/env python3
"""Generates the differential function probe: data/args.csv (argument values) and
job.sql (every built-in scalar function stmtc supports, applied to those values,
each result cast to STRING).

    python3 gen.py            # writes job.sql and data/args.csv next to this file

Then run it once through Flink 2.3 (the golden table is expected/*.csv):

    FLINK_PY=/opt/flinkvenv/bin/python RUN_JOB=/work/shared/flink/run_job.py \
        python3 docs/flink-observed/run_fixture.py compiler/src/codegen/expr/testdata/function_probe

`codegen::expr::tests::flink_results` evaluates the same calls with stmtc's generated
code and compares every value; KNOWN_DIFFERENCES.tsv lists, exactly, the values that
still differ (the test fails when a listed value starts to match or an unlisted one
differs).
"""
import csv
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))

COLUMNS = [
    ('id', 'INT'), ('s', 'STRING'), ('t', 'STRING'), ('n', 'INT'), ('d', 'DOUBLE'),
    ('f', 'FLOAT'), ('m', 'DECIMAL(10, 2)'), ('m4', 'DECIMAL(12, 4)'), ('big', 'BIGINT'),
    ('ds', 'STRING'), ('ps', 'STRING'), ('pat', 'STRING'), ('dt', 'DATE'), ('ts', 'TIMESTAMP(3)'),
]
N = None  # NULL
# s, t, n, d, f, m, m4, big, ds, ps, pat, dt, ts
ROWS = [
    ('Hello World', 'l', 3, '1.15', '1.15', '10.55', '1.2345', 1, '2024-01-05', '2024-01-05', 'yyyy-MM-dd', '2024-01-05', '2024-01-05 08:01:29.363'),
    ('', '', 0, '-0.0', '-0.0', '0.00', '0.0000', 0, '', '', '', '1970-01-01', '1970-01-01 00:00:00'),
    (N, N, N, N, N, N, N, N, N, N, N, N, N),
    ('straße ǅ İı ﬁ', 'ß', -1, '2.675', '2.675', '-2.50', '-2.5550', -1, '2024-02-30', '30/02/2024', 'dd/MM/yyyy', '2024-02-29', '2024-02-29 23:59:59.999'),
    ('x😀y😀z', '😀', 2, '1.005', '1.005', '99.99', '0.0050', 9223372036854775807, '2024-01-05 24:00:00', '5/1/2024', 'd/M/yyyy', '0001-01-01', '0001-01-01 00:00:00'),
    ('ΣΑΣ όδός ΌΔΟΣ', 'Σ', 5, '-1.15', '-1.15', '-0.01', '12345678.9999', -9223372036854775808, '2024-13-01', '05 Jan 2024', 'dd MMM yyyy', '9999-12-31', '9999-12-31 23:59:59.999'),
    ('hELLO wORLD-foo_bar 123abc', ' ', 100, '0.285', '0.285', '1.01', '-0.0001', 2147483648, '2024-1-5', 'Fri Jan 05 2024', 'EEE MMM dd yyyy', '2000-02-29', '2000-02-29 12:00:00.5'),
    ('éCOLE ñandú ÆØÅ', 'é', -3, '1.0E308', '3.4E38', '12345678.99', '99999999.9999', -2147483649, ' 2024-01-05 ', 'January 5, 2024', 'MMMM d, yyyy', '1969-12-31', '1969-12-31 23:59:59.999'),
    ('  padded  ', 'pad', 7, '4.35', '4.35', '4.35', '4.3500', 12, '2024-01-05T10:00:00', '2024-01-05 24:00:00', 'yyyy-MM-dd HH:mm:ss', '2024-03-10', '2024-03-10 00:00:00'),
    ('a,b,,c', ',', 1, '123456789.125', '123456.125', '-99999999.99', '-1.0005', 12, '20240105', '2024/01/05 3:4:5 PM', 'yyyy/MM/dd h:m:s a', '2023-12-31', '2023-12-31 23:59:59.999'),
    ('ǆemo Ǳx ŉ', 'ǆ', 4, '4.9E-324', '1.4E-45', '0.01', '0.0001', 7, '2024-01-05 10:00', '20240105103000', 'yyyyMMddHHmmss', '2024-12-30', '2024-12-30 12:30:45.678'),
    ('İstanbul ıi', 'i', 2, '0.30000000000000004', '0.3', '0.10', '0.1000', 3, '2024-01-05 10:00:00.123456789', '24-01-05', 'yy-MM-dd', '2021-01-03', '2021-01-03 01:02:03.004'),
    ('123', '2', 1, '-2.5', '-2.5', '-2.55', '2.5000', 42, '0001-01-01', '2024-02-29', 'yyyy-MM-dd', '2020-02-29', '2020-02-29 00:00:00.001'),
    ('😀', 'x', 1, '2.5', '2.5', '2.55', '-2.5000', -42, '9999-12-31 23:59:59.999', '2023-02-29', 'yyyy-MM-dd', '2024-07-14', '2024-07-14 18:00:00'),
    ('Ａｂｃ１２３', '１', 2, '0.5', '0.5', '0.50', '0.5000', 100, '2024-02-29 10:11:12', '2024-04-31 10:00:00', 'yyyy-MM-dd HH:mm:ss', '2024-01-01', '2024-01-01 00:00:00'),
    ('aaa', 'aa', 2, '-0.5', '-0.5', '-0.50', '-0.5000', -100, '10:11:12', '12:60:00', 'HH:mm:ss', '2023-01-01', '2023-01-01 11:59:59.999'),
    ('tab\there', '\t', 3, '1.0E-5', '1.0E-5', '0.05', '0.0500', 5, '2024-01-05 23:59:60', '2024-01-05 10:00:00.123', 'yyyy-MM-dd HH:mm:ss.SSS', '2024-06-30', '2024-06-30 06:30:00'),
    ('x', 'x', 1, '9.995', '9.995', '9.99', '9.9950', 1000, '24:00:00', '2024-01-05T10:00:00', "yyyy-MM-dd'T'HH:mm:ss", '2024-02-01', '2024-02-01 00:00:00'),
    ('MiXeD 9lives o\'neil', "'", 6, '-9.995', '-9.995', '-9.99', '-9.9950', 999, '25:00:00', '2024-1-5', 'yyyy-MM-dd', '2024-08-31', '2024-08-31 23:00:00'),
    ('ﬀ ǈ Ǉ ǉ', 'ǈ', 2, '100.0', '100.0', '100.00', '100.0000', 10, '1:2:3', '2024-01-05 1:2:3', 'yyyy-MM-dd H:m:s', '2024-11-03', '2024-11-03 01:30:00'),
    ('a😀b', 'b', 3, '1.5E10', '1.5E10', '1.50', '1.5000', 15, '2024-00-10', '2024-01-05 10', 'yyyy-MM-dd HH', '2024-05-05', '2024-05-05 05:05:05.005'),
    ('ABC def', 'C d', -2, '-1.0E-10', '-1.0E-10', '-1.00', '-1.0000', -15, '2024-01-32', 'Jan 5 2024 10:00 PM', 'MMM d yyyy hh:mm a', '2024-09-01', '2024-09-01 09:09:09.090'),
    ('über', 'Ü', 1, '2.345', '2.345', '2.35', '2.3450', 2, '+2024-01-05', '2024-01-05 10:00:00', 'yyyy-MM-dd', '2024-10-10', '2024-10-10 10:10:10.100'),
    ('one two  three', '  ', 2, '7.0', '7.0', '7.00', '7.0000', 3, '2024-01-05 10:00:00.5', 'Friday, January 5, 2024', 'EEEE, MMMM d, yyyy', '2024-04-30', '2024-04-30 04:30:00'),
    ('abc', 'abcd', 4, '0.125', '0.125', '0.13', '0.1250', 4, '2024-02-29 24:00:00', '32/01/2024', 'dd/MM/yyyy', '2024-03-31', '2024-03-31 03:31:00'),
    ('ǅungla', 'ǅ', 2, '-0.125', '-0.125', '-0.13', '-0.1250', -4, '12:34:56.789', '2024-366', 'yyyy-DDD', '2025-01-01', '2025-01-01 00:00:00'),
    ('i̇x', 'i', 1, '3.14159', '3.14159', '3.14', '3.1416', 31, '2024-01-05 10:00:00 ', '2024-01-05', 'yyyy-MM-dd HH:mm:ss', '2024-12-31', '2024-12-31 23:59:59.999'),
    ('12.5', '.', 2, '1234.5678', '1234.5678', '1234.57', '1234.5678', 1234, '2024-1-5 1:2:3', '2024-01-05 10:00:00 PM', 'yyyy-MM-dd hh:mm:ss a', '2024-02-28', '2024-02-28 12:00:00'),
    ('日本語', '本', 2, '0.1', '0.1', '0.10', '0.1000', 1, '2024-02-29 00:00:00', '2024-02-29 00:00:00', 'yyyy-MM-dd HH:mm:ss', '2024-02-29', '2024-02-29 00:00:00'),
    ('hello', 'L', 5, '5.5', '5.5', '5.50', '5.5000', 5, '00:00:00', '1:02', 'H:mm', '2024-01-31', '2024-01-31 23:59:59'),
]

STRINGS = [
    "UPPER(s)", "LOWER(s)", "INITCAP(s)", "CHAR_LENGTH(s)", "CHARACTER_LENGTH(t)", "REVERSE(s)",
    "SUBSTRING(s, n)", "SUBSTRING(s, 2, 3)", "SUBSTRING(s, n, 2)", "SUBSTR(s, -2)", "SUBSTRING(s FROM -3 FOR 2)",
    "LEFT(s, n)", "RIGHT(s, n)", "LEFT(s, 2)", "RIGHT(s, 2)",
    "POSITION(t IN s)", "LOCATE(t, s)", "LOCATE(t, s, 3)", "INSTR(s, t)",
    "LPAD(s, 8, t)", "RPAD(s, 8, t)", "LPAD(s, n, '*')", "RPAD(s, n, '😀')", "LPAD(t, 5, s)",
    "REPEAT(t, n)", "REPLACE(s, t, '#')", "REPLACE(s, 'l', t)",
    "TRIM(s)", "LTRIM(s)", "RTRIM(s)", "BTRIM(s, t)", "TRIM(BOTH t FROM s)", "TRIM(LEADING t FROM s)", "LTRIM(s, t)", "RTRIM(s, t)",
    "CONCAT(s, t)", "CONCAT_WS(t, s, s)", "CONCAT_WS('-', s, t)", "s || t",
    "SPLIT_INDEX(s, t, 1)", "SPLIT_INDEX(s, ' ', 0)", "SPLIT_INDEX(s, t, n)",
    "ASCII(s)", "CHR(n + 60)", "CHR(ASCII(t))", "TO_BASE64(s)", "FROM_BASE64(TO_BASE64(s))",
    "IS_DIGIT(s)", "IS_ALPHA(s)", "IS_DECIMAL(s)",
    "REGEXP(s, '^[A-Z]')", "REGEXP_REPLACE(s, '[aeiou]', '_')", "REGEXP_EXTRACT(s, '([a-z]+)', 1)",
    "REGEXP_REPLACE(s, t, '<>')", "REGEXP(s, t)",
    "MD5(s)", "SHA256(s)",
    "CAST(s AS VARCHAR(3))", "CAST(s AS CHAR(4)) || '|'", "CHAR_LENGTH(CAST(s AS CHAR(4)))", "CAST(s AS VARCHAR) || '|'",
    "s = t", "s < t", "s LIKE CONCAT('%', t, '%')", "GREATEST(s, t)", "LEAST(s, t)", "COALESCE(s, t)", "NULLIF(s, t)",
    "UPPER(t)", "LOWER(t)", "INITCAP(t)", "REVERSE(t)", "CHAR_LENGTH(s || t)",
]

NUMBERS = [
    "ROUND(d, 2)", "ROUND(d, 1)", "ROUND(d, 0)", "ROUND(d)", "ROUND(d, -1)", "ROUND(d, 3)",
    "TRUNCATE(d, 2)", "TRUNCATE(d, 1)", "TRUNCATE(d)", "TRUNCATE(d, -1)", "TRUNCATE(d, 3)",
    "FLOOR(d)", "CEIL(d)", "ROUND(d, n)", "TRUNCATE(d, n)",
    "ROUND(f, 2)", "ROUND(f, 1)", "ROUND(f)", "TRUNCATE(f, 2)", "TRUNCATE(f, 1)", "TRUNCATE(f)", "FLOOR(f)", "CEIL(f)",
    "ROUND(m, 1)", "ROUND(m, 0)", "ROUND(m, -1)", "ROUND(m)", "TRUNCATE(m, 1)", "TRUNCATE(m)", "TRUNCATE(m, -1)", "FLOOR(m)", "CEIL(m)",
    "ROUND(m4, 2)", "ROUND(m4, 3)", "TRUNCATE(m4, 2)", "TRUNCATE(m4, 3)", "FLOOR(m4)", "CEIL(m4)",
    "ROUND(n, -1)", "TRUNCATE(n, -1)", "ROUND(big, -2)", "TRUNCATE(big, -2)",
    "ABS(d)", "ABS(m)", "ABS(big)", "ABS(n)", "SIGN(d)", "SIGN(m)", "SIGN(n)", "-d", "-big",
    "MOD(n, 3)", "MOD(big, 7)", "MOD(m, 3)", "n % 4",
    "POWER(d, 2)", "SQRT(d)", "LN(d)", "LOG10(d)", "LOG2(d)", "LOG(2, d)", "LOG(d)", "EXP(d)",
    "SIN(d)", "COS(d)", "TAN(d)", "ATAN(d)", "ATAN2(d, 1)", "DEGREES(d)", "RADIANS(d)",
    "d * 3", "d + 0.1", "d / 3", "d * m", "m * 3", "m / 3", "m + m4", "big + 1", "big * 2", "n * 1000000000",
    "CAST(d AS INT)", "CAST(d AS BIGINT)", "CAST(d AS FLOAT)", "TRY_CAST(d AS DECIMAL(10, 2))", "CAST(f AS DOUBLE)",
    "CAST(m AS DOUBLE)", "CAST(m AS INT)", "CAST(big AS INT)", "CAST(big AS DOUBLE)", "CAST(m4 AS DECIMAL(5, 1))",
    "CAST(d AS STRING)", "CAST(f AS STRING)", "CAST(n AS BOOLEAN)",
    "TRY_CAST(s AS INT)", "TRY_CAST(s AS DOUBLE)", "TRY_CAST(s AS DECIMAL(5, 2))", "TRY_CAST(t AS BIGINT)",
]

TIMES = [
    "TRY_CAST(ds AS DATE)", "TRY_CAST(ds AS TIME)", "TRY_CAST(ds AS TIMESTAMP(3))", "TRY_CAST(ds AS TIMESTAMP(0))",
    "TRY_CAST(ps AS DATE)", "TRY_CAST(ps AS TIMESTAMP(3))", "TRY_CAST(ps AS TIME)",
    "TO_DATE(ds)", "TO_TIMESTAMP(ds)", "TO_TIMESTAMP(ps)",
    "TO_DATE(ps, pat)", "TO_TIMESTAMP(ps, pat)", "UNIX_TIMESTAMP(ps, pat)", "UNIX_TIMESTAMP(ds)",
    "DATE_FORMAT(ts, pat)", "DATE_FORMAT(ds, 'yyyy/MM/dd HH:mm')",
    "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS')", "DATE_FORMAT(ts, 'EEE, d MMM yyyy h:mm a')", "DATE_FORMAT(ts, 'EEEE MMMM D w u yy')",
    "CAST(dt AS STRING)", "CAST(ts AS STRING)", "CAST(ts AS DATE)", "CAST(ts AS TIME)", "CAST(dt AS TIMESTAMP(3))",
    "YEAR(dt)", "QUARTER(dt)", "MONTH(dt)", "WEEK(dt)", "DAYOFYEAR(dt)", "DAYOFMONTH(dt)", "DAYOFWEEK(dt)",
    "HOUR(ts)", "MINUTE(ts)", "SECOND(ts)", "EXTRACT(MILLISECOND FROM ts)", "EXTRACT(WEEK FROM ts)", "EXTRACT(DOW FROM dt)",
    "FLOOR(ts TO DAY)", "FLOOR(ts TO WEEK)", "FLOOR(ts TO MONTH)", "FLOOR(ts TO QUARTER)", "FLOOR(ts TO HOUR)", "FLOOR(dt TO MONTH)",
    "TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-01-01 00:00:00')", "TIMESTAMPDIFF(MONTH, dt, DATE '2024-02-29')",
    "FROM_UNIXTIME(n * 86400)", "FROM_UNIXTIME(n, 'yyyy-MM-dd HH:mm:ss')",
]

# Calls that fail the job on some row, in Flink and in stmtc: a sink of their
# own, so the failing rows of the other sinks are still compared.
FAILING = ["TO_DATE(ps)"]

SINKS = [('fp_str', STRINGS), ('fp_num', NUMBERS), ('fp_time', TIMES), ('fp_fail', FAILING)]
MAX_COLUMNS = 40


def field(v):
    return 'NULL' if v is None else str(v)


def main():
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator='\n')
    for i, row in enumerate(ROWS, start=1):
        w.writerow([i] + [field(v) for v in row])
    with open(os.path.join(HERE, 'data', 'args.csv'), 'w', encoding='utf-8') as f:
        f.write(buf.getvalue())

    out = ["SET 'execution.runtime-mode' = 'batch';",
           "SET 'table.local-time-zone' = 'UTC';",
           "-- The mini-cluster compiles large projections slowly on a busy machine.",
           "SET 'heartbeat.timeout' = '600000';",
           "-- @generated by gen.py: built-in scalar functions over data/args.csv, each",
           "-- result cast to STRING (column c<k> of sink <name> is the k-th call below).",
           "CREATE TABLE a (" + ", ".join(f"{c} {t}" for c, t in COLUMNS) + ") WITH (",
           "  'connector' = 'filesystem', 'path' = 'data/args.csv', 'format' = 'csv', 'csv.null-literal' = 'NULL');",
           ""]
    inserts = []
    for name, exprs in SINKS:
        for part in range(0, len(exprs), MAX_COLUMNS):
            chunk = exprs[part:part + MAX_COLUMNS]
            sink = name if part == 0 else f"{name}{part // MAX_COLUMNS + 1}"
            cols = ", ".join(f"c{k} STRING" for k in range(len(chunk)))
            out.append(f"CREATE TABLE {sink} (id INT, {cols}) WITH (")
            out.append(f"  'connector' = 'filesystem', 'path' = 'out/{sink}', 'format' = 'csv');")
            body = ",\n  ".join(f"CAST({e} AS STRING)" for e in chunk)
            inserts.append(f"INSERT INTO {sink} SELECT id,\n  {body}\nFROM a;")
    out.append("")
    out.append("EXECUTE STATEMENT SET BEGIN")
    out.extend(inserts)
    out.append("END;")
    with open(os.path.join(HERE, 'job.sql'), 'w', encoding='utf-8') as f:
        f.write("\n".join(out) + "\n")


if __name__ == '__main__':
    main()
