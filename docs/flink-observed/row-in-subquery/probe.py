import sys, os
HERE = os.path.dirname(os.path.abspath(__file__))
from pyflink.table import EnvironmentSettings, TableEnvironment
env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
env.get_config().set("parallelism.default", "1")
for name, cols in [('t', 'k INT, v INT'), ('u', 'k INT, w INT')]:
    env.execute_sql(f"CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{HERE}/{name}.csv', 'format' = 'csv', 'csv.null-literal' = '')")
qs = [l.rstrip('\n') for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
for q in qs:
    name, q = q.split(' :: ', 1)
    try:
        rows = sorted([tuple(r) for r in env.execute_sql(q).collect()], key=repr)
        print(name, "::", rows)
    except Exception as e:
        msg = [m for m in str(e).split("\n") if m.strip()]
        cause = [m for m in msg if 'Caused by' in m][-1:]
        print(name, ":: ERR", " / ".join(msg[0:2] + cause)[:300])
