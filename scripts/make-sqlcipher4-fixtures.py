#!/usr/bin/env python3
"""Regenerates the SQLCipher 4 fixture databases used by the tests.

The machine's own SQLCipher is 3.4.1, which cannot write SQLCipher 4 files, so the
fixtures are made once with PyPI's sqlcipher3-binary (it bundles SQLCipher 4) and
committed:

    python3 -m venv /tmp/sc4 && /tmp/sc4/bin/pip install sqlcipher3-binary
    /tmp/sc4/bin/python scripts/make-sqlcipher4-fixtures.py

- sqlcipher4-default.db: SQLCipher 4 defaults (SHA-512, 256,000 iterations, 4096-byte
  pages). SQLCipher 3.x cannot read it at all.
- sqlcipher4-compat3.db: written by SQLCipher 4 with PRAGMA cipher_compatibility = 3,
  which any SQLCipher 3.x reads.
Both hold one table `t` with the rows 1, 2, 3, keyed with the passphrase below.
"""
import os
import sqlcipher3

PASSPHRASE = "sqlcipher 4 fixture"
FOLDER = os.path.join(os.path.dirname(__file__), "..", "Tests", "MigrationKitSQLCipherTests", "Fixtures")

for name, compatibility in (("sqlcipher4-default.db", None), ("sqlcipher4-compat3.db", 3)):
    path = os.path.join(FOLDER, name)
    if os.path.exists(path):
        os.remove(path)
    connection = sqlcipher3.connect(path)
    connection.execute(f"PRAGMA key = '{PASSPHRASE}'")
    if compatibility is not None:
        connection.execute(f"PRAGMA cipher_compatibility = {compatibility}")
    version = connection.execute("PRAGMA cipher_version").fetchone()[0]
    connection.execute("CREATE TABLE t (a INTEGER)")
    connection.executemany("INSERT INTO t VALUES (?)", [(1,), (2,), (3,)])
    connection.commit()
    connection.close()
    print(f"{name}: written by SQLCipher {version}")
