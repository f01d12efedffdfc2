"""DataFusion peer: the benchmark job as a DataFusion (Python) user writes it.

    python peers/datafusion_job.py --variant seq    [--out out-datafusion-seq]     # a view, seven queries in sequence
    python peers/datafusion_job.py --variant cached [--out out-datafusion-cached]  # the view's DataFrame cached first

Run with bench/ as the working directory. Writes OUT/<sink>.csv without header.
"""
import argparse
import os

import pyarrow as pa
from datafusion import SessionContext

from sql import PROCESSED, SINKS

ap = argparse.ArgumentParser()
ap.add_argument("--variant", choices=["seq", "cached"], default="seq")
ap.add_argument("--out")
args = ap.parse_args()
out = args.out or f"out-datafusion-{args.variant}"
os.makedirs(out, exist_ok=True)

ctx = SessionContext()  # default config: one partition per core
ctx.register_csv("orders", "data/orders.csv", has_header=False, schema=pa.schema([
    ("order_id", pa.int64()), ("user_id", pa.int32()), ("product_id", pa.int32()),
    ("region", pa.string()), ("status", pa.string()), ("quantity", pa.int32()),
    ("price", pa.float64()), ("order_time", pa.timestamp("ms")),
]))
ctx.register_csv("users", "data/users.csv", has_header=False, schema=pa.schema([
    ("id", pa.int32()), ("name", pa.string()), ("age", pa.int32()), ("city", pa.string()),
]))
if args.variant == "cached":
    ctx.register_view("processed", ctx.sql(PROCESSED).cache())
else:
    ctx.sql(f"CREATE VIEW processed AS {PROCESSED}")

for name, query in SINKS.items():
    ctx.sql(query).write_csv(f"{out}/{name}.csv", with_header=False)
