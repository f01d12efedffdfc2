"""Polars peer: the benchmark job as a Polars user writes it, one collect_all over
seven lazy frames that share the `processed` frame (common subplans are computed once).

    python peers/polars_job.py [--out out-polars]

Run with bench/ as the working directory. Writes OUT/<sink>.csv without header.
"""
import argparse
import os

import polars as pl

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="out-polars")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)

orders = pl.scan_csv("data/orders.csv", has_header=False, schema={
    "order_id": pl.Int64, "user_id": pl.Int32, "product_id": pl.Int32, "region": pl.String,
    "status": pl.String, "quantity": pl.Int32, "price": pl.Float64, "order_time": pl.Datetime("ms"),
})
users = pl.scan_csv("data/users.csv", has_header=False, schema={
    "id": pl.Int32, "name": pl.String, "age": pl.Int32, "city": pl.String,
})

processed = orders.filter((pl.col("quantity") > 0) & (pl.col("price") > 0)).with_columns(
    total=pl.col("quantity") * pl.col("price"),
    order_hour=pl.col("order_time").dt.hour(),
    order_date=pl.col("order_time").dt.date(),
)
filtered = ["order_id", "user_id", "product_id", "status", "quantity", "price", "total", "order_time"]
sinks = {
    "hourly_stats": processed.group_by("order_date", "order_hour").agg(
        pl.len(), pl.col("quantity").sum(), pl.col("total").sum().alias("revenue"),
        pl.col("total").mean().alias("avg_total"), pl.col("total").max().alias("max_total")),
    "product_stats": processed.group_by("product_id").agg(
        pl.len(), pl.col("quantity").sum(), pl.col("total").sum(), pl.col("price").mean().alias("avg_price"),
        pl.col("price").min().alias("min_price"), pl.col("price").max().alias("max_price")),
    "user_stats": processed.group_by("user_id").agg(
        pl.len(), pl.col("quantity").sum(), pl.col("total").sum(), pl.col("total").mean().alias("avg_total"),
        pl.col("order_time").min().alias("first_order"), pl.col("order_time").max().alias("last_order")),
    "region_day_stats": processed.group_by("region", "order_date").agg(
        pl.len(), (pl.col("status") == "PAID").sum().alias("paid_count"), pl.col("total").sum(),
        pl.col("quantity").cast(pl.Float64).mean().alias("avg_quantity"),
        pl.col("order_id").min().alias("min_order_id"), pl.col("order_id").max().alias("max_order_id")),
    "eu_orders": processed.filter(pl.col("region") == "EU").select(filtered),
    "us_orders": processed.filter(pl.col("region") == "US").select(filtered),
    "city_stats": processed.join(users, left_on="user_id", right_on="id").group_by("city").agg(
        pl.len(), pl.col("user_id").n_unique().alias("buyer_count"), pl.col("quantity").sum(),
        pl.col("total").sum(), pl.col("age").cast(pl.Float64).mean().alias("avg_age")),
}

for name, df in zip(sinks, pl.collect_all(sinks.values())):
    df.write_csv(f"{args.out}/{name}.csv", include_header=False)
