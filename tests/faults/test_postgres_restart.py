"""PostgreSQL stopped in immediate mode (every server process quits at once, as in
a crash) under load, then started again: no submission the site answered as
accepted is lost, and the same web and worker processes carry on (persistent
connections are health-checked before reuse; the workers reconnect per task; the
clock sweep queues again the turns whose task died with the database)."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass

import pytest
from django.db import connection
from faults_reconcile import make_player, match_against_a_bot, reconcile, session_for, wait_settled
from faults_stack import Answer, Browser, Stack, wait_until

from games.models import Match, Notification, Orders, Resolution, Turn

pytestmark = pytest.mark.faults

PLAYERS = 6
DOWN_SECONDS = 2.0
# Seconds after the start within which a request may still fail (caught mid-way).
RECOVERY = 3.0
TURN_FIELD = re.compile(r'name="turn" value="(\d+)"')


@dataclass
class Sent:
    match_id: int
    turn: int
    answer: Answer


def play(browser: Browser, match_id: int, stop: threading.Event, log: list[Sent]) -> None:
    """A player who passes every time the page offers the order form."""
    while not stop.is_set():
        page = browser.get(f"/matches/{match_id}/")
        found = TURN_FIELD.search(page.body) if page.status == 200 else None
        if found is None:
            if page.status != 200:
                log.append(Sent(match_id, -1, page))
            time.sleep(0.05)
            continue
        turn = int(found.group(1))
        answer = browser.post(f"/matches/{match_id}/orders/", {"turn": turn, "actions_json": "[]"})
        log.append(Sent(match_id, turn, answer))


AFTER_RESTART = 2


def accepted_in_each(matches: list[Match], log: list[Sent], since: float) -> int:
    """The fewest orders accepted after `since` in any match still running (a random
    bot's kamikazes can finish a short battle within the test)."""
    connection.close()  # a fresh connection: the server may have restarted
    finished = set(
        Match.objects.filter(
            pk__in=[m.pk for m in matches], status=Match.Status.FINISHED
        ).values_list("pk", flat=True)
    )
    counts = {m.pk: 0 for m in matches if m.pk not in finished}
    for sent in list(log):
        if sent.answer.status == 302 and sent.answer.at > since and sent.match_id in counts:
            counts[sent.match_id] += 1
    return min(counts.values(), default=AFTER_RESTART)


def test_postgres_restarted_under_load_loses_no_accepted_orders_and_nothing_restarts(
    stack: Stack,
) -> None:
    web = stack.web(wait=False, workers=2, threads=4)
    beat = stack.beat(period=1.0, wait=False)
    workers = [stack.worker(f"w{i}", concurrency=2, wait=False) for i in range(2)]
    stack.wait_ready()
    players = [make_player(f"p{i}") for i in range(PLAYERS)]
    matches = [match_against_a_bot(player) for player in players]
    stop = threading.Event()
    log: list[Sent] = []
    threads = [
        threading.Thread(target=play, args=(stack.browser(session_for(p)), m.pk, stop, log))
        for p, m in zip(players, matches, strict=True)
    ]
    for thread in threads:
        thread.start()

    # Under load: every player has had orders accepted.
    wait_until(lambda: accepted_in_each(matches, log, since=0.0) >= 1, 30, "orders accepted")
    stack.postgres.stop("immediate")
    down = time.monotonic()
    time.sleep(DOWN_SECONDS)  # the outage itself
    stack.postgres.start()
    up = time.monotonic()
    # Under load again, until every player has had two orders accepted past the
    # recovery window (or the match is over): what the checks below need. If that
    # never comes, the checks below say which match stalled and how.
    with contextlib.suppress(AssertionError):
        wait_until(
            lambda: accepted_in_each(matches, log, since=up + RECOVERY) >= AFTER_RESTART,
            60,
            f"{AFTER_RESTART} orders accepted in each match after the restart",
            step=0.2,
        )
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    wait_settled(timeout=30, sending_allowed=None)
    accepted = [s for s in log if s.answer.status == 302]
    failed = [s for s in log if s.answer.status >= 500 or s.answer.status == 0]
    print(
        f"{len(log)} requests: {len(accepted)} orders accepted, {len(failed)} failed, "
        f"all of those within {max((s.answer.at - down for s in failed), default=0):.1f}s "
        f"of the stop (down {up - down:.1f}s)"
    )
    # Every accepted submission is stored, as the player's, and resolved.
    for sent in accepted:
        row = Orders.objects.get(match_id=sent.match_id, turn_number=sent.turn)
        assert row.source == Orders.Source.PLAYER
        assert Resolution.objects.filter(match_id=sent.match_id, turn_number=sent.turn).exists()
    # Failures only while the server was down or just after (a request caught mid-way).
    assert all(down - 1.0 <= s.answer.at <= up + RECOVERY for s in failed), [
        (s.answer.status, round(s.answer.at - up, 1), s.answer.error) for s in failed
    ]
    # The same processes carry on: every match moved on after the restart (or ended:
    # a random bot's kamikazes can finish a short battle within the test).
    for match in matches:
        after = [s for s in accepted if s.match_id == match.pk and s.answer.at > up + RECOVERY]
        match.refresh_from_db()
        if len(after) < AFTER_RESTART and match.status != Match.Status.FINISHED:
            turns = list(
                Turn.objects.filter(match=match)
                .order_by("-number")
                .values_list("number", "seat", "status", "accepted_at", "resolved_at")[:4]
            )
            seen = [
                (s.turn, s.answer.status, round(s.answer.at - up, 2), s.answer.error[:80])
                for s in log
                if s.match_id == match.pk and s.answer.at > up - 1
            ]
            raise AssertionError(
                f"match {match.pk} made no progress after the restart: latest turns {turns}; "
                f"its player's requests since the restart {seen[:20]}"
            )
    assert web.alive() and beat.alive() and all(w.alive() for w in workers)

    def waiting_for_players() -> bool:  # or over: a short battle may end within the test
        return all(m.to_move == 1 or m.status == "finished" for m in Match.objects.all())

    try:
        wait_until(waiting_for_players, 30, "player's turns")
    except AssertionError:
        rows = [(m.pk, m.status, m.turn_number, m.to_move) for m in Match.objects.all()]
        turns = [str(t) for t in Turn.objects.exclude(status="resolved")]
        raise AssertionError(f"not every player's turn: {rows} {turns}") from None
    wait_settled(sending_allowed=None)
    # An email whose sender lost the database between claiming and marking it sent
    # stays "sending": at most once, never twice (reconcile checks the mail).
    result = reconcile(stack.mail_dir, sending_allowed=Notification.objects.count())
    print(f"{result.emails} emails sent once each, {result.sending} left unsent by the crash")
