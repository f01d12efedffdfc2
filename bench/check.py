"""Check that every engine wrote the same seven outputs (run.py calls this with the venv's Python).

    .venv/bin/python check.py REF=out-handwritten duckdb-seq=out-duckdb-seq ...

The first engine is the reference. A sink is read from DIR/<sink>/ (every file
in it not starting with '.' or '_': Flink's part files) or from DIR/<sink>.csv,
as csv without header, every field as text, and normalised per column kind:
numbers to DOUBLE, dates and timestamps to TIMESTAMP (so `2024-01-05 08:01:29.36`,
`2024-01-05T08:01:29.360` and a quoted Flink timestamp are equal), strings as
they are. Then each engine's rows are joined with the reference's on the sink's
key columns (group keys, or order_id for the filter sinks): rows only on one
side, duplicate keys and rows whose values differ (numbers beyond a relative
1e-9, other kinds at all) are reported. Prints a markdown table; exit 1 when
any engine disagrees or misses a sink.
"""
import os
import sys

import duckdb

# sink -> (number of key columns, column kinds: n = number, t = date/timestamp, s = string)
SINKS = {
    "hourly_stats": (2, "tnnnnnn"),
    "product_stats": (1, "nnnnnnn"),
    "user_stats": (1, "nnnnntt"),
    "region_day_stats": (2, "stnnnnnn"),
    "eu_orders": (1, "nnnsnnnt"),
    "us_orders": (1, "nnnsnnnt"),
    "city_stats": (1, "snnnnn"),
}
REL_TOL = 1e-9


def sink_files(out_dir, sink):
    d = os.path.join(out_dir, sink)
    if os.path.isdir(d):
        files = []
        for root, dirs, names in os.walk(d):
            dirs[:] = sorted(x for x in dirs if not x.startswith((".", "_")))
            files += [os.path.join(root, n) for n in sorted(names) if not n.startswith((".", "_"))]
        return files
    if os.path.isfile(d + ".csv"):
        return [d + ".csv"]
    return None


def load(con, table, files, kinds):
    cols = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(kinds)))
    norm = []
    for i, k in enumerate(kinds):
        if k == "n":
            norm.append(f"TRY_CAST(c{i} AS DOUBLE) AS c{i}")
        elif k == "t":
            norm.append(f"TRY_CAST(replace(c{i}, 'T', ' ') AS TIMESTAMP) AS c{i}")
        else:
            norm.append(f"c{i}")
    bad = " + ".join(f"(count(c{i}) - count(TRY_CAST(replace(c{i}, 'T', ' ') AS {'DOUBLE' if k == 'n' else 'TIMESTAMP'})))"
                     for i, k in enumerate(kinds) if k != "s") or "0"
    src = (f"read_csv({files!r}, header = false, delim = ',', quote = '\"', escape = '\"', "
           f"auto_detect = false, columns = {{{cols}}})")
    con.execute(f"CREATE OR REPLACE TEMP TABLE raw AS SELECT * FROM {src}")
    unparsed = con.execute(f"SELECT {bad} FROM raw").fetchone()[0]
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT {', '.join(norm)} FROM raw")
    con.execute("DROP TABLE raw")
    return unparsed


def compare(con, ref, other, nkeys, kinds):
    on = " AND ".join(f"a.c{i} = b.c{i}" for i in range(nkeys))
    diffs = []
    for i, k in enumerate(kinds[nkeys:], start=nkeys):
        if k == "n":
            diffs.append(f"(a.c{i} IS DISTINCT FROM b.c{i} AND NOT coalesce(abs(a.c{i} - b.c{i}) <= "
                         f"{REL_TOL} * greatest(abs(a.c{i}), abs(b.c{i}), 1e-300), false))")
        else:
            diffs.append(f"a.c{i} IS DISTINCT FROM b.c{i}")
    differ = " OR ".join(diffs) or "false"
    q = f"""
        SELECT count(*) FILTER (WHERE b.c0 IS NULL),
               count(*) FILTER (WHERE a.c0 IS NULL),
               count(*) FILTER (WHERE a.c0 IS NOT NULL AND b.c0 IS NOT NULL AND ({differ}))
        FROM {ref} a FULL JOIN {other} b ON {on}"""
    only_ref, only_other, differing = con.execute(q).fetchone()
    example = None
    if differing:
        example = con.execute(f"SELECT a.*, b.* FROM {ref} a JOIN {other} b ON {on} WHERE {differ} LIMIT 1").fetchone()
    return only_ref, only_other, differing, example


def dup_keys(con, table, nkeys):
    keys = ", ".join(f"c{i}" for i in range(nkeys))
    return con.execute(f"SELECT count(*) - count(DISTINCT ({keys})) FROM {table}").fetchone()[0]


def main():
    engines = [a.split("=", 1) for a in sys.argv[1:]]
    if not engines:
        sys.exit(__doc__)
    con = duckdb.connect()
    ref_name = engines[0][0]
    failures = 0
    counts = {}  # (engine, sink) -> rows
    notes = {}   # engine -> [problem]
    for e, (name, out_dir) in enumerate(engines):
        notes[name] = []
        for sink, (nkeys, kinds) in SINKS.items():
            files = sink_files(out_dir, sink)
            table = f"e{e}_{sink}"
            if files is None:
                notes[name].append(f"{sink}: missing")
                continue
            try:
                unparsed = load(con, table, files, kinds)
            except duckdb.Error as err:
                notes[name].append(f"{sink}: unreadable ({str(err).splitlines()[0]})")
                continue
            counts[(name, sink)] = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            if unparsed:
                notes[name].append(f"{sink}: {unparsed} values that are not numbers/timestamps")
            dups = dup_keys(con, table, nkeys)
            if dups:
                notes[name].append(f"{sink}: {dups} duplicate keys")
            if e > 0 and (ref_name, sink) in counts:
                only_ref, only_other, differing, example = compare(con, f"e0_{sink}", table, nkeys, kinds)
                if only_ref or only_other or differing:
                    msg = f"{sink}: {only_ref} rows only in {ref_name}, {only_other} only here, {differing} differ"
                    if example:
                        n = len(kinds)
                        msg += f" (e.g. {ref_name} {list(example[:n])} vs {list(example[n:])})"
                    notes[name].append(msg)

    print(f"| engine | {' | '.join(SINKS)} | agrees with {ref_name} |")
    print(f"|---|{'---:|' * len(SINKS)}---|")
    for name, _ in engines:
        rows = " | ".join(str(counts.get((name, s), "—")) for s in SINKS)
        verdict = "reference" if name == ref_name and not notes[name] else ("yes" if not notes[name] else "**no**")
        print(f"| {name} | {rows} | {verdict} |")
    for name, _ in engines:
        for n in notes[name]:
            failures += 1
            print(f"- {name}: {n}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
