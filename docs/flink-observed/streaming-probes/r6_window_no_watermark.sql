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
CREATE TABLE out6 (ws TIMESTAMP(3), cnt BIGINT) WITH ('connector' = 'print');
INSERT INTO out6 SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;
