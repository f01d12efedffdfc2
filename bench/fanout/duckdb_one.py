"""DuckDB's one query of bench/fanout/one.sql over the same CSV (issue 13's
single-INSERT comparison): run from bench/, writes out/duckdb_per_user.csv."""

import duckdb

con = duckdb.connect()
con.execute("""
COPY (
  SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
  FROM read_csv('data/orders.csv', header = false, columns = {
    'order_id': 'BIGINT', 'user_id': 'INTEGER', 'product_id': 'INTEGER',
    'region': 'VARCHAR', 'status': 'VARCHAR', 'quantity': 'INTEGER',
    'price': 'DOUBLE', 'order_time': 'TIMESTAMP'})
  GROUP BY user_id
) TO 'out/duckdb_per_user.csv' (HEADER false)
""")
