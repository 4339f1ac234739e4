"""Statements prepared on a PostgreSQL connection and run by EXECUTE, in one round trip.

Sent as text, PostgreSQL parses and plans a statement every time it comes: on a warm
connection about 0.03 to 0.1 ms a statement, as long as running the small reads and
writes on a page's or a turn's way. Prepared the first time a connection sends it,
each is planned once. The PREPAREs go with their first EXECUTEs in the same query
string (Django's cursor binds on the client: psycopg's ClientCursor), so a request or
a task makes the same round trips either way.

A PREPARE outlives a rolled-back transaction. A statement no longer there (DEALLOCATE
ALL by someone, a pooler's reset) or no longer matching its tables (a migration that
changed a returned column's type) is Django's DatabaseError: its name is forgotten
and it is prepared again, at once outside a transaction, else on the next call (an
error spoils the transaction it happens in).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError, connection


class Prepared:
    """The statements prepared on one PostgreSQL connection: kind -> name (a kind is a
    name and a number: the page version's signed-in flag, or a statement's place in
    execute_prepared's list)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.names: dict[tuple[str, int], str] = {}
        # A statement's converters of the page version's own columns (selectors'
        # _readers), once it has been run through the cursor (None: always through
        # the cursor).
        self.readers: dict[str, list[Any] | None] = {}
        # Each name's statement as prepared ($1, $2... for its parameters): what an
        # EXECUTE in a log or a captured query stands for.
        self.texts: dict[str, str] = {}
        self.made = 0


def prepared_state(db: Any = connection) -> Prepared:
    """What is prepared on `db`'s connection (a new connection starts with nothing)."""
    raw = db.connection
    state = getattr(db, "_h3_prepared", None)
    if state is None or state.raw is not raw:
        state = Prepared(raw)
        db._h3_prepared = state
    return state


def sql_id(value: int | None) -> str:
    """An id (or None) as SQL text: a Python int is only ever written as digits."""
    if value is None:
        return "NULL"
    if type(value) is not int:
        raise TypeError(f"an id must be an int, not {type(value).__name__}")
    return str(value)


def execute_prepared(
    cursor: Any,
    kind: str,
    statements: Sequence[tuple[str, Sequence[Any]]],
    *,
    db: Any = connection,
    head: Sequence[str] = (),
) -> None:
    """Run `statements` (each its SQL with %s placeholders and their values) in one
    round trip, each prepared on `db`'s connection the first time: the cursor is left
    on the first one's rows, nextset() goes on to the next.

    Whole numbers and None are written into the EXECUTE as digits and NULL; any other
    value (a status, a time) is bound there by the client, as Django's cursor binds
    it. `head`: statements without values sent before them in the same query string
    (a BEGIN), whose results the cursor is moved past."""
    state = prepared_state(db)
    bound: list[Any] = []
    runs = [
        f"({', '.join(_argument(value, bound) for value in values)})" for _, values in statements
    ]
    names = [state.names.get((kind, at)) for at in range(len(statements))]
    if all(names):
        executes = [f"EXECUTE {name}{run}" for name, run in zip(names, runs, strict=True)]
        try:
            _send(cursor, [*head, *executes], bound, skip=len(head))
            return
        except DatabaseError:
            for at in range(len(statements)):
                state.names.pop((kind, at), None)
            if db.in_atomic_block:
                raise  # the transaction is spoilt: no second try in it
    state.made += 1
    made = [f"h3_{kind}_{at}_{state.made}" for at in range(len(statements))]
    prepares = []
    for name, (sql, values) in zip(made, statements, strict=True):
        pieces = sql.split("%s")
        assert len(pieces) == len(values) + 1, "one value for each placeholder"
        assert "%" not in "".join(pieces), "no other % in a statement to prepare"
        numbered = pieces[0] + "".join(f"${at}{piece}" for at, piece in enumerate(pieces[1:], 1))
        prepares.append(f"PREPARE {name} AS {numbered}")
        state.texts[name] = numbered
    executes = [f"EXECUTE {name}{run}" for name, run in zip(made, runs, strict=True)]
    _send(cursor, [*head, *prepares, *executes], bound, skip=len(head) + len(prepares))
    for at, name in enumerate(made):
        state.names[kind, at] = name


def statement_gone(error: BaseException) -> bool:
    """Whether Django's `error` says a prepared statement can no longer run as it was
    prepared: it does not exist (DEALLOCATE ALL, a session reset), or a migration
    changed the type of a column it returns ("cached plan must not change result
    type"). Either way its name is forgotten (execute_prepared) and preparing it
    again under a new one runs."""
    from psycopg import errors

    cause = error.__cause__
    return isinstance(cause, errors.InvalidSqlStatementName) or (
        isinstance(cause, errors.FeatureNotSupported)
        and "cached plan must not change result type" in str(cause)
    )


def _argument(value: Any, bound: list[Any]) -> str:
    """An EXECUTE's argument: digits for a whole number, NULL for None, else a
    placeholder whose value the client binds."""
    if value is None or type(value) is int:
        return sql_id(value)
    bound.append(value)
    return "%s"


def _send(cursor: Any, statements: list[str], bound: list[Any], skip: int) -> None:
    cursor.execute("; ".join(statements), bound or None)
    for _ in range(skip):
        cursor.nextset()  # past a head statement's or a PREPARE's own (empty) result
