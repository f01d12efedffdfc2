"""Nested subqueries that refer two levels out: Flink 2.3 batch vs sqlite3.

Run: /work/flink-venv/bin/python probe_nested.py [Q1 Q2 ...]; results in RESULTS.md."""
import sqlite3, sys
import os
HERE = os.path.dirname(os.path.abspath(__file__))
from pyflink.table import EnvironmentSettings, TableEnvironment
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
db = sqlite3.connect(':memory:')
for name, cols in [('t', 'k INT, v INT'), ('u', 'k INT, w INT'), ('x', 'k INT, z INT')]:
    env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{HERE}/{name}.csv', 'format' = 'csv', 'csv.null-literal' = '')")
    db.execute(f"CREATE TABLE {name} ({cols})")
    for line in open(f'{HERE}/{name}.csv'):
        vals = [None if v == '' else int(v) for v in line.strip().split(',')]
        db.execute(f"INSERT INTO {name} VALUES (?, ?)", vals)
qs = {
 'Q1 scalar agg middle, inner refs outer only': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q2 scalar agg middle, inner refs both': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t",
 'Q3 EXISTS middle, NOT EXISTS inner': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND NOT EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q4 IN middle, scalar inner refs outer only': "SELECT k, v FROM t WHERE t.k IN (SELECT u.k FROM u WHERE u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k))",
 'Q5 NOT EXISTS middle, EXISTS inner both': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q6 EXISTS middle, scalar inner both': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT AVG(z) FROM x WHERE x.k = u.k AND x.z <> t.v))",
 'Q7 scalar agg middle in WHERE, EXISTS inner both': "SELECT k, v FROM t WHERE t.v > (SELECT MAX(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q8 NOT IN middle, EXISTS inner both': "SELECT k, v FROM t WHERE t.v NOT IN (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q9 EXISTS middle, IN inner both': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w IN (SELECT z FROM x WHERE x.k = u.k AND x.z > t.v - 40))",
 'Q10 EXISTS middle, NOT IN inner both': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w NOT IN (SELECT z FROM x WHERE x.k = u.k AND x.z > t.v - 40))",
 'Q11 scalar COUNT middle, inner refs both': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t",
 'Q12 scalar agg middle, inner EXISTS refs outer only': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = t.k AND x.z > 10)) FROM t",
 # point 2 of issue 12 (run 2026-12-02, second session): middle forms not observed before
 'Q13 EXISTS middle GROUP BY HAVING, EXISTS inner both': "SELECT k, v FROM t WHERE EXISTS (SELECT u.k FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k HAVING COUNT(*) >= 1)",
 'Q14 scalar COUNT middle GROUP BY, EXISTS inner both': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k) FROM t",
 'Q15 IN middle GROUP BY, EXISTS inner both': "SELECT k, v FROM t WHERE t.v + 5 IN (SELECT MAX(w) FROM u WHERE EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10) GROUP BY u.k)",
 'Q16 scalar SUM middle GROUP BY in WHERE, EXISTS inner both': "SELECT k, v FROM t WHERE t.v < (SELECT SUM(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10) GROUP BY u.k)",
 'Q17 scalar no-agg middle (SINGLE_VALUE) in SELECT, EXISTS inner both': "SELECT k, (SELECT w FROM u WHERE u.k = t.k AND u.w > 10 AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 20)) FROM t",
 'Q18 scalar no-agg middle in WHERE, EXISTS inner both': "SELECT k, v FROM t WHERE t.v < (SELECT w + 1 FROM u WHERE u.k = t.k AND u.w > 10 AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 20))",
 'Q19 scalar no-agg middle, two rows for one t': "SELECT k, (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v + 10)) FROM t",
 'Q20 IN middle in SELECT, EXISTS inner both': "SELECT k, v + 5 IN (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)), v + 6 IN (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q21 IN middle under OR, EXISTS inner both': "SELECT k, v FROM t WHERE t.k = 3 OR v + 5 IN (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10))",
 'Q22 < ANY middle in SELECT, EXISTS inner both': "SELECT k, v < ANY (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q23 NOT (IN) middle in SELECT, EXISTS inner both': "SELECT k, NOT (v + 6 IN (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10))) FROM t",
 'Q24 > ALL middle in SELECT, EXISTS inner both': "SELECT k, v > ALL (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q25 EXISTS middle, inner EXISTS under OR': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND (u.w > 20 OR EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v)))",
 'Q26 scalar COUNT middle, inner EXISTS under OR': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND (u.w IS NULL OR EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))) FROM t",
 'Q27 EXISTS middle under OR, EXISTS inner both': "SELECT k, v FROM t WHERE t.k = 3 OR EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q28 EXISTS middle, inner IN under OR': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND (u.w IS NULL OR u.w IN (SELECT z + 12 FROM x WHERE x.k = u.k AND x.z < t.v)))",
 'Q29 scalar COUNT middle, inner scalar MIN both': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t",
 'Q30 EXISTS middle, inner scalar COUNT both': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND (SELECT COUNT(*) FROM x WHERE x.k = u.k AND x.z < t.v) = 0)",
 'Q31 EXISTS middle, inner scalar refers to t only': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k))",
 'Q32 scalar MAX middle, inner scalar in SELECT of middle': "SELECT k, (SELECT MAX(w + (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM u WHERE u.k = t.k) FROM t",
 'Q33 EXISTS middle GROUP BY HAVING, no direct correlation, EXISTS inner both': "SELECT k, v FROM t WHERE EXISTS (SELECT u.k FROM u WHERE EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k HAVING MAX(w) > 10)",
 'Q34 IN middle GROUP BY COUNT, no direct correlation, EXISTS inner both': "SELECT k, v FROM t WHERE t.k IN (SELECT COUNT(*) FROM u WHERE EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k)",
 'Q35 scalar MAX middle GROUP BY, no direct correlation, EXISTS inner both': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = 1 AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k) FROM t",
 'Q36 IN middle GROUP BY, inner scalar MIN both': "SELECT k, v FROM t WHERE t.v + 5 IN (SELECT MAX(w) FROM u WHERE u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k)",
 'Q37 IN middle GROUP BY with direct correlation, EXISTS inner both': "SELECT k, v FROM t WHERE t.v + 5 IN (SELECT MAX(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10) GROUP BY u.k)",
 'Q38 scalar no-agg middle, inner scalar MIN both': "SELECT k, (SELECT w FROM u WHERE u.k = t.k AND u.w > 10 AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z <= t.v + 20)) FROM t",
 'Q39 IN middle, inner scalar MIN both': "SELECT k, v FROM t WHERE t.v + 5 IN (SELECT w FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q40 EXISTS middle, inner scalar without aggregate both': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT z FROM x WHERE x.k = u.k AND x.z < t.v AND x.z > 2))",
 'Q41 scalar MAX middle, inner scalar MAX both, two inner conjuncts': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w >= (SELECT MAX(z) FROM x WHERE x.k = u.k AND x.z < t.v) AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k)) FROM t",
 'Q42 EXISTS middle, inner scalar AVG both, t.v nullable only through inner': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w + 1 > (SELECT AVG(z) FROM x WHERE x.k = u.k AND x.z < t.v + 30))",
 'Q43 > ANY middle in SELECT, EXISTS inner both': "SELECT k, v > ANY (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q44 < ALL middle in SELECT, EXISTS inner both': "SELECT k, v < ALL (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q45 = ANY middle in SELECT, EXISTS inner both': "SELECT k, v + 5 = ANY (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q46 <> ALL middle in SELECT, EXISTS inner both': "SELECT k, v + 6 <> ALL (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10)) FROM t",
 'Q47 < ANY middle under OR, EXISTS inner both': "SELECT k, v FROM t WHERE t.k = 3 OR v < ANY (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10))",
 'Q48 > ANY middle in SELECT, NULL operand over a non-empty set': "SELECT k, v > ANY (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.k * 20)) FROM t",
 'Q49 >= ALL middle in SELECT, NULL operand over a non-empty set': "SELECT k, v >= ALL (SELECT w FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.k * 20)) FROM t",
 'Q50 < ANY middle in SELECT, inner scalar MIN both': "SELECT k, v < ANY (SELECT w FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v + 10)) FROM t",
 'Q51 EXISTS middle in SELECT, inner scalar MIN both': "SELECT k, EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t",
 'Q52 EXISTS middle under OR, inner scalar MIN both': "SELECT k, v FROM t WHERE t.k = 3 OR EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q53 NOT EXISTS middle, inner scalar MIN both': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v))",
 'Q54 scalar MAX middle, inner scalar MIN both, NULL t.v read only by the inner': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v + 30)) FROM t",
 'Q55 NOT EXISTS middle, inner scalar refers to t only': "SELECT k, v FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k))",
 'Q56 EXISTS middle in SELECT, inner scalar refers to t only': "SELECT k, EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q57 scalar COUNT middle, inner scalar refers to t only': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q58 EXISTS middle, inner scalar refers to t only by a non-key': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.z > t.v))",
 'Q59 < ANY middle in SELECT, inner scalar refers to t only': "SELECT k, v < ANY (SELECT w FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q60 scalar no-agg middle, inner scalar refers to t only': "SELECT k, (SELECT w FROM u WHERE u.k = t.k AND u.w > 20 AND u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q61 EXISTS middle, inner EXISTS refers to t only by a key': "SELECT k, v FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = t.k AND x.z > 10))",
 'Q62 scalar MAX middle, inner scalar refers to t only by a non-key': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND u.w > (SELECT MIN(z) FROM x WHERE x.z > t.v)) FROM t",
 'Q63 scalar MAX middle, inner EXISTS refers to t only by a non-key': "SELECT k, (SELECT MAX(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.z > t.v + 40)) FROM t",
 'Q64 scalar MAX middle not correlated itself, inner EXISTS refers to t only by a key': "SELECT k, (SELECT MAX(w) FROM u WHERE u.w > 10 AND EXISTS (SELECT 1 FROM x WHERE x.k = t.k)) FROM t",
 'Q65 scalar COUNT middle not correlated itself, inner scalar refers to t only by a key': "SELECT k, (SELECT COUNT(*) FROM u WHERE u.w > (SELECT MIN(z) FROM x WHERE x.k = t.k)) FROM t",
 'Q66 scalar MAX middle not correlated itself, inner scalar refers to t and u': "SELECT k, (SELECT MAX(w) FROM u WHERE u.w > (SELECT MIN(z) FROM x WHERE x.k = u.k AND x.z < t.v)) FROM t",
 'Q67 IN middle aggregate without GROUP BY, not correlated itself, EXISTS inner both': "SELECT k, v FROM t WHERE t.v + 5 IN (SELECT MAX(w) FROM u WHERE EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10))",
 'Q68 < ANY middle GROUP BY in SELECT, not correlated itself, EXISTS inner both': "SELECT k, v < ANY (SELECT MAX(w) FROM u WHERE EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z < t.v) GROUP BY u.k) FROM t",
 'Q69 < ANY middle GROUP BY in SELECT, correlated itself, EXISTS inner both': "SELECT k, v < ANY (SELECT MAX(w) FROM u WHERE u.k = t.k AND EXISTS (SELECT 1 FROM x WHERE x.k = u.k AND x.z <= t.v + 10) GROUP BY u.k) FROM t",
}
import re as _re
def quantified_for_sqlite(q):
    """x op ANY|ALL (SELECT w FROM u WHERE c) has no sqlite form: SQL's rule
    spelled with EXISTS (TRUE if some w compares TRUE; FALSE over no rows;
    NULL if x is NULL or some w is NULL; else FALSE). ALL is NOT ANY of the
    negated comparison."""
    neg = {'>': '<=', '<': '>=', '>=': '<', '<=': '>', '=': '<>', '<>': '='}
    m = _re.search(r"(v(?: \+ \d+)?) (>=|<=|<>|=|<|>) (ANY|ALL) \(SELECT w FROM u WHERE ", q)
    if not m:
        return q
    depth, end = 1, m.end()
    while depth:
        depth += {'(': 1, ')': -1}.get(q[end], 0)
        end += 1
    x, op, kind = m.groups()
    c = q[m.end():end - 1]
    if kind == 'ALL':
        op = neg[op]
    some = (f"(CASE WHEN EXISTS (SELECT 1 FROM u WHERE {c} AND {x} {op} w) THEN 1 "
            f"WHEN NOT EXISTS (SELECT 1 FROM u WHERE {c}) THEN 0 "
            f"WHEN {x} IS NULL OR EXISTS (SELECT 1 FROM u WHERE {c} AND w IS NULL) THEN NULL ELSE 0 END)")
    expr = f"(NOT {some})" if kind == 'ALL' else f"({some} = 1)"
    return q[:m.start()] + expr + q[end:]
sel = sys.argv[1:]
for name, q in qs.items():
    if sel and name.split()[0] not in sel: continue
    try:
        # sqlite's booleans are 1 and 0
        rows = sorted([tuple(int(v) if isinstance(v, bool) else v for v in r) for r in env.execute_sql(q).collect()], key=repr)
        try:
            ref = sorted([tuple(r) for r in db.execute(quantified_for_sqlite(q)).fetchall()], key=repr)
        except sqlite3.Error as e:
            print(name, ":: Flink", rows, f"(sqlite: {e})")
            continue
        print(name, "::", "MATCH" if rows == ref else "DIFF", rows, ("" if rows == ref else f"sqlite={ref}"))
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        cause = [m for m in msg if 'Caused by' in m][-1:]
        print(name, ":: ERR", " / ".join(msg[0:2] + cause)[:400])
