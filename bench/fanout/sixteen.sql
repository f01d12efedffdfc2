-- Issue 13: sixteen INSERTs over one scan, each aggregating a disjoint sixteenth
-- of the rows (by user_id MOD 16, so the sixteen hold the groups of one.sql between them); compare with one.sql.
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

CREATE TABLE per_user_00 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_00',
  'format' = 'csv'
);

CREATE TABLE per_user_01 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_01',
  'format' = 'csv'
);

CREATE TABLE per_user_02 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_02',
  'format' = 'csv'
);

CREATE TABLE per_user_03 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_03',
  'format' = 'csv'
);

CREATE TABLE per_user_04 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_04',
  'format' = 'csv'
);

CREATE TABLE per_user_05 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_05',
  'format' = 'csv'
);

CREATE TABLE per_user_06 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_06',
  'format' = 'csv'
);

CREATE TABLE per_user_07 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_07',
  'format' = 'csv'
);

CREATE TABLE per_user_08 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_08',
  'format' = 'csv'
);

CREATE TABLE per_user_09 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_09',
  'format' = 'csv'
);

CREATE TABLE per_user_10 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_10',
  'format' = 'csv'
);

CREATE TABLE per_user_11 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_11',
  'format' = 'csv'
);

CREATE TABLE per_user_12 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_12',
  'format' = 'csv'
);

CREATE TABLE per_user_13 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_13',
  'format' = 'csv'
);

CREATE TABLE per_user_14 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_14',
  'format' = 'csv'
);

CREATE TABLE per_user_15 (
  user_id INT,
  orders BIGINT,
  quantity INT,
  revenue DOUBLE
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/per_user_15',
  'format' = 'csv'
);

EXECUTE STATEMENT SET
BEGIN
INSERT INTO per_user_00
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 0
GROUP BY user_id;
INSERT INTO per_user_01
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 1
GROUP BY user_id;
INSERT INTO per_user_02
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 2
GROUP BY user_id;
INSERT INTO per_user_03
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 3
GROUP BY user_id;
INSERT INTO per_user_04
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 4
GROUP BY user_id;
INSERT INTO per_user_05
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 5
GROUP BY user_id;
INSERT INTO per_user_06
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 6
GROUP BY user_id;
INSERT INTO per_user_07
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 7
GROUP BY user_id;
INSERT INTO per_user_08
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 8
GROUP BY user_id;
INSERT INTO per_user_09
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 9
GROUP BY user_id;
INSERT INTO per_user_10
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 10
GROUP BY user_id;
INSERT INTO per_user_11
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 11
GROUP BY user_id;
INSERT INTO per_user_12
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 12
GROUP BY user_id;
INSERT INTO per_user_13
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 13
GROUP BY user_id;
INSERT INTO per_user_14
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 14
GROUP BY user_id;
INSERT INTO per_user_15
SELECT user_id, COUNT(*), SUM(quantity), SUM(quantity * price)
FROM orders
WHERE MOD(user_id, 16) = 15
GROUP BY user_id;
END;
