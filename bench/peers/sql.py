"""The benchmark job (bench/job.sql) in plain SQL, shared by the DuckDB and DataFusion peers.

Same view, same seven queries, same column order as job.sql; only the table
definitions differ per engine.
"""

PROCESSED = """
SELECT
  order_id, user_id, product_id, region, status, quantity, price,
  quantity * price AS total,
  EXTRACT(HOUR FROM order_time) AS order_hour,
  CAST(order_time AS DATE) AS order_date,
  order_time
FROM orders
WHERE quantity > 0 AND price > 0
"""

SINKS = {
    "hourly_stats": """
        SELECT order_date, order_hour, COUNT(*), SUM(quantity), SUM(total), AVG(total), MAX(total)
        FROM processed
        GROUP BY order_date, order_hour""",
    "product_stats": """
        SELECT product_id, COUNT(*), SUM(quantity), SUM(total), AVG(price), MIN(price), MAX(price)
        FROM processed
        GROUP BY product_id""",
    "user_stats": """
        SELECT user_id, COUNT(*), SUM(quantity), SUM(total), AVG(total), MIN(order_time), MAX(order_time)
        FROM processed
        GROUP BY user_id""",
    "region_day_stats": """
        SELECT region, order_date, COUNT(*), COUNT(CASE WHEN status = 'PAID' THEN 1 END), SUM(total),
               AVG(CAST(quantity AS DOUBLE)), MIN(order_id), MAX(order_id)
        FROM processed
        GROUP BY region, order_date""",
    "eu_orders": """
        SELECT order_id, user_id, product_id, status, quantity, price, total, order_time
        FROM processed
        WHERE region = 'EU'""",
    "us_orders": """
        SELECT order_id, user_id, product_id, status, quantity, price, total, order_time
        FROM processed
        WHERE region = 'US'""",
    "city_stats": """
        SELECT u.city, COUNT(*), COUNT(DISTINCT p.user_id), SUM(p.quantity), SUM(p.total),
               AVG(CAST(u.age AS DOUBLE))
        FROM processed AS p
        JOIN users AS u ON p.user_id = u.id
        GROUP BY u.city""",
}
