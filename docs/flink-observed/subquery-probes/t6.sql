CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, COALESCE((SELECT MAX(x) FROM b WHERE b.k = a.k), 0) FROM a;
---
SELECT k, COALESCE((SELECT MAX(x) FROM b WHERE b.k > 5), -1) FROM a;
---
SELECT k, ABS((SELECT MIN(x) FROM b WHERE b.k = a.k) - 100) FROM a;
---
SELECT k, CAST((SELECT MAX(x) FROM b WHERE b.k = a.k) AS STRING) FROM a;
---
SELECT k, CAST((SELECT COUNT(*) FROM b WHERE b.k = a.k) AS INT) FROM a;
---
SELECT k FROM a WHERE COALESCE((SELECT MAX(x) FROM b WHERE b.k = a.k), 0) > 55;
---
SELECT k FROM a WHERE ABS((SELECT MAX(x) FROM b)) > v;
---
SELECT k, UPPER((SELECT s FROM b WHERE b.k = a.k AND b.x = 100)) FROM a;
---
SELECT k, COALESCE((SELECT x FROM b WHERE b.k = a.k AND b.s = 'z'), v) FROM a;
---
SELECT SUM(CASE WHEN v IN (SELECT x / 10 FROM b) THEN 1 END) FROM a;
---
SELECT k, SUM(CASE WHEN v IN (SELECT x / 10 FROM b) THEN 1 ELSE 0 END) FROM a GROUP BY k;
---
SELECT SUM((SELECT MAX(x) FROM b)) FROM a;
---
SELECT k, SUM((SELECT MAX(x) FROM b WHERE b.k = a.k)) FROM a GROUP BY k;
---
SELECT COUNT(*) FILTER (WHERE v IN (SELECT x / 10 FROM b)) FROM a;
---
SELECT k, COUNT(*) FILTER (WHERE k IN (SELECT k FROM b WHERE x > 55)) FROM a GROUP BY k;
---
SELECT k, SUM(v) FILTER (WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)) FROM a GROUP BY k;
---
SELECT k, COALESCE((SELECT MAX(x) FROM b WHERE b.k = a.k), 0) + 1, v FROM a WHERE v > 4;
---
SELECT k, SUM(v), COALESCE((SELECT MAX(x) FROM b WHERE b.k = a.k), 0) FROM a GROUP BY k;
---
SELECT k, IF((SELECT COUNT(*) FROM b WHERE b.k = a.k) > 1, 'many', 'few') FROM a;
