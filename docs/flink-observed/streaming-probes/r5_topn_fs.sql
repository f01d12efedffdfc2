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
CREATE TABLE out5 (id BIGINT, amount INT) WITH ('connector' = 'filesystem', 'path' = 'out/out5', 'format' = 'csv');
INSERT INTO out5 SELECT id, amount FROM plain ORDER BY amount DESC LIMIT 2;
