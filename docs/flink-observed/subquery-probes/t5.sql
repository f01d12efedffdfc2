CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, v, v * 10 IN (SELECT x FROM b WHERE b.k = a.k OR b.x > a.v * 10) FROM a;
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.x > a.v * 10) FROM a;
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v)) FROM a;
---
SELECT k, v FROM a WHERE v > 5 OR EXISTS (SELECT 1 FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v, (SELECT SUM(x) FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.k = a.k AND b.x > a.v * 5) FROM a;
---
SELECT k, v FROM a WHERE v * 10 > (SELECT AVG(x) FROM b WHERE b.k <> a.k);
---
SELECT k, v, (SELECT MAX(s) FROM b WHERE b.k <= a.k GROUP BY k HAVING k = 1) FROM a;
---
SELECT k, v, (SELECT COUNT(DISTINCT s) FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, (SELECT COUNT(*) + 1 FROM b WHERE b.k < a.k) FROM a;
