"""Nested subqueries that refer two levels out: Flink 2.3 batch vs sqlite3.

Run: /opt/flinkvenv/bin/python probe_nested.py [Q1 Q2 ...]; results in RESULTS.md."""
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
}
sel = sys.argv[1:] 
for name, q in qs.items():
    if sel and name.split()[0] not in sel: continue
    try:
        rows = sorted([tuple(r) for r in env.execute_sql(q).collect()], key=repr)
        ref = sorted([tuple(r) for r in db.execute(q.replace('AVG(z)', 'AVG(z)')).fetchall()], key=repr)
        print(name, "::", "MATCH" if rows == ref else "DIFF", rows, ("" if rows == ref else f"sqlite={ref}"))
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        print(name, ":: ERR", " / ".join(msg[0:2])[:300])
