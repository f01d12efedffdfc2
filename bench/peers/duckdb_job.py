"""DuckDB peer: the benchmark job as a DuckDB user writes it.

    python peers/duckdb_job.py --variant seq  [--out out-duckdb-seq]    # view + seven COPY statements
    python peers/duckdb_job.py --variant temp [--out out-duckdb-temp]   # view materialized in a TEMP table first

Run with bench/ as the working directory. Writes OUT/<sink>.csv without header.
"""
import argparse
import os

import duckdb

from sql import PROCESSED, SINKS

ap = argparse.ArgumentParser()
ap.add_argument("--variant", choices=["seq", "temp"], default="seq")
ap.add_argument("--out")
args = ap.parse_args()
out = args.out or f"out-duckdb-{args.variant}"
os.makedirs(out, exist_ok=True)

con = duckdb.connect()  # in-memory database, default threads (all cores)
con.execute("""
CREATE VIEW orders AS SELECT * FROM read_csv('data/orders.csv', header = false, columns = {
  'order_id': 'BIGINT', 'user_id': 'INTEGER', 'product_id': 'INTEGER', 'region': 'VARCHAR',
  'status': 'VARCHAR', 'quantity': 'INTEGER', 'price': 'DOUBLE', 'order_time': 'TIMESTAMP'})
""")
con.execute("""
CREATE VIEW users AS SELECT * FROM read_csv('data/users.csv', header = false, columns = {
  'id': 'INTEGER', 'name': 'VARCHAR', 'age': 'INTEGER', 'city': 'VARCHAR'})
""")
if args.variant == "temp":
    con.execute(f"CREATE TEMP TABLE processed AS {PROCESSED}")
else:
    con.execute(f"CREATE VIEW processed AS {PROCESSED}")

for name, query in SINKS.items():
    con.execute(f"COPY ({query}) TO '{out}/{name}.csv' (HEADER false)")
