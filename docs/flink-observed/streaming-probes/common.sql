CREATE TABLE orders (
  id BIGINT,
  region STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');
CREATE TABLE plain (
  id BIGINT,
  region STRING,
  amount INT,
  ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');
CREATE TABLE regions (
  code STRING,
  name STRING
) WITH ('connector' = 'filesystem', 'path' = 'data/users.csv', 'format' = 'csv');
