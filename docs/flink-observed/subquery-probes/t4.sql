CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE t (p INT, k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/t.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, v, (SELECT x FROM b WHERE b.k = a.k AND b.x = a.v) FROM a GROUP BY k, v;
---
SELECT k, v, (SELECT MAX(x) FROM b WHERE b.k = a.k AND b.x = a.v * 10) FROM a GROUP BY k, v;
---
SELECT k, (SELECT MAX(x) FROM b WHERE b.k = a.k AND b.s = 'x') FROM a GROUP BY k;
---
SELECT k, (SELECT x FROM b WHERE b.k = a.k + 1 AND b.s = 'x') FROM a GROUP BY k;
---
SELECT p, k, (SELECT x FROM b WHERE b.k = t.k AND b.s = 'x') FROM t GROUP BY p, k;
---
SELECT p, k, (SELECT COUNT(*) FROM b WHERE b.k = t.k AND b.x > t.p * 10) FROM t GROUP BY p, k;
---
SELECT p, k, (SELECT COUNT(*) FROM b WHERE b.k = t.k AND b.x = t.p * 10) FROM t GROUP BY p, k;
---
SELECT k, SUM(v) FROM a GROUP BY k HAVING k IN (SELECT k FROM b WHERE b.k = a.k AND b.x > 55) OR SUM(v) < 5;
---
SELECT k, SUM(v), k IN (SELECT k FROM b WHERE b.x > a.k * 30) FROM a GROUP BY k;
---
SELECT k, SUM(v), SUM(v) IN (SELECT x / 2 FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, SUM(v), (SELECT COUNT(*) FROM b WHERE b.k < a.k) FROM a GROUP BY k;
---
SELECT k, MAX(v) FROM a GROUP BY k HAVING EXISTS (SELECT 1 FROM b WHERE b.k < a.k AND b.x > 55);
---
SELECT k, SUM(v), (SELECT COUNT(*) FROM b WHERE b.k = a.k) AS c FROM a GROUP BY k ORDER BY c DESC, k;
---
SELECT DISTINCT k, (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a;
---
SELECT k, v, v * 10 IN (SELECT x FROM b WHERE b.k <> a.k AND b.s = 'x') OR v IS NULL FROM a;
---
SELECT k, v, CASE WHEN v * 10 > ALL (SELECT x FROM b WHERE b.k < a.k) THEN 'all' ELSE 'no' END FROM a;
---
SELECT k, v, v * 10 = ANY (SELECT x FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, v * 10 <> ALL (SELECT x FROM b WHERE b.k < a.k) FROM a;
---
SELECT k, v, v * 10 <= ALL (SELECT x FROM b WHERE b.k <> a.k) FROM a;
---
SELECT a.k, c.n, a.v IN (SELECT b.x / 10 FROM b WHERE b.k < a.k AND b.s = c.s) FROM a, c WHERE a.v = c.n;
