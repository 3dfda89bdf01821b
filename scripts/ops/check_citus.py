#!/usr/bin/python3
"""Checks the Citus distribution plan (k8s/citus/citus.yaml, distribute.sql) against the sessions
schema as the migrations build it, with the rules Citus enforces when a table is distributed:

  1. every table of the sessions schema is in the plan (distributed or reference);
  2. a per-game table (one with a game_id column) is distributed by game_id, co-located with
     sessions.games (so one game's rows, and a SubmitAction transaction, stay on one worker) —
     except a lookup table, distributed by its whole primary key (sessions.matches: a match id
     is looked up before its game exists);
  3. a distributed table's PRIMARY KEY, UNIQUE constraints and unique indexes all include its
     distribution column (Citus cannot enforce uniqueness across shards otherwise);
  4. a foreign key from a distributed table points at a reference table, or at a co-located
     distributed table with the distribution column mapped onto the distribution column;
  5. a reference table has no foreign key to a distributed table.

The schema comes from a real PostgreSQL (a throwaway server, scripts/lib/postgres.sh) that
applies migrations/sessions/*.sql; the constraints are read from its catalog. Citus itself is
not installed or run here.

The plan may drop constraints before distributing (`ALTER TABLE t DROP CONSTRAINT c;` in
distribute.sql); those are left out of the check, and primary keys it adds (`ALTER TABLE t ADD
PRIMARY KEY (...);`) are checked instead. Prints every table's verdict and fails on any
refusal.
usage: scripts/ops/check_citus.py
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PG_LIB = os.path.join(ROOT, "scripts", "lib", "postgres.sh")

def distribute_sql():
    docs = list(yaml.safe_load_all(open(os.path.join(ROOT, "k8s", "citus", "citus.yaml"))))
    return next(d for d in docs if d and d.get("kind") == "ConfigMap")["data"]["distribute.sql"]


def dropped_constraints(sql):
    """{(table, constraint)} the plan drops before distributing."""
    return set(re.findall(r"ALTER TABLE ([\w.]+) DROP CONSTRAINT (\w+);", sql))


def added_primary_keys(sql):
    """[(table, [columns])] of the primary keys the plan adds (after dropping the old ones)."""
    return [(t, [c.strip() for c in cols.split(",")])
            for t, cols in re.findall(r"ALTER TABLE ([\w.]+) ADD PRIMARY KEY \(([\w, ]+)\);", sql)]


def plan(sql):
    """{table: ("distributed", column, colocate_with) | ("reference",)} from distribute.sql."""
    out = {}
    for m in re.finditer(r"create_distributed_table\('([\w.]+)',\s*'(\w+)'"
                         r"(?:,\s*colocate_with\s*=>\s*'([\w.]+)')?\)", sql):
        out[m.group(1)] = ("distributed", m.group(2), m.group(3) or m.group(1))
    for m in re.finditer(r"create_reference_table\('([\w.]+)'\)", sql):
        out[m.group(1)] = ("reference",)
    return out


def psql(conninfo, sql):
    return subprocess.check_output(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                                    conninfo, "-c", sql], text=True)


def schema(conninfo, dropped):
    """Tables with their columns, unique keys and foreign keys, from the catalog, without the
    constraints the plan drops."""
    tables = {}
    for line in psql(conninfo, """
        SELECT c.oid::regclass, string_agg(a.attname, ',' ORDER BY a.attnum)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = 'sessions' AND c.relkind IN ('r', 'p') GROUP BY 1""").splitlines():
        name, columns = line.split("\t")
        tables[name] = {"columns": columns.split(","), "unique": [], "fks": []}
    for line in psql(conninfo, """
        SELECT i.indrelid::regclass, coalesce(con.conname, ''),
               CASE WHEN i.indisprimary THEN 'PRIMARY KEY'
               WHEN con.contype = 'u' THEN 'UNIQUE' ELSE 'UNIQUE INDEX ' || i.indexrelid::regclass END,
               coalesce((SELECT string_agg(a.attname, ',' ORDER BY k.ord)
                         FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
                         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum), '')
        FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
        WHERE n.nspname = 'sessions' AND i.indisunique""").splitlines():
        table, name, kind, columns = line.split("\t")
        if (table, name) in dropped:
            continue
        tables[table]["unique"].append((kind, columns.split(",") if columns else []))
    for table, columns in added_primary_keys(distribute_sql()):
        if table in tables:
            tables[table]["unique"].append(("PRIMARY KEY", columns))
    for line in psql(conninfo, """
        SELECT con.conrelid::regclass, con.conname, con.confrelid::regclass,
               (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(con.conkey)
                WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a
                ON a.attrelid = con.conrelid AND a.attnum = k.attnum),
               (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(con.confkey)
                WITH ORDINALITY k(attnum, ord) JOIN pg_attribute a
                ON a.attrelid = con.confrelid AND a.attnum = k.attnum)
        FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'sessions' AND con.contype = 'f'""").splitlines():
        table, name, target, columns, target_columns = line.split("\t")
        if (table, name) in dropped:
            continue
        tables[table]["fks"].append((target, columns.split(","), target_columns.split(",")))
    return tables


def refusals(tables, distribution):
    found = {}

    def refuse(table, why):
        found.setdefault(table, []).append(why)

    def group(table):  # co-location group of a distributed table
        d = distribution[table]
        return d[2] if d[2] != table else table

    for table, t in sorted(tables.items()):
        d = distribution.get(table)
        if d is None:
            refuse(table, "not in the distribution plan")
            continue
        if d[0] == "distributed":
            column = d[1]
            primary = next((c for k, c in t["unique"] if k == "PRIMARY KEY"), [])
            lookup = column != "game_id" and primary == [column] and group(table) == table
            if ("game_id" in t["columns"] and not lookup
                    and (column != "game_id" or group(table) != "sessions.games")):
                refuse(table, "a per-game table not distributed by game_id with sessions.games")
            for kind, columns in t["unique"]:
                if column not in columns:
                    refuse(table, "%s (%s) does not include the distribution column %s"
                           % (kind, ",".join(columns) or "an expression", column))
            for target, columns, target_columns in t["fks"]:
                td = distribution.get(target)
                if td is None:
                    refuse(table, "foreign key to %s, which is not in the plan" % target)
                elif td[0] == "reference":
                    continue
                elif group(target) != group(table):
                    refuse(table, "foreign key to %s, which is not co-located" % target)
                elif column not in columns or target_columns[columns.index(column)] != td[1]:
                    refuse(table, "foreign key to %s does not map %s onto its distribution column"
                           % (target, column))
        else:
            if "game_id" in t["columns"]:
                refuse(table, "a per-game table made a reference table")
            for target, _, _ in t["fks"]:
                td = distribution.get(target)
                if td is not None and td[0] == "distributed":
                    refuse(table, "reference table with a foreign key to distributed %s" % target)
    for table in distribution:
        if table not in tables:
            refuse(table, "in the plan but not created by the migrations")
    return found


def main():
    sql = distribute_sql()
    distribution = plan(sql)
    work = tempfile.mkdtemp(prefix="parlor-citus-")
    pg_dir = os.path.join(work, "pg")
    try:
        subprocess.check_call(["bash", "-c", 'source "$0"; pg_local_start "$1"', PG_LIB, pg_dir],
                              stdout=subprocess.DEVNULL)
        server = open(os.path.join(pg_dir, "conninfo")).read().strip()
        psql(server + " dbname=postgres", "CREATE DATABASE citus_plan")
        conninfo = server + " dbname=citus_plan"
        files = sorted(glob.glob(os.path.join(ROOT, "migrations", "sessions", "*.sql")))
        for path in files:
            subprocess.check_call(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", conninfo, "-f", path],
                                  stdout=subprocess.DEVNULL)
        tables = schema(conninfo, dropped_constraints(sql))
    finally:
        subprocess.call(["bash", "-c", 'source "$0"; pg_local_stop "$1"', PG_LIB, pg_dir],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.call(["rm", "-rf", work])
    found = refusals(tables, distribution)
    print("sessions schema from %d migrations: %d tables" % (len(files), len(tables)))
    for table in sorted(tables):
        d = distribution.get(table, ("missing",))
        how = "distributed by %s with %s" % (d[1], d[2]) if d[0] == "distributed" else d[0]
        verdict = "; ".join(found.get(table, [])) or "accepted"
        print("  %-32s %-48s %s" % (table, how, verdict))
    if found:
        print("FAILED: Citus would refuse %d of %d tables (docs/OPERATIONS.md \"Citus\")"
              % (len(found), len(tables)))
        return 1
    print("all %d tables accepted" % len(tables))
    return 0


sys.exit(main())
