"""The push channel's database reads, run on the hub's threads.

What a page hears is a version made of public facts only, the same for every viewer
of a match: the match's status, its turn number and whether that turn waits for
orders or has them all (the poll answers 304 or not on the same facts, for anybody).
The page then asks its own view through the poll, as before. The "your move" count
is the signed-in viewer's own. The watch page's version is made of what that page
shows anybody: which public matches are being played, their status and turn number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import selectors, viewers
from games.models import Match, Seat, Turn


@dataclass(frozen=True)
class Access:
    match_id: int | None
    user_id: int | None
    watch: bool = False


@dataclass(frozen=True)
class Refused:
    status: int
    code: str
    message: str


def viewer_from_cookie(cookie_header: str) -> viewers.Viewer:
    """The viewer of a request that only has its Cookie header (the site's session)."""
    try:
        jar = SimpleCookie(cookie_header)
    except CookieError:
        return viewers.ANONYMOUS
    request = HttpRequest()
    request.COOKIES = {key: morsel.value for key, morsel in jar.items()}
    raw = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not raw:
        return viewers.ANONYMOUS
    from importlib import import_module

    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(raw)
    request.user = SimpleLazyObject(lambda: get_user(request))  # type: ignore[assignment]
    return viewers.viewer_of(request)


def check(
    cookie_header: str, match_param: str | None, watch_param: str | None = None
) -> Access | Refused:
    """Who listens, to what: a match the viewer may watch (the page's own rule), the
    watch page's list of public matches (anybody's), the viewer's own count."""
    if watch_param not in (None, "1"):
        return Refused(400, "bad_watch", "watch must be 1 (the watch page's list) or left out.")
    watch = watch_param == "1"
    viewer = viewer_from_cookie(cookie_header)
    match_id: int | None = None
    if match_param is not None:
        try:
            match_id = int(match_param)
        except ValueError:
            return Refused(400, "bad_match", "match must be a match id.")
        match = (
            Match.objects.filter(pk=match_id).only("pk", "public", "status", "created_by").first()
        )
        if match is None:
            return Refused(404, "no_such_match", "No such match.")
        if not selectors.can_watch(match, viewer):
            return Refused(403, "private_match", "This match is private to its players.")
    if match_id is None and not watch and viewer.pk is None:
        return Refused(
            400, "nothing_to_hear", "Name a match or watch=1, or sign in for your move count."
        )
    return Access(match_id=match_id, user_id=viewer.pk, watch=watch)


def version_of(status: str, turn_number: int, turn_status: str | None) -> str:
    """The public part of the poll's token (games/views/board.py poll_token)."""
    return f"{status}.{turn_number}.{turn_status or '-'}"


def match_versions(match_ids: set[int]) -> dict[int, tuple[str, int]]:
    """Each match's version and turn number, in one query."""
    if not match_ids:
        return {}
    match_t, turn_t = Match._meta.db_table, Turn._meta.db_table
    marks = ", ".join(["%s"] * len(match_ids))
    sql = (
        f"SELECT m.id, m.status, m.turn_number, t.status FROM {match_t} m"
        f" LEFT JOIN {turn_t} t ON t.match_id = m.id AND t.number = m.turn_number"
        f" WHERE m.id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, sorted(match_ids))
        rows = cursor.fetchall()
    return {
        pk: (version_of(status, turn, turn_status), turn) for pk, status, turn, turn_status in rows
    }


# The count queries are written by the ORM once per database and size, ids left as
# marks (the ORM took about 4 ms of CPU to write one, several times what the
# database takes to answer it, and a ring's read makes one): _prepared.
_MARK = -(2**40)
_PREPARED: dict[tuple[str, str, int], tuple[str, tuple[Any, ...]]] = {}


def _prepared(name: str, build: Callable[[list[int]], QuerySet[Any]], ids: set[int]) -> list[Any]:
    """The rows of `build(ids)`: its SQL written for a list of marks as long as
    `ids` rounded up to a power of two (the last id repeated to fill it: an IN list
    means the same with an id twice), then run with the ids in the marks' places."""
    given = sorted(ids)
    size = 1 << (len(given) - 1).bit_length()
    key = (name, connection.vendor, size)
    found = _PREPARED.get(key)
    if found is None:
        sql, params = build([_MARK - i for i in range(size)]).query.sql_with_params()
        found = _PREPARED[key] = (sql, tuple(params))
    sql, params = found
    given += [given[-1]] * (size - len(given))
    args = [given[_MARK - p] if type(p) is int and _MARK - size < p <= _MARK else p for p in params]
    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        rows: list[Any] = cursor.fetchall()
    return rows


def _move_counts_query(user_ids: list[int]) -> QuerySet[Any]:
    return (
        selectors.seats_to_move(Seat.objects.filter(user_id__in=user_ids))
        .order_by()
        .values_list("user_id")
        .annotate(n=Count("pk"))
    )


def move_counts(user_ids: set[int]) -> dict[int, int]:
    """Each signed-in listener's "your move" count, in one query for them all (a
    query per listener made each read of a process with a thousand pages a thousand
    statements): the badge's rule (selectors.seats_to_move), grouped by player.
    tests/push/test_push_counts.py holds the two to the same answers."""
    if not user_ids:
        return {}
    counts = dict.fromkeys(user_ids, 0)
    counts.update(_prepared("move_counts", _move_counts_query, user_ids))
    return counts


def _player_counts_query(match_ids: list[int]) -> QuerySet[Any]:
    seated = Seat.objects.filter(match_id__in=match_ids, user__isnull=False).values("user_id")
    moving = selectors.seats_to_move(Seat.objects.filter(user_id__in=seated)).values("pk")
    return (
        Seat.objects.filter(user_id__in=seated)
        .order_by()
        .values_list("user_id")
        .annotate(n=Count("pk", filter=Q(pk__in=moving)))
    )


def player_counts(match_ids: set[int]) -> dict[int, int]:
    """move_counts for every person seated in one of `match_ids` (the only counts a
    change to those matches can change), in one query whose size does not grow with
    the process's pages: the hub keeps those of its listeners."""
    if not match_ids:
        return {}
    return dict(_prepared("player_counts", _player_counts_query, match_ids))


def watch_rows() -> list[tuple[int, str, int]]:
    """What the watch page shows of each match it lists (games.selectors.watch_matches:
    public, running or paused, the longest-running first, at most LOBBY_LIMIT): its
    id, status and turn number."""
    rows = (
        Match.objects.filter(public=True, status__in=[Match.Status.RUNNING, Match.Status.PAUSED])
        .order_by("started_at", "pk")
        .values_list("pk", "status", "turn_number")[: selectors.LOBBY_LIMIT]
    )
    return list(rows)


def watch_version(rows: Iterable[tuple[int, str, int]]) -> str:
    """The watch page's version: a digest of its matches' ids, statuses and turns, in
    its order (public facts, shown to anybody on the page itself)."""
    said = ";".join(f"{pk}.{status}.{turn}" for pk, status, turn in rows)
    return hashlib.blake2b(said.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Read:
    """One read of the hub: each match's version, each listener's count, and the
    watch page's version (None when nobody on this process watches it)."""

    versions: dict[int, tuple[str, int]]
    counts: dict[int, int]
    watch: str | None


def read(match_ids: set[int], user_ids: set[int], watch: bool = False) -> Read:
    """The versions of `match_ids` and the counts of `user_ids` (a part of the hub's
    sweep), and the watch page's version when `watch`."""
    return Read(
        match_versions(match_ids),
        move_counts(user_ids),
        watch_version(watch_rows()) if watch else None,
    )


def read_rung(
    match_ids: set[int], rung: set[int], new_users: set[int], watch: bool = False
) -> Read:
    """What the rings of the matches `rung` can have changed: the versions of
    `match_ids` (those of them listened to, and the matches of pages just opened),
    the counts of their players (player_counts) and of `new_users` (the viewers of
    pages just opened), the watch page's version if anybody watches. Its size
    follows the rings, not the pages; the hub merges it into what it holds."""
    counts = player_counts(rung)
    counts.update(move_counts(new_users - counts.keys()))
    return Read(
        match_versions(match_ids),
        counts,
        watch_version(watch_rows()) if watch else None,
    )
