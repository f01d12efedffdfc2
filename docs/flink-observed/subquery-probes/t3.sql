CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE t (p INT, k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/t.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT p, k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = t.k) FROM t GROUP BY p, k;
---
SELECT k, p, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = t.k) FROM t GROUP BY k, p;
---
SELECT k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = t.k) FROM t GROUP BY k;
---
SELECT a.k, SUM(n), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a JOIN c ON a.v = c.n GROUP BY a.k;
---
SELECT a.k, SUM(n), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM c JOIN a ON a.v = c.n GROUP BY a.k;
---
SELECT v, k, SUM(v) FROM a GROUP BY v, k HAVING SUM(v) > (SELECT MAX(x) FROM b WHERE b.k = a.k) / 10;
---
SELECT v, k, EXISTS (SELECT 1 FROM b WHERE b.k = a.k) FROM a GROUP BY v, k;
---
SELECT k, v, (SELECT x FROM b WHERE b.k = a.k AND b.x = a.v * 10) FROM a GROUP BY k, v;
---
SELECT k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a WHERE v > 4 GROUP BY k;
---
SELECT k, COUNT(*) FROM a GROUP BY ROLLUP(k) HAVING COUNT(*) > (SELECT COUNT(*) FROM b WHERE b.k = a.k);
---
SELECT SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a;
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x IN (SELECT n * 50 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE k IN (SELECT k FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND NOT EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k > 1 AND EXISTS (SELECT 1 FROM c WHERE c.n = a.v));
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE EXISTS (SELECT 1 FROM c WHERE c.n = a.k AND c.s = b.s));
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.x > ANY (SELECT n * 10 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND EXISTS (SELECT 1 FROM c WHERE c.s = b.s AND c.n < a.v));
---
SELECT k, v FROM a WHERE v IN (SELECT x FROM b WHERE b.k = a.k AND b.x IN (SELECT n FROM c WHERE c.n > a.k));
