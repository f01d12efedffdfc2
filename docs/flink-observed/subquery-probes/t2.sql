CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT v, k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a GROUP BY v, k;
---
SELECT s, COUNT(*), (SELECT MAX(x) FROM b WHERE b.s = c.s) FROM c GROUP BY s;
---
SELECT s, (SELECT COUNT(*) FROM b WHERE b.s = c.s), COUNT(*) FROM c GROUP BY s;
---
SELECT s, SUM(n), (SELECT COUNT(*) FROM b WHERE b.s = c.s) FROM c GROUP BY s;
---
SELECT k, (SELECT MAX(x) FROM b WHERE b.k = a.v) FROM a GROUP BY k;
---
SELECT k, SUM(v) FROM a GROUP BY k HAVING EXISTS (SELECT 1 FROM b WHERE b.k = a.k);
---
SELECT k, SUM(v), k IN (SELECT k FROM b WHERE b.x > 55) FROM a GROUP BY k;
---
SELECT k, SUM(v), EXISTS (SELECT 1 FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, SUM(v), SUM(v) > ALL (SELECT x FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, SUM(v) FROM a GROUP BY k HAVING SUM(v) < (SELECT COUNT(*) FROM b WHERE b.k = a.k) * 10 OR k IS NULL;
---
SELECT k, v, v IN (SELECT x FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, v NOT IN (SELECT x FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, v * 10 > ALL (SELECT x FROM b WHERE b.k <> a.k) FROM a;
---
SELECT k, v, v * 10 < SOME (SELECT x FROM b WHERE b.k <= a.k) FROM a;
---
SELECT k, v, v * 10 >= ANY (SELECT x FROM b WHERE b.k > a.k) FROM a;
---
SELECT k, v FROM a WHERE v > 8 OR v * 10 IN (SELECT x FROM b WHERE b.k < a.k + 2);
---
SELECT k, v, k IN (SELECT k FROM b WHERE b.k = a.k AND b.x > a.v * 5) FROM a;
---
SELECT k, v FROM a WHERE v * 10 > ALL (SELECT x FROM b WHERE b.k < a.k);
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE EXISTS (SELECT 1 FROM b b2 WHERE b2.k = a.k AND b2.s = b.s AND b2.x <> b.x));
---
SELECT k, v FROM a WHERE k IN (SELECT k FROM b WHERE x IN (SELECT x FROM b b2 WHERE b2.k = a.k));
---
SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND NOT EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE k IN (SELECT k FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n > a.v));
---
SELECT k, v, (SELECT SUM(x) FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, (SELECT COUNT(x) FROM b WHERE b.k = a.k AND b.x > a.v * 5) FROM a;
---
SELECT k, v FROM a WHERE v * 10 > (SELECT AVG(x) FROM b WHERE b.k <> a.k);
---
SELECT k, v, (SELECT MAX(x) FROM b WHERE b.s = 'x' AND b.k <= a.k) FROM a;
