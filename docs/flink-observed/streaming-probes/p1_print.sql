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
CREATE TABLE p_group (region STRING, cnt BIGINT, total INT) WITH ('connector' = 'print', 'print-identifier' = 'group');
CREATE TABLE p_global (cnt BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'global');
CREATE TABLE p_distinct (region STRING) WITH ('connector' = 'print', 'print-identifier' = 'distinct');
CREATE TABLE p_inner (id BIGINT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'inner');
CREATE TABLE p_left (id BIGINT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'left');
CREATE TABLE p_union (region STRING) WITH ('connector' = 'print', 'print-identifier' = 'union');
CREATE TABLE p_unionall (region STRING) WITH ('connector' = 'print', 'print-identifier' = 'unionall');
CREATE TABLE p_limit (id BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'limit');
CREATE TABLE p_topn (id BIGINT, amount INT) WITH ('connector' = 'print', 'print-identifier' = 'topn');
CREATE TABLE p_window (ws TIMESTAMP(3), we TIMESTAMP(3), cnt BIGINT, total INT) WITH ('connector' = 'print', 'print-identifier' = 'window');
CREATE TABLE p_winstart (ws TIMESTAMP(3), cnt BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'winstart');
CREATE TABLE p_filter (id BIGINT, amount INT) WITH ('connector' = 'print', 'print-identifier' = 'filter');
CREATE TABLE p_values (x INT) WITH ('connector' = 'print', 'print-identifier' = 'values');
EXECUTE STATEMENT SET
BEGIN
INSERT INTO p_group SELECT region, COUNT(*), SUM(amount) FROM orders GROUP BY region;
INSERT INTO p_global SELECT COUNT(*) FROM orders;
INSERT INTO p_distinct SELECT DISTINCT region FROM orders;
INSERT INTO p_inner SELECT o.id, r.name FROM plain AS o JOIN regions AS r ON o.region = r.code;
INSERT INTO p_left SELECT o.id, r.name FROM plain AS o LEFT JOIN regions AS r ON o.region = r.code;
INSERT INTO p_union SELECT region FROM plain UNION SELECT code FROM regions;
INSERT INTO p_unionall SELECT region FROM plain UNION ALL SELECT code FROM regions;
INSERT INTO p_limit SELECT id FROM plain LIMIT 2;
INSERT INTO p_topn SELECT id, amount FROM plain ORDER BY amount DESC LIMIT 2;
INSERT INTO p_window SELECT window_start, window_end, COUNT(*), SUM(amount) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;
INSERT INTO p_winstart SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start;
INSERT INTO p_filter SELECT id, amount * 2 FROM plain WHERE amount > 15;
INSERT INTO p_values VALUES (1), (2);
END;
