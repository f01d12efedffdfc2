CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, v, (SELECT MAX(x) FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v)) FROM a;
---
SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v)) FROM a;
---
SELECT k, v FROM a WHERE EXISTS (SELECT b.s FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v) GROUP BY b.s HAVING COUNT(*) > 0);
---
SELECT k, v, v * 10 IN (SELECT x FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v)) FROM a;
---
SELECT k, v FROM a WHERE v * 10 > (SELECT MIN(x) FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v, (SELECT x FROM b WHERE b.k = a.k AND b.s = 'x' AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v)) FROM a;
