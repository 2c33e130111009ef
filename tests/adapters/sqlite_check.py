#!/usr/bin/env python3
"""SQLite on a directory (a hintfs FUSE mount), checked against a model.

  sqlite_check.py ops DIR SEED TXNS     every journal mode: TXNS random transactions
                                        (inserts, updates, deletes, some rolled back),
                                        then PRAGMA integrity_check and the table
                                        against a model, after a reopen too
  sqlite_check.py crash DIR LOG MODE    transactions until the database fails (the
                                        daemon was killed); after each COMMIT returns
                                        its number goes to the host file LOG
  sqlite_check.py verify DIR LOG MODE   integrity_check passes and every transaction
                                        LOG names is in the database

Exits 1 with a one-line reason on the first mismatch.
"""
import random
import sqlite3
import sys

MODES = ["DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"]


def fail(why):
    print("sqlite_check: " + why, file=sys.stderr)
    sys.exit(1)


def connect(path, mode):
    db = sqlite3.connect(path, isolation_level=None)
    got = db.execute("PRAGMA journal_mode=" + mode).fetchone()[0]
    if got.upper() != mode:
        fail(f"{path}: journal_mode={mode} gave {got}")
    db.execute("PRAGMA synchronous=FULL")
    return db


def check_integrity(db, what):
    result = db.execute("PRAGMA integrity_check").fetchall()
    if result != [("ok",)]:
        fail(f"{what}: integrity_check: {result[:3]}")


def run_ops(directory, seed, txns):
    for mode in MODES:
        rng = random.Random(seed)
        path = f"{directory}/ops-{mode.lower()}.db"
        db = connect(path, mode)
        db.execute("CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB)")
        db.execute("CREATE INDEX kv_v ON kv(v)")
        model = {}
        for t in range(txns):
            change = dict(model)
            db.execute("BEGIN")
            for _ in range(rng.randrange(1, 8)):
                k = rng.randrange(3000)
                if rng.random() < 0.2:
                    db.execute("DELETE FROM kv WHERE k=?", (k,))
                    change.pop(k, None)
                else:
                    v = rng.randbytes(rng.randrange(1, 1500))
                    db.execute("INSERT OR REPLACE INTO kv VALUES(?, ?)", (k, v))
                    change[k] = v
            # Without a journal (OFF) a ROLLBACK is undefined.
            if mode != "OFF" and rng.random() < 0.1:
                db.execute("ROLLBACK")
            else:
                db.execute("COMMIT")
                model = change
            if t % 500 == 499:
                check_integrity(db, f"{mode} after {t + 1} transactions")
        for reopen in (False, True):
            if reopen:
                db.close()
                db = connect(path, mode)
            check_integrity(db, f"{mode}{' reopened' if reopen else ''}")
            rows = dict(db.execute("SELECT k, v FROM kv"))
            if rows != model:
                fail(f"{mode}{' reopened' if reopen else ''}: the table differs from the model "
                     f"({len(rows)} rows, {len(model)} expected)")
        db.close()
        print(f"sqlite_check: {mode}: {txns} transactions, {len(model)} rows: ok")


def run_crash(directory, log_path, mode):
    rng = random.Random(mode)
    with open(log_path, "a") as log:
        try:
            db = connect(f"{directory}/crash-{mode.lower()}.db", mode)
            db.execute("CREATE TABLE IF NOT EXISTS txn(id INTEGER PRIMARY KEY)")
            db.execute("CREATE TABLE IF NOT EXISTS kv(k INTEGER PRIMARY KEY, v BLOB)")
            t = 0
            while True:
                t += 1
                db.execute("BEGIN")
                db.execute("INSERT INTO txn VALUES(?)", (t,))
                for _ in range(rng.randrange(1, 6)):
                    db.execute("INSERT OR REPLACE INTO kv VALUES(?, ?)",
                               (rng.randrange(2000), rng.randbytes(rng.randrange(1, 3000))))
                db.execute("COMMIT")
                log.write(f"{t}\n")
                log.flush()
        except (sqlite3.Error, OSError):
            return  # the daemon is gone: done


def run_verify(directory, log_path, mode):
    with open(log_path) as log:
        committed = [int(line) for line in log if line.strip()]
    if not committed:
        fail(f"{mode}: no transaction was committed before the kill")
    db = connect(f"{directory}/crash-{mode.lower()}.db", mode)
    check_integrity(db, f"{mode} after the kill")
    have = {row[0] for row in db.execute("SELECT id FROM txn")}
    lost = [t for t in committed if t not in have]
    if lost:
        fail(f"{mode}: {len(lost)} committed transactions lost across the kill, first {lost[0]}")
    print(f"sqlite_check: {mode}: all {len(committed)} committed transactions survived the kill")


def main(argv):
    if len(argv) != 5 or argv[1] not in ("ops", "crash", "verify"):
        fail("usage: sqlite_check.py ops DIR SEED TXNS | crash|verify DIR LOG MODE")
    if argv[1] == "ops":
        run_ops(argv[2], int(argv[3]), int(argv[4]))
    elif argv[1] == "crash":
        run_crash(argv[2], argv[3], argv[4].upper())
    else:
        run_verify(argv[2], argv[3], argv[4].upper())


if __name__ == "__main__":
    main(sys.argv)
