"""Correlated subqueries whose enclosing FROM holds a VALUES (issue 12): Flink 2.3 batch vs sqlite3.

Run: /work/flink-venv/bin/python probe_values_from.py [V1 V2 ...]; results in RESULTS.md."""
import re, sqlite3, sys
import os
HERE = os.path.dirname(os.path.abspath(__file__))
from pyflink.table import EnvironmentSettings, TableEnvironment
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
env.get_config().set("parallelism.default", "1")
db = sqlite3.connect(':memory:')
for name, file, cols in [('t', 't', 'k INT, v INT'), ('u', 'u', 'k INT, w INT'), ('u2', 'u', 'k INT, w INT')]:
    env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{HERE}/{file}.csv', 'format' = 'csv', 'csv.null-literal' = '')")
    db.execute(f"CREATE TABLE {name} ({cols})")
    for line in open(f'{HERE}/{file}.csv'):
        vals = [None if v == '' else int(v) for v in line.strip().split(',')]
        db.execute(f"INSERT INTO {name} VALUES (?, ?)", vals)
SQ = "(SELECT MAX(u.w) FROM u WHERE u.k = t.k)"
V2 = "(VALUES (1), (2)) AS d(n)"
qs = {
 # the scalar subquery in SELECT, enclosing FROM shapes
 'V1 SELECT scalar, FROM t, VALUES(2 rows)': f"SELECT t.k, {SQ} FROM t, {V2}",
 'V2 SELECT scalar, FROM VALUES, t (VALUES first)': f"SELECT t.k, {SQ} FROM {V2}, t",
 'V3 SELECT scalar, FROM t, VALUES(1 row)': f"SELECT t.k, {SQ} FROM t, (VALUES (1)) AS d(n)",
 'V4 SELECT scalar, FROM t CROSS JOIN VALUES': f"SELECT t.k, {SQ} FROM t CROSS JOIN {V2}",
 'V5 SELECT scalar, FROM t JOIN VALUES ON t.k = d.n': f"SELECT t.k, {SQ} FROM t JOIN {V2} ON t.k = d.n",
 'V6 SELECT scalar, FROM t JOIN VALUES ON TRUE': f"SELECT t.k, {SQ} FROM t JOIN {V2} ON TRUE",
 'V7 SELECT scalar, FROM t LEFT JOIN VALUES ON t.k = d.n': f"SELECT t.k, {SQ} FROM t LEFT JOIN {V2} ON t.k = d.n",
 'V8 SELECT scalar, FROM t, derived (SELECT * FROM VALUES)': f"SELECT t.k, {SQ} FROM t, (SELECT * FROM (VALUES (1), (2)) AS e(n)) AS d",
 'V9 SELECT scalar, FROM t, derived (SELECT n FROM VALUES WHERE n > 0)': f"SELECT t.k, {SQ} FROM t, (SELECT n FROM (VALUES (1), (2)) AS e(n) WHERE n > 0) AS d",
 'V10 SELECT scalar, FROM t, u2 (table cross join)': f"SELECT t.k, u2.w, {SQ} FROM t, u2 WHERE u2.k = 1",
 'V11 SELECT scalar, FROM t CROSS JOIN u2': f"SELECT t.k, u2.w, {SQ} FROM t CROSS JOIN u2 WHERE u2.k = 1",
 'V12 SELECT scalar, FROM t, VALUES, WHERE t.k = d.n': f"SELECT t.k, {SQ} FROM t, {V2} WHERE t.k = d.n",
 'V13 SELECT scalar, correlated on d.n': f"SELECT t.k, d.n, (SELECT MAX(u.w) FROM u WHERE u.k = d.n) FROM t, {V2}",
 'V14 SELECT scalar, uncorrelated': f"SELECT t.k, (SELECT MAX(u.w) FROM u) FROM t, {V2}",
 'V15 SELECT scalar, FROM VALUES alone, correlated on d.n': "SELECT d.n, (SELECT MAX(u.w) FROM u WHERE u.k = d.n) FROM (VALUES (1), (2)) AS d(n)",
 'V16 SELECT scalar, FROM derived over t and VALUES': f"SELECT x.k, (SELECT MAX(u.w) FROM u WHERE u.k = x.k) FROM (SELECT t.k FROM t, {V2}) AS x",
 # the subquery in WHERE
 'V17 WHERE scalar compare, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v > {SQ}",
 'V18 WHERE EXISTS, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'V19 WHERE NOT EXISTS, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'V20 WHERE IN correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v IN (SELECT u.w FROM u WHERE u.k = t.k)",
 'V21 WHERE IN uncorrelated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.k IN (SELECT u.k FROM u WHERE u.w > 10)",
 'V22 WHERE scalar uncorrelated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v < (SELECT MAX(u.w) FROM u)",
 'V23 WHERE EXISTS correlated on d.n': f"SELECT t.k, d.n FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = d.n AND u.w > t.v)",
 'V24 WHERE scalar compare, FROM t, u2 (table cross join)': f"SELECT t.k, u2.w FROM t, u2 WHERE u2.k = 1 AND t.v > {SQ}",
 'V25 WHERE EXISTS, FROM t, u2': "SELECT t.k, u2.w FROM t, u2 WHERE u2.k = 1 AND EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'V26 WHERE scalar compare, FROM t JOIN VALUES ON': f"SELECT t.k, d.n FROM t JOIN {V2} ON t.k = d.n WHERE t.v > {SQ}",
 'V27 WHERE EXISTS, FROM t JOIN VALUES ON': f"SELECT t.k, d.n FROM t JOIN {V2} ON t.k = d.n WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'V28 WHERE scalar compare, FROM VALUES, t': f"SELECT t.k, d.n FROM {V2}, t WHERE t.v > {SQ}",
 'V29 WHERE EXISTS, FROM t, VALUES(1 row)': "SELECT t.k, d.n FROM t, (VALUES (1)) AS d(n) WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'V30 SELECT EXISTS, FROM t, VALUES': f"SELECT t.k, EXISTS (SELECT 1 FROM u WHERE u.k = t.k) FROM t, {V2}",
 'V31 SELECT IN correlated, FROM t, VALUES': f"SELECT t.k, t.v IN (SELECT u.w FROM u WHERE u.k = t.k) FROM t, {V2}",
 'V32 SELECT scalar, FROM t, u2, VALUES': f"SELECT t.k, u2.w, {SQ} FROM t, u2, {V2} WHERE u2.k = 1",
 'V33 SELECT scalar, FROM t, VALUES, GROUP BY': f"SELECT t.k, COUNT(*), MAX({SQ}) FROM t, {V2} GROUP BY t.k",
 'V34 SELECT scalar, FROM t, derived aggregate of u2': f"SELECT t.k, {SQ} FROM t, (SELECT COUNT(*) AS c FROM u2) AS d",
 'V35 SELECT scalar, FROM t, VALUES two columns': f"SELECT t.k, {SQ} FROM t, (VALUES (1, 'a'), (2, 'b')) AS d(n, s)",
 'V36 SELECT scalar, FROM t JOIN VALUES ON t.k > d.n': f"SELECT t.k, {SQ} FROM t JOIN {V2} ON t.k > d.n",
 'V37 SELECT scalar, FROM t, VALUES(1 row) WHERE t.k = d.n': f"SELECT t.k, {SQ} FROM t, (VALUES (1)) AS d(n) WHERE t.k = d.n",
 # where else a VALUES may be: the same statement, not the enclosing FROM
 'W1 SELECT scalar over t, UNION ALL a branch over VALUES': f"SELECT t.k, {SQ} FROM t UNION ALL SELECT n, n FROM (VALUES (1)) AS d(n)",
 'W2 SELECT scalar over t, WHERE t.k IN (VALUES ...)': f"SELECT t.k, {SQ} FROM t WHERE t.k IN (VALUES (1), (2))",
 'W3 SELECT scalar over t, the subquery FROM a VALUES': "SELECT t.k, (SELECT MAX(d.n) FROM (VALUES (1), (2)) AS d(n) WHERE d.n = t.k) FROM t",
 'W4 SELECT scalar over t, a FROM-less SELECT inside it': "SELECT t.k, (SELECT MAX(u.w) FROM u WHERE u.k = t.k AND u.w > (SELECT 1)) FROM t",
 'W5 SELECT scalar over t, a sibling uncorrelated scalar over VALUES': f"SELECT t.k, {SQ}, (SELECT COUNT(*) FROM (VALUES (1), (2)) AS d(n)) FROM t",
 'W6 SELECT scalar over t, a sibling FROM-less scalar': f"SELECT t.k, {SQ}, (SELECT 7) FROM t",
 'W7 SELECT scalar, FROM t, derived GROUP BY over VALUES': f"SELECT t.k, {SQ} FROM t, (SELECT n FROM (VALUES (1), (2), (2)) AS e(n) GROUP BY n) AS d",
 'W8 SELECT scalar, FROM t, a view over VALUES': f"SELECT t.k, {SQ} FROM t, dv",
 'W9 SELECT scalar over t, WHERE EXISTS over VALUES': f"SELECT t.k, {SQ} FROM t WHERE EXISTS (SELECT 1 FROM (VALUES (1), (2)) AS d(n) WHERE d.n = t.k)",
 'W10 SELECT scalar over t, WHERE t.k IN (1, 2) list': f"SELECT t.k, {SQ} FROM t WHERE t.k IN (1, 2)",
 'W11 SELECT scalar over t in a derived table, cross joined with VALUES outside': f"SELECT x.k, x.m, d.n FROM (SELECT t.k, {SQ} AS m FROM t) AS x, (VALUES (1), (2)) AS d(n)",
 'W12 WHERE scalar over t in a derived table, cross joined with VALUES outside': f"SELECT x.k, d.n FROM (SELECT t.k FROM t WHERE t.v > {SQ}) AS x, (VALUES (1), (2)) AS d(n)",
 'W13 SELECT scalar over t, a CTE over VALUES': f"WITH d AS (SELECT * FROM (VALUES (1), (2)) AS e(n)) SELECT t.k, {SQ} FROM t, d",
 'W14 SELECT scalar over t, WHERE a FROM-less scalar': f"SELECT t.k, {SQ} FROM t WHERE t.k < (SELECT 3)",
 'W15 SELECT EXISTS-under-OR in WHERE, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE d.n = 2 OR EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > 20)",
 'W16 WHERE NOT IN correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v NOT IN (SELECT u.w FROM u WHERE u.k = t.k)",
 'W17 WHERE > ALL correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v > ALL (SELECT u.w FROM u WHERE u.k = t.k)",
 'W18 HAVING scalar correlated on a group key, FROM t, VALUES': f"SELECT t.k, COUNT(*) FROM t, {V2} GROUP BY t.k HAVING COUNT(*) > (SELECT COUNT(*) FROM u WHERE u.k = t.k)",
 'W19 SELECT scalar over t, UNION ALL of t and VALUES in FROM': f"SELECT x.k, (SELECT MAX(u.w) FROM u WHERE u.k = x.k) FROM (SELECT k FROM t UNION ALL SELECT n FROM (VALUES (1)) AS e(n)) AS x",
 # quantified comparisons and HAVING: which WHERE forms Flink joins without a correlate
 'X1 WHERE > ANY correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v > ANY (SELECT u.w FROM u WHERE u.k = t.k)",
 'X2 WHERE <> ALL correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v <> ALL (SELECT u.w FROM u WHERE u.k = t.k)",
 'X3 WHERE = ANY correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v = ANY (SELECT u.w FROM u WHERE u.k = t.k)",
 'X4 WHERE NOT (EXISTS) correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE NOT (EXISTS (SELECT 1 FROM u WHERE u.k = t.k))",
 'X5 HAVING EXISTS correlated on a group key, FROM t, VALUES': f"SELECT t.k, COUNT(*) FROM t, {V2} GROUP BY t.k HAVING EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
 'X6 WHERE > ALL uncorrelated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v > ALL (SELECT u.w FROM u WHERE u.w < 20)",
 'X7 WHERE EXISTS whose WHERE has a correlated scalar, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w >= (SELECT MAX(u2.w) FROM u2 WHERE u2.k = u.k))",
 'X8 WHERE > ALL correlated, FROM t only': "SELECT t.k FROM t WHERE t.v > ALL (SELECT u.w FROM u WHERE u.k = t.k)",
 'X9 WHERE > ANY correlated, FROM t only': "SELECT t.k FROM t WHERE t.v > ANY (SELECT u.w FROM u WHERE u.k = t.k)",
 'X10 SELECT scalar correlated, FROM t, a VALUES in an uncorrelated IN of the SELECT list': f"SELECT t.k, {SQ}, t.k IN (SELECT n FROM (VALUES (1)) AS d(n)) FROM t",
 'X11 WHERE <> ANY correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v <> ANY (SELECT u.w FROM u WHERE u.k = t.k)",
 'X12 WHERE = ALL correlated, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE t.v = ALL (SELECT u.w FROM u WHERE u.k = t.k)",
 'X13 WHERE IN correlated under OR, FROM t, VALUES': f"SELECT t.k, d.n FROM t, {V2} WHERE d.n = 2 OR t.v IN (SELECT u.w FROM u WHERE u.k = t.k)",
 # SELECT lists and HAVINGs that read the enclosing query (semi_select.rs)
 'V90 WHERE IN, enclosing column in its SELECT list, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.v IN (SELECT u.w + t.k FROM u)",
 'V91 WHERE EXISTS, enclosing column in its SELECT list, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT t.v FROM u WHERE u.k = t.k)",
 'V92 WHERE EXISTS, HAVING reads the enclosing column, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
 'V93 IN under OR, enclosing column in its SELECT list, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.k = 4 OR t.v IN (SELECT u.w + t.k FROM u)",
 'V94 EXISTS under OR, enclosing column only in its SELECT list, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.k = 4 OR EXISTS (SELECT t.v FROM u)",
 'V95 WHERE > SOME, enclosing column in its SELECT list, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.v > SOME (SELECT u.w + t.k FROM u)",
 'V96 WHERE IN, HAVING reads the enclosing column, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.k IN (SELECT u.k FROM u GROUP BY u.k HAVING MAX(u.w - t.v) > 0)",
 'V97 WHERE EXISTS, grouped, non-equi correlation, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k < t.k GROUP BY u.k HAVING MAX(u.w) > 0)",
 'V98 WHERE IN, grouped, non-equi correlation, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.v IN (SELECT MAX(u.w) FROM u WHERE u.k < t.k GROUP BY u.k)",
 'V99 WHERE EXISTS, grouped, key correlation, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k GROUP BY u.k HAVING MAX(u.w) > 0)",
 'V100 WHERE EXISTS over an aggregate without GROUP BY, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'V101 EXISTS under OR over an aggregate without GROUP BY, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.k = 4 OR EXISTS (SELECT COUNT(*) FROM u WHERE u.k = t.k)",
 'V102 WHERE EXISTS, HAVING without GROUP BY, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
 'V103 WHERE NOT EXISTS over an aggregate without GROUP BY, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE NOT EXISTS (SELECT MAX(u.w) FROM u WHERE u.k = t.k)",
 'V104 WHERE IN over HAVING without GROUP BY, FROM t, VALUES': f"SELECT t.k FROM t, {V2} WHERE t.v IN (SELECT MAX(u.w) - 5 FROM u WHERE u.k = t.k HAVING COUNT(*) > 1)",
}
env.execute_sql("CREATE TEMPORARY VIEW dv AS SELECT * FROM (VALUES (1), (2)) AS e(n)")
db.execute("CREATE VIEW dv AS SELECT 1 AS n UNION ALL SELECT 2")

