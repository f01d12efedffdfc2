-- Issue 13: one INSERT, GROUP BY user_id over every row (the baseline of sixteen.sql).
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

CREATE TABLE per_user (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user',
  'format' = 'csv'
);

INSERT INTO per_user
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
GROUP BY user_id;
