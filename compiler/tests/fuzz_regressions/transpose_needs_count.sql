-- Fuzz seed 11 (compile fuzz run), minimized: `explain` panicked with
-- "needed call" in aggregate_join_transpose. The cross join grouped by a
-- dimension column found `AVG(v)` of the fact table as the aggregate to
-- reuse, then looked for its COUNT(*) partial, which no call needed.
-- (A global aggregate is not reusable at all: one row even of an empty table.)
CREATE TABLE f (v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE d (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE s1 (a BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE s2 (x INT, m INT) WITH ('connector' = 'blackhole');
CREATE TABLE s3 (v BIGINT, m BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO s1 SELECT AVG(v) FROM f;
INSERT INTO s3 SELECT v, MAX(v) FROM f GROUP BY v;
INSERT INTO s2 SELECT x, MAX(x) FROM f CROSS JOIN d GROUP BY x;
