"""Correlated references outside a subquery's WHERE (issue 12): Flink 2.3 batch vs sqlite3.

Run: /work/flink-venv/bin/python probe_correlated_select.py [C1 C2 ...]; results in RESULTS.md."""
import sqlite3, sys
import os
HERE = os.path.dirname(os.path.abspath(__file__))
from pyflink.table import EnvironmentSettings, TableEnvironment
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
db = sqlite3.connect(':memory:')
for name, cols in [('t', 'k INT, v INT'), ('u', 'k INT, w INT')]:
    env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{HERE}/{name}.csv', 'format' = 'csv', 'csv.null-literal' = '')")
    db.execute(f"CREATE TABLE {name} ({cols})")
    for line in open(f'{HERE}/{name}.csv'):
        vals = [None if v == '' else int(v) for v in line.strip().split(',')]
        db.execute(f"INSERT INTO {name} VALUES (?, ?)", vals)
qs = {
 'C1 scalar MAX, outer column in the aggregate argument': "SELECT k, (SELECT MAX(u.w + t.v) FROM u WHERE u.k = t.k) FROM t",
 'C2 scalar no-agg, outer column in the SELECT list': "SELECT k, (SELECT u.w + t.v FROM u WHERE u.k = t.k AND u.w > 10) FROM t",
 'C3 scalar no-agg, outer column in the SELECT list, two rows for a key': "SELECT k, (SELECT u.w + t.v FROM u WHERE u.k = t.k) FROM t",
 'C4 scalar MAX, outer column outside the aggregate': "SELECT k, (SELECT MAX(u.w) + t.v FROM u WHERE u.k = t.k) FROM t",
 'C5 scalar COUNT, outer column in the argument': "SELECT k, (SELECT COUNT(u.w + t.v) FROM u WHERE u.k = t.k) FROM t",
 'C6 scalar SUM, outer column in the argument, no WHERE correlation': "SELECT k, (SELECT SUM(u.w * t.v) FROM u WHERE u.w > 10) FROM t",
 'C7 EXISTS GROUP BY HAVING with the outer column': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w) > t.v)",
 'C8 EXISTS HAVING, outer column inside the aggregate': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
 'C9 IN, outer column in the SELECT list, no WHERE': "SELECT k, v FROM t WHERE v IN (SELECT u.w + t.k FROM u)",
 'C10 IN, outer column in the SELECT list, with WHERE correlation': "SELECT k, v FROM t WHERE v + 5 IN (SELECT u.w + t.k - 1 FROM u WHERE u.k = t.k)",
 'C11 IN in SELECT, outer column in the SELECT list': "SELECT k, v IN (SELECT u.w + t.k FROM u) FROM t",
 'C12 NOT IN, outer column in the SELECT list': "SELECT k, v FROM t WHERE v NOT IN (SELECT u.w + t.k FROM u WHERE u.k = t.k)",
 'C13 scalar GROUP BY an outer column': "SELECT k, (SELECT MAX(u.w) FROM u WHERE u.k = t.k GROUP BY t.v) FROM t",
 'C14 scalar GROUP BY an expression with an outer column': "SELECT k, (SELECT MAX(u.w) FROM u WHERE u.k = t.k GROUP BY u.w + t.v) FROM t",
 'C15 scalar ORDER BY an outer column LIMIT 1': "SELECT k, (SELECT u.w FROM u WHERE u.k = t.k ORDER BY u.w + t.v DESC LIMIT 1) FROM t",
 'C16 EXISTS, outer column in the SELECT list only': "SELECT k, v FROM t WHERE EXISTS (SELECT t.v FROM u WHERE u.k = t.k)",
 'C17 scalar in WHERE, outer column in the aggregate argument': "SELECT k, v FROM t WHERE v < (SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k)",
 'C18 scalar CASE over outer column in aggregate': "SELECT k, (SELECT SUM(CASE WHEN u.w > t.v THEN 1 ELSE 0 END) FROM u WHERE u.k = t.k) FROM t",
 'C19 scalar MAX, outer column argument, non-equi WHERE': "SELECT k, (SELECT MAX(u.w + t.v) FROM u WHERE u.k < t.k) FROM t",
 'C20 scalar, the outer column alone in the SELECT list': "SELECT k, (SELECT t.v FROM u WHERE u.k = t.k AND u.w > 10) FROM t",
 'C21 scalar COUNT(*) + outer column': "SELECT k, (SELECT COUNT(*) + t.v FROM u WHERE u.k = t.k) FROM t",
 'C22 scalar AVG, outer column in argument (duplicate t rows)': "SELECT t.k, (SELECT AVG(u.w + t.v) FROM u WHERE u.k = t.k) FROM t, (VALUES (1), (2)) AS d(n)",
 'C23 HAVING with outer col, scalar': "SELECT k, (SELECT MAX(u.w) FROM u WHERE u.k = t.k GROUP BY u.k HAVING MIN(u.w) < t.v) FROM t",
 'C24 scalar AVG, outer column in the argument': "SELECT k, (SELECT AVG(u.w + t.v) FROM u WHERE u.k = t.k) FROM t",
 'C25 scalar MAX, outer column in the argument, the outer query a join': "SELECT t.k, (SELECT MAX(u.w + t.v) FROM u WHERE u.k = t.k) FROM t JOIN u AS u2 ON u2.k = t.k",
 'C26 scalar no-agg in WHERE, outer column in the SELECT list': "SELECT k, v FROM t WHERE v < (SELECT u.w + t.k FROM u WHERE u.k = t.k AND u.w > 10)",
 'C27 scalar MIN, two outer columns in the argument': "SELECT k, (SELECT MIN(u.w * t.k - t.v) FROM u WHERE u.k = t.k) FROM t",
 'C28 scalar SUM in a CASE of the SELECT list': "SELECT k, CASE WHEN k > 2 THEN (SELECT SUM(u.w + t.v) FROM u WHERE u.k = t.k) ELSE 0 END FROM t",
 'C29 scalar MAX in WHERE, key where Flink erred before': "SELECT k, v FROM t WHERE v > (SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k)",
 'C30 scalar COUNT, outer column in the argument, non-equi': "SELECT k, (SELECT COUNT(u.w + t.v) FROM u WHERE u.k <= t.k) FROM t",
 'C31 scalar MAX over GROUP BY of the outer query': "SELECT k, SUM(v), (SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k) FROM t GROUP BY k",
 'C32 scalar no-agg, outer column, uncorrelated WHERE': "SELECT k, (SELECT u.w + t.v FROM u WHERE u.w = 60) FROM t",
 'C34 scalar MAX, the key column in the argument': "SELECT k, (SELECT MAX(u.w + t.k) FROM u WHERE u.k = t.k) FROM t",
 'C35 scalar, two outer columns in two aggregate arguments': "SELECT k, (SELECT MAX(u.w + t.k) + MIN(u.w - t.v) FROM u WHERE u.k = t.k) FROM t",
 'C36 scalar no-agg, two outer columns': "SELECT k, (SELECT u.w * t.k - t.v FROM u WHERE u.k = t.k AND u.w > 10) FROM t",
 'C37 scalar MIN, one outer column twice': "SELECT k, (SELECT MIN(u.w * t.v - t.v) FROM u WHERE u.k = t.k) FROM t",
 'C38 scalar AVG without outer ref, outer FROM a cross join with VALUES': "SELECT t.k, (SELECT AVG(u.w) FROM u WHERE u.k = t.k) FROM t, (VALUES (1), (2)) AS d(n)",
 'C39 scalar MIN, two outer columns, non-key WHERE': "SELECT k, (SELECT MIN(u.w - t.v) FROM u WHERE u.w > t.k) FROM t",
 'C33 scalar SUM, outer STRING-free MOD of outer': "SELECT k, (SELECT SUM(MOD(u.w, 7) + t.v) FROM u WHERE u.k = t.k) FROM t",
 'C40 NOT EXISTS, outer column in the SELECT list only': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT t.v + u.w FROM u WHERE u.k = t.k)",
 'C41 IN, two outer columns in the SELECT list': "SELECT k, v FROM t WHERE v IN (SELECT u.w + t.k * 0 + t.v - t.v FROM u WHERE u.k = t.k)",
 'C42 = ANY, outer column in the SELECT list': "SELECT k, v FROM t WHERE v = ANY (SELECT u.w - 5 + t.k FROM u WHERE u.k = t.k)",
 'C43 > ANY, outer column in the SELECT list': "SELECT k, v FROM t WHERE v > SOME (SELECT u.w + t.k FROM u)",
 'C44 IN DISTINCT, outer column in the SELECT list': "SELECT k, v FROM t WHERE v IN (SELECT DISTINCT u.w + t.k FROM u WHERE u.w < 60)",
 'C45 IN, the outer column alone in the SELECT list': "SELECT k, v FROM t WHERE v IN (SELECT t.v FROM u WHERE u.k = t.k)",
 'C46 IN under OR in WHERE, outer column in the SELECT list': "SELECT k, v FROM t WHERE k = 4 OR v IN (SELECT u.w + t.k FROM u)",
 'C47 EXISTS, outer column in the SELECT list, no WHERE': "SELECT k, v FROM t WHERE EXISTS (SELECT t.v FROM u WHERE u.w > 50)",
 'C48 IN, outer column in a CASE of the SELECT list': "SELECT k, v FROM t WHERE v IN (SELECT CASE WHEN t.v IS NULL THEN 5 ELSE u.w + t.k END FROM u)",
 'C49 > ALL, outer column in the SELECT list': "SELECT k, v FROM t WHERE v > ALL (SELECT u.w + t.k FROM u WHERE u.k = t.k)",
 'C50 NOT EXISTS HAVING, outer column inside the aggregate': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
 'C51 EXISTS HAVING SUM and COUNT, uncorrelated WHERE': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.w > 3 GROUP BY u.k HAVING SUM(u.w * t.v) > 100 AND COUNT(*) > 1)",
 'C52 EXISTS HAVING MIN, non-equi WHERE': "SELECT k, v FROM t WHERE k > 1 AND EXISTS (SELECT u.k FROM u WHERE u.k < t.k GROUP BY u.k HAVING MIN(u.w + t.v) < 30)",
 'C53 EXISTS HAVING IS NULL over the outer column': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) IS NULL)",
 'C54 EXISTS HAVING COUNT of the outer column': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING COUNT(u.w - t.v) = 0)",
 'C55 EXISTS HAVING, the WHERE key column in the aggregate': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.k) > 3)",
 'C56 EXISTS HAVING, two outer columns': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.w > 0 GROUP BY u.k HAVING MAX(u.w - t.v + t.k) > 0)",
 'C57 IN with HAVING, outer column inside the aggregate': "SELECT k, v FROM t WHERE k IN (SELECT u.k FROM u GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
 'C58 EXISTS in a CASE of the SELECT list, outer column in its SELECT list': "SELECT k, CASE WHEN EXISTS (SELECT t.v FROM u WHERE u.k = t.k) THEN 1 ELSE 0 END FROM t",
 'C59 EXISTS under OR, outer column in its SELECT list': "SELECT k, v FROM t WHERE k = 4 OR EXISTS (SELECT t.v FROM u WHERE u.k = t.k)",
 'C60 EXISTS under NOT and OR, outer column in its SELECT list': "SELECT k, v FROM t WHERE NOT (k = 4 OR EXISTS (SELECT t.v + u.w FROM u WHERE u.k = t.k))",
 'C61 EXISTS as a SELECT value, uncorrelated WHERE': "SELECT k, CASE WHEN EXISTS (SELECT t.v FROM u WHERE u.w > 50) THEN 1 ELSE 0 END FROM t",
 'C62 IN under OR, correlated, outer column in the SELECT list': "SELECT k, v FROM t WHERE k = 4 OR v IN (SELECT u.w + t.k FROM u WHERE u.k = t.k)",
 'C63 > SOME under OR, outer column in the SELECT list': "SELECT k, v FROM t WHERE k = 4 OR v > SOME (SELECT u.w + t.k FROM u)",
 'C64 NOT IN under OR, outer column in the SELECT list': "SELECT k, v FROM t WHERE NOT (v IN (SELECT u.w + t.k FROM u)) OR k = 4",
 'C65 IN under OR under AND': "SELECT k, v FROM t WHERE (v IN (SELECT u.w + t.k FROM u) OR k = 4) AND v IS NOT NULL",
 'C66 IN under OR, non-equi WHERE': "SELECT k, v FROM t WHERE k = 4 OR v IN (SELECT u.w + t.k FROM u WHERE u.w < t.v)",
 'C67 IN under OR, item not NULL for a NULL outer column': "SELECT k, v FROM t WHERE k = 4 OR v IN (SELECT CASE WHEN t.k IS NULL THEN 5 ELSE u.w END FROM u)",
 'C68 = ANY under OR': "SELECT k, v FROM t WHERE k = 4 OR v = ANY (SELECT u.w + t.k FROM u)",
 'C69 IN in a CASE, outer column in the SELECT list': "SELECT k, CASE WHEN v IN (SELECT u.w + t.k FROM u) THEN 1 ELSE 0 END FROM t",
 'C70 EXISTS over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'C71 NOT EXISTS over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'C72 NOT IN over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE v NOT IN (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'C73 > ALL over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE v > ALL (SELECT MAX(u.w) - 20 FROM u WHERE u.k = t.k)",
 'C74 scalar HAVING without GROUP BY, correlated': "SELECT k, (SELECT MAX(u.w) FROM u WHERE u.k = t.k HAVING MAX(u.w) > 10) FROM t",
 'C75 EXISTS HAVING without GROUP BY, correlated': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
 'C76 IN in CASE whose operand is a scalar subquery': "SELECT k, CASE WHEN (SELECT MAX(w) FROM u WHERE w < 50) IN (SELECT u.w FROM u WHERE u.k = t.k) THEN 1 ELSE 0 END FROM t",
 'C77 EXISTS under OR over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE k = 4 OR EXISTS (SELECT COUNT(*) FROM u WHERE u.k = t.k)",
 'C78 IN in SELECT over a correlated aggregate without GROUP BY': "SELECT k, v IN (SELECT MAX(u.w) - 5 FROM u WHERE u.k = t.k) FROM t",
 'C79 IN over a correlated aggregate without GROUP BY': "SELECT k, v FROM t WHERE v IN (SELECT MAX(u.w) - 5 FROM u WHERE u.k = t.k)",
 'C80 WHERE IN whose operand is a scalar subquery': "SELECT k, v FROM t WHERE (SELECT MAX(w) FROM u WHERE w < 50) IN (SELECT u.w FROM u WHERE u.k = t.k)",
 'C81 NOT IN with a nullable operand, aggregating, non-equi': "SELECT k, v FROM t WHERE v NOT IN (SELECT MAX(u.w) FROM u WHERE u.k < t.k GROUP BY u.k)",
 'C82 scalar HAVING COUNT(*) = 0 without GROUP BY, correlated': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k HAVING COUNT(*) = 0) FROM t",
 'C83 EXISTS HAVING MAX IS NULL without GROUP BY, correlated': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k HAVING MAX(u.w) IS NULL)",
 'C84 NOT EXISTS HAVING without GROUP BY, correlated': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
 'C85 EXISTS over a global aggregate, non-equi correlation': "SELECT k, v FROM t WHERE EXISTS (SELECT COUNT(*) FROM u WHERE u.k < t.k)",
 'C86 IN under OR whose operand is a scalar subquery': "SELECT k, v FROM t WHERE k = 4 OR (SELECT MAX(w) FROM u WHERE w < 50) IN (SELECT u.w FROM u WHERE u.k = t.k)",
 'C87 > ANY in CASE whose operand is a scalar subquery': "SELECT k, CASE WHEN (SELECT MIN(w) FROM u) + 10 > ANY (SELECT u.w FROM u WHERE u.k = t.k) THEN 1 ELSE 0 END FROM t",
 'C88 scalar COUNT HAVING without GROUP BY, correlated': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k HAVING COUNT(*) > 1) FROM t",
 'C89 scalar SUM HAVING MIN without GROUP BY, non-equi': "SELECT k, (SELECT SUM(u.w) FROM u WHERE u.k < t.k HAVING MIN(u.w) < 10) FROM t",
 'C90 IN over HAVING without GROUP BY, correlated': "SELECT k, v FROM t WHERE v IN (SELECT MAX(u.w) - 5 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
 'C91 NOT EXISTS under OR over a global aggregate': "SELECT k, v FROM t WHERE k = 4 OR NOT EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'C92 EXISTS, a window call in its SELECT list': "SELECT k, v FROM t WHERE EXISTS (SELECT ROW_NUMBER() OVER (ORDER BY u.w) FROM u WHERE u.k = t.k)",
 'C93 NOT EXISTS, a window call in its SELECT list': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT SUM(u.w) OVER (ORDER BY u.w) FROM u WHERE u.k = t.k)",
 'C94 IN over a running SUM, correlated': "SELECT k, v FROM t WHERE v + 10 IN (SELECT SUM(u.w) OVER (ORDER BY u.w) FROM u WHERE u.k = t.k)",
 'C95 scalar ROW_NUMBER, correlated': "SELECT k, (SELECT ROW_NUMBER() OVER (ORDER BY u.w) FROM u WHERE u.k = t.k AND u.w > 10) FROM t",
 'C96 IN over RANK, correlated': "SELECT k, v FROM t WHERE 2 IN (SELECT RANK() OVER (ORDER BY u.w DESC) FROM u WHERE u.k = t.k)",
 'C97 > ANY over LAG, correlated': "SELECT k, v FROM t WHERE v > ANY (SELECT LAG(u.w) OVER (ORDER BY u.w) FROM u WHERE u.k = t.k)",
 'C98 scalar COUNT OVER PARTITION BY, correlated': "SELECT k, (SELECT COUNT(*) OVER (PARTITION BY u.w) FROM u WHERE u.k = t.k AND u.w = 5) FROM t",
 'C99 IN over ROW_NUMBER in a CASE, correlated': "SELECT k, CASE WHEN 2 IN (SELECT ROW_NUMBER() OVER (ORDER BY u.w) FROM u WHERE u.k = t.k) THEN 1 ELSE 0 END FROM t",
 'C100 scalar COUNT OVER (), non-equi correlation': "SELECT k, (SELECT COUNT(*) OVER () FROM u WHERE u.k < t.k AND u.w = 5) FROM t",
 'C101 scalar MAX OVER (), correlated': "SELECT k, (SELECT MAX(u.w) OVER () FROM u WHERE u.k = t.k AND u.w < 10) FROM t",
 'C102 EXISTS under OR, a window call in its SELECT list': "SELECT k, v FROM t WHERE k = 4 OR EXISTS (SELECT ROW_NUMBER() OVER (ORDER BY u.w) FROM u WHERE u.k = t.k AND u.w > 10)",
}
sel = sys.argv[1:]
for name, q in qs.items():
    if sel and name.split()[0] not in sel: continue
    try:
        rows = sorted([tuple(int(v) if isinstance(v, bool) else v for v in r) for r in env.execute_sql(q).collect()], key=repr)
        try:
            ref = sorted([tuple(int(v) if isinstance(v, bool) else v for v in r) for r in db.execute(q).fetchall()], key=repr)
        except sqlite3.Error as e:
            print(name, ":: Flink", rows, f"(sqlite: {e})")
            continue
        print(name, "::", "MATCH" if rows == ref else "DIFF", rows, ("" if rows == ref else f"sqlite={ref}"))
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        cause = [m for m in msg if 'Caused by' in m][-1:]
        print(name, ":: ERR", " / ".join(msg[0:2] + cause)[:400])
