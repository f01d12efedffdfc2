SET 'execution.runtime-mode' = 'automatic';
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
CREATE TABLE out7 (region STRING, cnt BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out/out7', 'format' = 'csv');
INSERT INTO out7 SELECT region, COUNT(*) FROM plain GROUP BY region;
