CREATE TABLE a (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/a2.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE b (k INT, x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/b.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE c (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/c.csv', 'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE d (dt DATE, p INT, x INT) WITH ('connector' = 'filesystem', 'path' = 'docs/flink-observed/subquery-probes/d.csv', 'format' = 'csv', 'csv.null-literal' = '')
;
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND (b.x > a.v * 10 OR b.x IS NULL));
---
SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND (b.x > a.v * 10 OR b.x IS NULL));
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND (b.x > a.v * 10 OR b.x IS NULL)) FROM a;
---
SELECT k, v, (SELECT COUNT(*) FROM b WHERE b.k = a.k AND (b.x > a.v * 10 OR b.x IS NULL)) FROM a;
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.x > a.k * 60);
---
SELECT k, v, EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.x > a.k * 60), (SELECT COUNT(*) FROM b WHERE b.k = a.k OR b.x > a.k * 60), v * 10 IN (SELECT x FROM b WHERE b.k = a.k OR b.x > a.k * 60) FROM a;
---
SELECT k, v FROM a WHERE v * 10 NOT IN (SELECT x FROM b WHERE b.k = a.k AND (b.s = 'y' OR a.v IS NULL));
---
SELECT k, v FROM a WHERE v IN (SELECT x / 10 FROM b WHERE b.k = a.k OR a.k IS NULL);
---
SELECT k, v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k OR b.k IS NULL);
---
SELECT k, v FROM a WHERE v * 10 NOT IN (SELECT x FROM b WHERE b.k <> a.k GROUP BY x);
---
SELECT a.k, c.s FROM a JOIN c ON c.n = (SELECT MAX(x) FROM b WHERE b.k = a.k) / 50;
---
SELECT a.k, c.s FROM a JOIN c ON c.n IN (SELECT x / 50 FROM b WHERE b.k = a.k);
---
SELECT dt, p, x, SUM(x) OVER (PARTITION BY p ORDER BY dt RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND CURRENT ROW) FROM d;
---
SELECT dt, p, x, COUNT(x) OVER (PARTITION BY p ORDER BY dt RANGE BETWEEN INTERVAL '1' YEAR PRECEDING AND CURRENT ROW) FROM d;
---
SELECT dt, p, x, SUM(x) OVER (PARTITION BY p ORDER BY dt GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM d;
---
SELECT dt, p, x, STDDEV_POP(x) OVER (PARTITION BY p ORDER BY dt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM d;
---
SELECT dt, p, x, VAR_SAMP(x) OVER (PARTITION BY p ORDER BY dt) FROM d;
---
SELECT dt, p, x, STDDEV_SAMP(x) OVER (PARTITION BY p) FROM d;
---
SELECT dt, p, x, VAR_POP(CAST(x AS DOUBLE)) OVER (PARTITION BY p ORDER BY dt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM d;
---
SELECT dt, p, x, LISTAGG(CAST(x AS STRING)) OVER (PARTITION BY p ORDER BY dt) FROM d;
---
SELECT dt, p, x, LISTAGG(CAST(x AS STRING), '-') OVER (PARTITION BY p ORDER BY dt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM d;
---
SELECT (SELECT MAX(x) FROM b) AS m, COUNT(*) FROM a GROUP BY (SELECT MAX(x) FROM b);
---
SELECT k, COUNT(*) FROM a GROUP BY k, (SELECT MAX(x) FROM b);
---
SELECT COUNT(*) FROM a GROUP BY (SELECT MAX(x) FROM b WHERE b.k = a.k);
---
SELECT (SELECT MAX(x) FROM b WHERE b.k = a.k), COUNT(*) FROM a GROUP BY (SELECT MAX(x) FROM b WHERE b.k = a.k);
---
SELECT k, v FROM a ORDER BY (SELECT MAX(x) FROM b WHERE b.k = a.k) DESC NULLS LAST, v;
---
SELECT k, v FROM a ORDER BY (SELECT MAX(x) FROM b) + v, k;
---
SELECT k, v FROM a ORDER BY EXISTS (SELECT 1 FROM b WHERE b.k = a.k), v;
---
SELECT a.k, c.s FROM a JOIN c ON c.n = (SELECT MAX(x) FROM b WHERE b.k = a.k) / 20;
---
SELECT a.k, c.s FROM a LEFT JOIN c ON EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.s = c.s);
---
SELECT a.k, c.s FROM a JOIN c ON c.n < a.v AND EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.s = c.s);
