CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.k IS NULL);
---
SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.k IS NULL);
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k IS NOT DISTINCT FROM a.k);
---
SELECT k, v FROM a WHERE v * 10 IN (SELECT x FROM b WHERE b.k = a.k OR a.k IS NULL);
---
SELECT k, v FROM a WHERE v * 10 NOT IN (SELECT x FROM b WHERE b.k = a.k OR a.k IS NULL);
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.k IS NULL) FROM a;
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE b.k IS NOT DISTINCT FROM a.k) FROM a;
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE CASE WHEN a.k IS NULL THEN b.k IS NULL ELSE b.k = a.k END) FROM a;
---
SELECT k, v, v * 10 IN (SELECT x FROM b WHERE b.k = a.k OR a.k IS NULL) FROM a;
---
SELECT k, v, v * 10 NOT IN (SELECT x FROM b WHERE b.k IS NOT DISTINCT FROM a.k) FROM a;
---
SELECT k, v, v * 10 > ANY (SELECT x FROM b WHERE b.k = a.k OR b.k IS NULL) FROM a;
---
SELECT k, v, (SELECT MAX(x) FROM b WHERE b.k = a.k OR b.k IS NULL) FROM a;
---
SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.k IS NOT DISTINCT FROM a.k) FROM a;
---
SELECT k, v, (SELECT COUNT(x) FROM b WHERE b.k = a.k OR a.k IS NULL) FROM a;
---
SELECT k, v, (SELECT SUM(x) FROM b WHERE CASE WHEN a.v > 5 THEN b.k = a.k ELSE b.k > a.k END) FROM a;
---
SELECT k, v, (SELECT s FROM b WHERE (b.k = a.k OR b.k IS NULL) AND b.x = 70) FROM a;
---
SELECT k, v FROM a WHERE v < (SELECT COUNT(*) FROM b WHERE b.k IS NOT DISTINCT FROM a.k OR b.x > 60);
---
SELECT k, v FROM a WHERE EXISTS (SELECT k, SUM(x) FROM b WHERE b.k < a.k GROUP BY k HAVING SUM(x) > 100);
---
SELECT k, v FROM a WHERE EXISTS (SELECT SUM(x) FROM b WHERE b.k < a.k GROUP BY s);
---
SELECT k, v FROM a WHERE v * 10 IN (SELECT MAX(x) FROM b WHERE b.k <> a.k GROUP BY s);
---
SELECT k, v FROM a WHERE v * 20 > ANY (SELECT SUM(x) FROM b WHERE b.k >= a.k GROUP BY k);
---
SELECT k, v, EXISTS (SELECT s FROM b WHERE b.k < a.k GROUP BY s HAVING COUNT(*) > 1) FROM a;
---
SELECT k, v, v * 10 IN (SELECT MIN(x) FROM b WHERE b.k > a.k GROUP BY s) FROM a;
---
SELECT k, v FROM a WHERE NOT EXISTS (SELECT k, SUM(x) FROM b WHERE b.k < a.k GROUP BY k HAVING SUM(x) > 100);
---
SELECT k, v FROM a WHERE v * 10 NOT IN (SELECT MAX(x) FROM b WHERE b.k <> a.k GROUP BY s);
---
SELECT k, v FROM a WHERE EXISTS (SELECT k FROM b WHERE b.k = a.k GROUP BY k HAVING SUM(x) > 100);
