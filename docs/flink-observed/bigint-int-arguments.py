from pyflink.table import EnvironmentSettings, TableEnvironment
t = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
t.execute_sql("CREATE TABLE s (x STRING, n BIGINT, i INT, si SMALLINT) WITH ('connector'='datagen','number-of-rows'='2','fields.x.length'='5','fields.n.min'='1','fields.n.max'='3','fields.i.min'='1','fields.i.max'='3','fields.si.min'='1','fields.si.max'='3')")
for c in ["SELECT SUBSTR(x, si) FROM s", "SELECT LEFT(x, n) FROM s", "SELECT RIGHT(x, n) FROM s", "SELECT LPAD(x, n, 'a') FROM s", "SELECT RPAD(x, n, 'a') FROM s",
          "SELECT REPEAT(x, n) FROM s", "SELECT OVERLAY(x PLACING 'a' FROM n) FROM s", "SELECT LOCATE('a', x, n) FROM s", "SELECT SPLIT_INDEX(x, ',', n) FROM s", "SELECT CHR(n) FROM s", "SELECT SUBSTRING(x, n) FROM s"]:
    try:
        print("OK", c, [str(r) for r in t.execute_sql(c).collect()])
    except Exception as e:
        lines = [l.strip() for l in str(e).split("\n") if "Caused by" in l or "Exception:" in l]
        print("FAIL", c, lines[-1][:200] if lines else str(e)[:200])
