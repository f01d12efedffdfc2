"""Reading fixtures/tpch/job.sql: the subset statement set, the source DDL, the INSERTs."""
import re

SUPPORTED = "q01 q03 q05 q06 q07 q08 q09 q10 q12 q13 q14 q19".split()
# All 22 (issue 12: subqueries, so every query compiles): `run.py --queries all`.
ALL = [f"q{i:02}" for i in range(1, 23)]
BEGIN = "EXECUTE STATEMENT SET\nBEGIN\n"


def split_inserts(body):
    inserts = []
    for line in body.splitlines():
        if line.lstrip().startswith("INSERT INTO "):
            inserts.append("")
        if inserts:
            inserts[-1] += line + "\n"
    return inserts


def statement_set_of(text, keep):
    """Like compiler/tests/suite/tpch.rs `statement_set_of`: the DDL of job.sql and only the INSERTs into `keep`."""
    at = text.index(BEGIN) + len(BEGIN)
    ddl, body = text[:at], text[at:].rstrip()
    assert body.endswith("END;"), "the set ends with END;"
    kept = [i for i in split_inserts(body[:-len("END;")]) if i.split()[2] in keep]
    assert len(kept) == len(keep), "every kept query is in job.sql"
    return ddl + "".join(kept) + "END;\n"


def parse_job(text):
    """({source table: (path, [(column, type)])}, [(sink, select text)]) of a statement-set job."""
    tables = {}
    for m in re.finditer(r"CREATE TABLE (\w+)\s*\((.*?)\)\s*WITH\s*\((.*?)\);", text, re.S):
        name, cols, opts = m.groups()
        path = re.search(r"'path'\s*=\s*'([^']*)'", opts).group(1)
        if not path.startswith("data/"):
            continue  # a sink
        columns = []
        for line in cols.splitlines():
            line = line.strip().rstrip(",")
            if line:
                col, typ = line.split(None, 1)
                columns.append((col, typ))
        tables[name] = (path, columns)
    at = text.index(BEGIN) + len(BEGIN)
    body = text[at:].rstrip()[:-len("END;")]
    inserts = []
    for ins in split_inserts(body):
        m = re.match(r"\s*INSERT INTO (\w+)\s*(.*)$", ins, re.S)
        select = m.group(2).strip()
        select = select[:-1] if select.endswith(";") else select
        inserts.append((m.group(1), select))
    return tables, inserts
