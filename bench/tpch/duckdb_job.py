#!/usr/bin/env python3
"""DuckDB peer of the TPC-H subset statement set (bench/tpch/run.py runs it).

    python duckdb_job.py --variant direct|loaded --job job.sql --out out-duckdb-direct

Reads the DDL and the INSERTs of the (subset) statement set job.sql, so both
engines run the same query text:
- `direct`: one VIEW per table over `read_csv(data/<t>.tbl, delim='|')` with
  the DDL's columns and types: every table reference of every query scans the
  file again;
- `loaded`: `CREATE TABLE <t> AS SELECT * FROM read_csv(...)` for the 8 tables
  first (one read each; the load is part of the timed run), then the queries.
Each query is `COPY (<select>) TO '<out>/qNN.csv' (DELIMITER '|', HEADER false)`,
in the order of the statement set. Default settings (all cores, in memory).
Working directory: the data's parent folder (the DDL's paths are relative).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tpch_sql import parse_job  # noqa: E402

import duckdb  # noqa: E402


def read_csv_sql(path, columns):
    cols = ", ".join(f"'{name}': '{typ}'" for name, typ in columns)
    # No quoting in the .tbl files: quote/escape off, so a '"' could never start a field.
    return (f"read_csv('{path}', delim='|', header=false, quote='', escape='', "
            f"auto_detect=false, columns={{{cols}}})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", choices=["direct", "loaded"], required=True)
    ap.add_argument("--job", default="job.sql")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    tables, inserts = parse_job(open(args.job).read())
    os.makedirs(args.out, exist_ok=True)
    con = duckdb.connect()
    for name, (path, columns) in tables.items():
        kind = "VIEW" if args.variant == "direct" else "TABLE"
        con.execute(f"CREATE {kind} {name} AS SELECT * FROM {read_csv_sql(path, columns)}")
    for sink, select in inserts:
        target = os.path.join(args.out, f"{sink}.csv")
        con.execute(f"COPY ({select}) TO '{target}' (FORMAT csv, DELIMITER '|', HEADER false)")


if __name__ == "__main__":
    main()
