"""Adding a column to an older cache file, safe when two runs open it at once."""

from __future__ import annotations

import sqlite3


def add_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """`ALTER TABLE ... ADD COLUMN`; another process adding it first is no error."""
    try:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
    except sqlite3.OperationalError as exc:
        if "duplicate column" not in str(exc).lower():
            raise