def lite(q):
    """sqlite3 has no column list on a derived table's alias: `(VALUES ...) AS d(a, b)` becomes a SELECT naming column1, column2."""
    def sub(m):
        cols = [c.strip() for c in m.group(3).split(',')]
        named = ', '.join(f'column{i + 1} AS {c}' for i, c in enumerate(cols))
        return f"(SELECT {named} FROM (VALUES {m.group(1)})) AS {m.group(2)}"
    return re.sub(r"\(VALUES ((?:\([^()]*\)(?:, )?)+)\) AS (\w+)\(([\w, ]+)\)", sub, q)

sel = sys.argv[1:]
for name, q in qs.items():
    if sel and name.split()[0] not in sel: continue
    try:
        rows = sorted([tuple(int(v) if isinstance(v, bool) else v for v in r) for r in env.execute_sql(q).collect()], key=repr)
        try:
            ref = sorted([tuple(int(v) if isinstance(v, bool) else v for v in r) for r in db.execute(lite(q)).fetchall()], key=repr)
        except sqlite3.Error as e:
            print(name, ":: Flink", rows, f"(sqlite: {e})", flush=True)
            continue
        print(name, "::", "MATCH" if rows == ref else "DIFF", rows, ("" if rows == ref else f"sqlite={ref}"), flush=True)
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        cause = [m for m in msg if 'Caused by' in m][-1:]
        print(name, ":: ERR", " / ".join(msg[0:2] + cause)[:400], flush=True)
