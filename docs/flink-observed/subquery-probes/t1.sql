CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, (SELECT MAX(x) FROM b WHERE b.k = a.k), SUM(v) FROM a GROUP BY k;
---
SELECT SUM(v), k, (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, COUNT(*), (SELECT COUNT(*) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, (SELECT COUNT(*) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, SUM(v), (SELECT MAX(s) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, COUNT(*), (SELECT MAX(s) FROM b WHERE b.k = a.k) FROM a GROUP BY k;
---
SELECT k, SUM(v) FROM a GROUP BY k HAVING SUM(v) > (SELECT MAX(x) FROM b WHERE b.k = a.k) / 10;
---
SELECT k, SUM(v) FROM a GROUP BY k HAVING COUNT(*) < (SELECT COUNT(*) FROM b WHERE b.k = a.k);
---
SELECT k, (SELECT x FROM b WHERE b.k = a.k AND b.s = 'x') FROM a GROUP BY k;
---
SELECT k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k + 1) FROM a GROUP BY k;
---
SELECT SUM(v), (SELECT MAX(x) FROM b WHERE b.k = 1) FROM a;
---
SELECT v, k, SUM(v), (SELECT MAX(x) FROM b WHERE b.k = a.k) FROM a GROUP BY k, v;
