-- stmtc benchmark job (issue 6): one orders source, one shared view, seven sinks.
-- Paths are relative: run every engine with bench/ as the working directory.
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE orders (
  order_id BIGINT,
  user_id INT,
  product_id INT,
  region STRING,
  status STRING,
  quantity INT,
  price DOUBLE,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/orders.csv',
  'format' = 'csv'
);

CREATE TABLE users (
  id INT,
  name STRING,
  age INT,
  city STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/users.csv',
  'format' = 'csv'
);

CREATE TEMPORARY VIEW processed AS
SELECT
  order_id,
  user_id,
  product_id,
  region,
  status,
  quantity,
  price,
  quantity * price AS total,
  EXTRACT(HOUR FROM order_time) AS order_hour,
  CAST(order_time AS DATE) AS order_date,
  order_time
FROM orders
WHERE quantity > 0 AND price > 0;

CREATE TABLE hourly_stats (
  order_date DATE,
  order_hour BIGINT,
  order_count BIGINT,
  total_quantity INT,
  revenue DOUBLE,
  avg_total DOUBLE,
  max_total DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/hourly_stats',
  'format' = 'csv'
);

CREATE TABLE product_stats (
  product_id INT,
  order_count BIGINT,
  total_quantity INT,
  revenue DOUBLE,
  avg_price DOUBLE,
  min_price DOUBLE,
  max_price DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/product_stats',
  'format' = 'csv'
);

CREATE TABLE user_stats (
  user_id INT,
  order_count BIGINT,
  total_quantity INT,
  revenue DOUBLE,
  avg_total DOUBLE,
  first_order TIMESTAMP(3),
  last_order TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/user_stats',
  'format' = 'csv'
);

CREATE TABLE region_day_stats (
  region STRING,
  order_date DATE,
  order_count BIGINT,
  paid_count BIGINT,
  revenue DOUBLE,
  avg_quantity DOUBLE,
  min_order_id BIGINT,
  max_order_id BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/region_day_stats',
  'format' = 'csv'
);

CREATE TABLE eu_orders (
  order_id BIGINT,
  user_id INT,
  product_id INT,
  status STRING,
  quantity INT,
  price DOUBLE,
  total DOUBLE,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/eu_orders',
  'format' = 'csv'
);

CREATE TABLE us_orders (
  order_id BIGINT,
  user_id INT,
  product_id INT,
  status STRING,
  quantity INT,
  price DOUBLE,
  total DOUBLE,
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/us_orders',
  'format' = 'csv'
);

CREATE TABLE city_stats (
  city STRING,
  order_count BIGINT,
  buyer_count BIGINT,
  total_quantity INT,
  revenue DOUBLE,
  avg_age DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/city_stats',
  'format' = 'csv'
);

EXECUTE STATEMENT SET
BEGIN
  INSERT OVERWRITE hourly_stats
  SELECT order_date, order_hour, COUNT(*), SUM(quantity), SUM(total), AVG(total), MAX(total)
  FROM processed
  GROUP BY order_date, order_hour;

  INSERT OVERWRITE product_stats
  SELECT product_id, COUNT(*), SUM(quantity), SUM(total), AVG(price), MIN(price), MAX(price)
  FROM processed
  GROUP BY product_id;

  INSERT OVERWRITE user_stats
  SELECT user_id, COUNT(*), SUM(quantity), SUM(total), AVG(total), MIN(order_time), MAX(order_time)
  FROM processed
  GROUP BY user_id;

  INSERT OVERWRITE region_day_stats
  SELECT region, order_date, COUNT(*), COUNT(CASE WHEN status = 'PAID' THEN 1 END), SUM(total),
         AVG(CAST(quantity AS DOUBLE)), MIN(order_id), MAX(order_id)
  FROM processed
  GROUP BY region, order_date;

  INSERT OVERWRITE eu_orders
  SELECT order_id, user_id, product_id, status, quantity, price, total, order_time
  FROM processed
  WHERE region = 'EU';

  INSERT OVERWRITE us_orders
  SELECT order_id, user_id, product_id, status, quantity, price, total, order_time
  FROM processed
  WHERE region = 'US';

  INSERT OVERWRITE city_stats
  SELECT u.city, COUNT(*), COUNT(DISTINCT p.user_id), SUM(p.quantity), SUM(p.total),
         AVG(CAST(u.age AS DOUBLE))
  FROM processed AS p
  JOIN users AS u ON p.user_id = u.id
  GROUP BY u.city;
END;
