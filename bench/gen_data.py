#!/usr/bin/env python3
"""Deterministic data for the stmtc benchmark (issue 6). Python stdlib only.

    python3 bench/gen_data.py --rows 10M            # data/10M/orders.csv + data/users.csv
    python3 bench/gen_data.py --rows 1M --out DIR   # DIR/1M/orders.csv + DIR/users.csv

orders.csv (no header, as Flink's csv format reads it):
    order_id BIGINT      1..N, in file order
    user_id INT          uniform in 1..100000 (every order has a user)
    product_id INT       uniform in 1..5000
    region STRING        EU 30%, US 25%, ASIA 20%, LATAM 15%, AFRICA 10%
    status STRING        PAID 70%, PENDING 30%
    quantity INT         uniform in 0..20 (so ~4.8% zeros, filtered out by the job)
    price DOUBLE         0.01..999.99 with 2 decimals; 1% are 0.00 (filtered out)
    order_time TIMESTAMP uniform over 30 days from 2024-01-01 00:00:00.000,
                         millisecond precision, e.g. 2024-01-05 08:01:29.363

users.csv: id INT 1..100000, name STRING (user_000001), age INT 18..80,
city STRING one of 50 one-word city names.

Rows are generated in chunks of 1M with a seed per chunk, so the output does
not depend on the number of worker processes and the 1M file is the first
chunk of the 10M file. Python's Mersenne Twister with an integer seed and
random() is stable across Python versions.
"""

import argparse
import os
import random
import sys
import time
from multiprocessing import Pool

SEED = 20240101
CHUNK = 1_000_000
USERS = 100_000
PRODUCTS = 5_000
DAYS = 30

REGIONS = ["EU"] * 30 + ["US"] * 25 + ["ASIA"] * 20 + ["LATAM"] * 15 + ["AFRICA"] * 10
STATUSES = ["PAID"] * 7 + ["PENDING"] * 3
CITIES = [
    "Amsterdam", "Athens", "Austin", "Bangkok", "Barcelona", "Beijing", "Berlin", "Bogota",
    "Boston", "Brussels", "Cairo", "Chicago", "Copenhagen", "Delhi", "Dublin", "Dubai",
    "Hamburg", "Helsinki", "Istanbul", "Jakarta", "Karachi", "Kyiv", "Lagos", "Lima",
    "Lisbon", "London", "Madrid", "Manila", "Melbourne", "Miami", "Milan", "Montreal",
    "Moscow", "Mumbai", "Munich", "Nairobi", "Osaka", "Oslo", "Paris", "Prague",
    "Rome", "Santiago", "Seoul", "Shanghai", "Singapore", "Stockholm", "Sydney", "Tokyo",
    "Toronto", "Vienna",
]
assert len(CITIES) == 50


def parse_rows(text):
    t = text.strip().upper().replace("_", "")
    mult = 1
    if t.endswith("K"):
        mult, t = 1_000, t[:-1]
    elif t.endswith("M"):
        mult, t = 1_000_000, t[:-1]
    elif t.endswith("B"):
        mult, t = 1_000_000_000, t[:-1]
    return int(float(t) * mult)


def _time_tables():
    days = [f"2024-01-{d:02d} " for d in range(1, DAYS + 1)]
    hms = [f"{h:02d}:{m:02d}:{s:02d}." for h in range(24) for m in range(60) for s in range(60)]
    ms = [f"{i:03d}" for i in range(1000)]
    return days, hms, ms


def gen_chunk(args):
    """Rows start+1 .. start+count of chunk `index`, written to `path`."""
    index, start, count, path = args
    rnd = random.Random(SEED * 1000 + index).random
    days, hms, ms = _time_tables()
    regions, statuses = REGIONS, STATUSES
    nreg, nsta = len(regions), len(statuses)
    day_ms = 86_400_000
    out = []
    append = out.append
    with open(path, "w", newline="") as f:
        for oid in range(start + 1, start + count + 1):
            user = int(rnd() * USERS) + 1
            product = int(rnd() * PRODUCTS) + 1
            region = regions[int(rnd() * nreg)]
            status = statuses[int(rnd() * nsta)]
            qty = int(rnd() * 21)
            if rnd() < 0.01:
                cents = 0
            else:
                cents = int(rnd() * 99_999) + 1
            t = int(rnd() * (DAYS * day_ms))
            d, rem = divmod(t, day_ms)
            sec, milli = divmod(rem, 1000)
            append(
                f"{oid},{user},{product},{region},{status},{qty},"
                f"{cents // 100}.{cents % 100:02d},{days[d]}{hms[sec]}{ms[milli]}\n"
            )
            if len(out) >= 50_000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))
    return path


def gen_users(path):
    rnd = random.Random(SEED - 1).random
    with open(path + ".tmp", "w", newline="") as f:
        f.write(
            "".join(
                f"{i},user_{i:06d},{18 + int(rnd() * 63)},{CITIES[int(rnd() * len(CITIES))]}\n"
                for i in range(1, USERS + 1)
            )
        )
    os.replace(path + ".tmp", path)


def gen_orders(rows, path, jobs):
    tmpdir = path + ".parts"
    os.makedirs(tmpdir, exist_ok=True)
    tasks = []
    for index, start in enumerate(range(0, rows, CHUNK)):
        tasks.append((index, start, min(CHUNK, rows - start), os.path.join(tmpdir, f"{index:06d}")))
    if jobs > 1 and len(tasks) > 1:
        with Pool(min(jobs, len(tasks))) as pool:
            parts = pool.map(gen_chunk, tasks, chunksize=1)
    else:
        parts = [gen_chunk(t) for t in tasks]
    with open(path + ".tmp", "wb") as out:
        for p in parts:
            with open(p, "rb") as f:
                while True:
                    buf = f.read(1 << 24)
                    if not buf:
                        break
                    out.write(buf)
            os.remove(p)
    os.rmdir(tmpdir)
    os.replace(path + ".tmp", path)


def size_label(rows):
    if rows % 1_000_000_000 == 0:
        return f"{rows // 1_000_000_000}B"
    if rows % 1_000_000 == 0:
        return f"{rows // 1_000_000}M"
    if rows % 1_000 == 0:
        return f"{rows // 1_000}K"
    return str(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1M", help="orders rows: 1M, 10M, 100M, 250K, 12345 (default 1M)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"),
                    help="data directory (default bench/data)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--force", action="store_true", help="regenerate even if the files exist")
    args = ap.parse_args()

    rows = parse_rows(args.rows)
    os.makedirs(args.out, exist_ok=True)
    users = os.path.join(args.out, "users.csv")
    if args.force or not os.path.exists(users):
        gen_users(users)
        print(f"wrote {users}", file=sys.stderr)
    sub = os.path.join(args.out, size_label(rows))
    os.makedirs(sub, exist_ok=True)
    orders = os.path.join(sub, "orders.csv")
    if args.force or not os.path.exists(orders):
        t0 = time.time()
        gen_orders(rows, orders, max(1, args.jobs))
        mb = os.path.getsize(orders) / 1e6
        print(f"wrote {orders}: {rows} rows, {mb:.0f} MB in {time.time() - t0:.1f} s", file=sys.stderr)
    else:
        print(f"{orders} exists", file=sys.stderr)


if __name__ == "__main__":
    main()
