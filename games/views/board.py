"""The board page's own endpoints: the poll, history pages, a past turn's movie,
click hints for the second action, and a finished match's replay page.

Everything a player receives here is built from that player's view of a state
(engine.view) and copy of the events (engine.events_view); a spectator's from the
spectator's. Once the match is over the whole record is public.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

import engine
from games import history, presentation, selectors, services, viewers
from games.context_processors import Frame
from games.errors import Conflict, from_engine_error
from games.models import Match, Resolution, Seat
from games.push import kept
from games.views.told import told
from helium3_site import pagecache

log = logging.getLogger(__name__)

# A poll that finds many turns played since the last look animates the newest few.
MOVIE_MAX_TURNS = 8
MAX_HINT_QUERY = 2_000
BOARD_CACHE_SECONDS = 600


def viewer_of(
    request: HttpRequest, match_id: int, viewer: viewers.Viewer | None = None
) -> tuple[Match, list[Seat], Seat | None]:
    """The match (without its big record), its seats and the viewer's seat. 404 if none.

    Two queries; the viewer's seat comes from the seat list, not a third query.
    `viewer`: the requester as games.viewers remembers them (no session lookup),
    else request.user. The caller checks who may watch (selectors.can_watch).
    """
    match = get_object_or_404(Match.objects.defer("record", "initial_state"), pk=match_id)
    if viewer is not None:
        user_id = viewer.pk
    else:
        user_id = request.user.pk if request.user.is_authenticated else None
    seats, seat = seats_of(match, user_id)
    return match, seats, seat


def seats_of(match: Match, user_id: int | None) -> tuple[list[Seat], Seat | None]:
    """The match's seats and user `user_id`'s among them (None: a spectator), one query."""
    seats = selectors.match_seats(match)
    return seats, seat_among(seats, user_id)


def seat_among(seats: list[Seat], user_id: int | None) -> Seat | None:
    """User `user_id`'s seat among `seats` (None: a spectator, or no user)."""
    return next((s for s in seats if user_id is not None and s.user_id == user_id), None)


def _watching(request: HttpRequest, match_id: int) -> tuple[Match, list[Seat], Seat | None]:
    """viewer_of, refused with 403 unless the viewer may watch this match."""
    match, seats, seat = viewer_of(request, match_id)
    if not selectors.can_watch(match, request.user, seat):
        raise PermissionDenied("This match is private to its players.")
    return match, seats, seat


def poll_token(
    status: str, turn_number: int, turn_status: str | None, standin: str | None, steps: int = 0
) -> str:
    """What the poll compares: anything that changes the page changes one of these
    (`steps`: the steps resolved in a turn of steps, which only its own seat's page
    shows)."""
    token = f"{status}.{turn_number}.{turn_status or '-'}.{standin or '-'}"
    return f"{token}.{steps}" if steps else token


def page_token(page: selectors.MatchPage) -> str:
    match = page.match
    steps = 0
    # Only the seat that plays a turn of steps sees its page change at each step.
    if page.seat is not None and page.turn is not None and page.turn.seat == page.seat.number:
        try:
            steps = engine.step(match.state)
        except engine.EngineError:
            steps = 0
    return poll_token(
        match.status,
        match.turn_number,
        page.turn.status if page.turn is not None else None,
        page.seat.standin_bot if page.seat is not None else None,
        steps,
    )


def _int_param(raw: str | None, default: int, *, low: int = 0, high: int = 10**6) -> int:
    try:
        value = int(raw) if raw is not None else default
    except ValueError:
        return default
    return min(max(value, low), high)


def clock_text(ms: int) -> str:
    """Battle time as m:ss."""
    seconds = max(0, int(ms)) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def engine_refusal(error: engine.EngineError) -> Conflict:
    """What a page or poll answers when the engine will not read the match's state:
    the request was fine, the match is not in a state to draw (409, never a 500)."""
    return Conflict(error.code, f"This match cannot be shown right now: {error.message}")


def _hints_or_none(
    shown: presentation.Presentation, view: dict[str, Any], match_id: int
) -> dict[str, Any] | None:
    """The click hints of the viewer's turn (None on another's). They are an aid: should
    the engine refuse them, the page is drawn without (orders are still judged when sent)."""
    try:
        return shown.hints(view)
    except engine.EngineError:
        log.exception(
            "match %s turn %s: no hints for seat %s", match_id, view.get("turn"), view.get("viewer")
        )
        return None


def board_assets(shown: presentation.Presentation) -> dict[str, str]:
    """The static files that draw and animate the game's board on a page."""
    return {
        "planner_script": shown.planner_script or "games/board.js",
        "board_style": shown.stylesheet,
    }


def orders_context(page: selectors.MatchPage, form: Any = None) -> dict[str, Any]:
    """The orders panel's context on the viewer's move: the form (a fresh one unless
    one with errors is given), its controls and note, and in a turn at once the
    orders the viewer already sent, which fill the fresh form."""
    if not page.my_move or page.view is None:
        return {"form": None}
    shown = presentation.get(page.match.ruleset)
    sent = selectors.orders_sent(page)
    if form is None:
        initial = {"turn": page.view.get("turn")}
        if sent is not None:
            initial.update(shown.orders_initial(sent))
        form = shown.orders_form(None, view=page.view, initial=initial)
    return {
        "form": form,
        "order_rows": form.rows(),
        "orders_note": shown.orders_note,
        "orders_sent": sent,
        "orders_sent_words": _sent_words(sent),
    }


def _sent_words(sent: dict[str, Any] | None) -> str:
    """Orders sent in a few words: "3 moves", "1 action", "a pass", "the loadout"."""
    for key, value in (sent or {}).items():
        if isinstance(value, list) and key not in ("seat", "turn"):
            if not key.endswith("s"):  # one thing of several parts (Skyport's loadout)
                return f"the {key}"
            if not value:
                return "a pass"
            return f"{len(value)} {key if len(value) != 1 else key.removesuffix('s')}"
    return "orders"


def board_context(page: selectors.MatchPage, *, board: bool = True) -> dict[str, Any]:
    """The board page's part of the match page context (also the poll's fragment).

    `board=False`: an answer that does not show the board (a poll that plays the
    turns since as a movie): the board is neither drawn nor looked up, nor the
    hints on another seat's turn."""
    view = page.view
    context: dict[str, Any] = {
        "poll_token": page_token(page),
        "hints": None,
        "length_text": clock_text(page.match.length_ms),
        "legend_template": presentation.get(page.match.ruleset).legend_template,
        **board_assets(presentation.get(page.match.ruleset)),
    }
    if view is None:
        return context
    context["progress"] = presentation.get(page.match.ruleset).progress(view)
    context["seat_details"] = presentation.get(page.match.ruleset).seat_details(view)
    context["figures"] = presentation.get(page.match.ruleset).figures(page.match, view)
    viewer = page.seat.number if page.seat else None
    match = page.match
    shown = presentation.get(match.ruleset)
    seat_label = f"seat {viewer}" if viewer is not None else "a spectator"
    if "clock_ms" not in view:
        # A view without a battle clock (the test rulesets) may change within a turn
        # (a turn of steps): drawn for each request, never kept.
        caption = f"{shown.place} at turn {view.get('turn')}, as {seat_label} sees it"
        context["board"] = shown.board(view, caption=caption)
        if page.my_move:
            context["hints"] = _hints_or_none(shown, view, match.pk)
        return context
    # The board and the hints change only with the state, which changes only when a
    # turn is resolved: keep them for the turn (the hot page then renders no grid),
    # each under a key of its own, so that an answer needs only what it shows: the
    # hints only on the viewer's own turn (the state a player sees right after sending,
    # or while the bots play, is another seat's turn, where no order of its fits), the
    # board only in an answer that shows it. A poll that plays the turns since as a
    # movie keeps the hints it works out for the page's next answer.
    # They are kept in this process's memory, as the pages are (helium3_site/pagecache.py):
    # through the shared cache a first view after a turn spent about 0.57 ms on the two
    # round trips (the lookup and the store), more than drawing the board again, which
    # another process then does once for the turn.
    # The seed tells this match from an earlier one that had the same id (a reset database).
    turn_key = f"{match.ruleset}:{match.pk}:{match.seed}:{view['turn']}:{view['clock_ms']}:{view['over']}:{viewer}"
    board_key, hints_key = f"h3:board:{turn_key}", f"h3:hints:{turn_key}"
    context.update(destroyed=shown.lost(view), clock_text=clock_text(view["clock_ms"]))
    wanted = ([board_key] if board else []) + ([hints_key] if page.my_move else [])
    if not wanted:
        return context
    memo = pagecache.pages()
    found = memo.get_many(wanted)
    made: dict[str, Any] = {}
    if board:
        drawn = found.get(board_key)
        if not isinstance(drawn, str):
            caption = f"{shown.place} at turn {view['turn']}, as {seat_label} sees it"
            drawn = made[board_key] = str(shown.board(view, caption=caption))
        context["board"] = mark_safe(drawn)  # noqa: S308 - the presentation's own escaped output
    if page.my_move:
        # Kept in a tuple: the hints may be None (no planner, or refused by the engine).
        hints = found.get(hints_key)
        if not isinstance(hints, tuple):
            hints = made[hints_key] = (_hints_or_none(shown, view, match.pk),)
        context["hints"] = hints[0]
    if made:
        memo.set_many(made, BOARD_CACHE_SECONDS)
    return context


def _past_view(state: dict[str, Any], viewer: int | None, over: bool) -> dict[str, Any]:
    """A past state as the viewer saw it; once the match is over the record is public."""
    if over:
        return {**state, "viewer": viewer}
    return engine.view(state, viewer)


def movie_context(
    match: Match,
    viewer: int | None,
    first: int,
    last: int,
    *,
    with_end: bool,
    view: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Turns first..last as the viewer's copy, one entry per turn (games/history.py),
    with the board before them (and after).

    `view`: the viewer's view of the match's state now (engine.view), if the caller
    has it: the board after the last turn, when that turn left the state as it is
    now, is drawn from it rather than from the state parsed once more.

    Two queries at most: the resolutions (and the one before, for its state), and
    the initial state when the movie starts at turn 0.
    """
    over = match.status == Match.Status.FINISHED
    rows = selectors.movie_rows(match, first - 1, last)
    if first == 0:
        initial = Match.objects.filter(pk=match.pk).values_list("initial_state", flat=True).first()
        start_state = initial
    else:
        # A turn of steps has a row per step: the board before turn `first` is its last.
        before = [r for r in rows if r.turn_number == first - 1]
        start_state = before[-1].state if before else None
    reader = history.reader_for(match.ruleset, match.state, viewer, over=over)
    # A turn still being played is in no one's movie but its own seat's page.
    played = [r for r in rows if r.turn_number >= first and reader.may_read(r.turn_number, r.seat)]
    if start_state is None or not played:
        raise Http404("No such turn.")
    start = _past_view(start_state, viewer, over)
    shown = presentation.get(match.ruleset)
    turns = []
    for turn in history.entries(played, reader):
        steps = turn.get("steps")
        events = turn["events"]
        turns.append(
            {
                "number": turn["turn"],
                "seat": turn["seat"],
                "turn_ms": turn["turn_ms"],
                "events": events,
                "lines": shown.sentences(events)
                if steps is None
                else [line for step in steps for line in shown.sentences(step["events"])],
                # Each line at the moment its events play (a turn of steps: its events').
                "told": told(shown.sentences, events)
                if steps is None
                else [t for step in steps for t in told(shown.sentences, step["events"])],
            }
        )
    context: dict[str, Any] = {
        "movie_start": shown.board(start, caption=f"{shown.place} before turn {first}"),
        "movie_data": {"turns": turns, "timing": shown.timing, "clock_ms": start.get("clock_ms")},
        "movie_end": None,
    }
    if with_end:
        after = played[-1].state
        if view is not None and not over and after == match.state:
            end = view  # engine.view(after, viewer) is this view: the same state and seat
        else:
            end = _past_view(after, viewer, over)
        context["movie_end"] = shown.board(end, caption=f"{shown.place} after turn {last}")
    return context


@require_GET
def match_poll(request: HttpRequest, match_id: int) -> HttpResponse:
    """304 while nothing changed (one query, none while this process keeps the
    version: games/push/kept.py); otherwise the new panel, history and
    orders, and a movie of the turns resolved since the page's turn `since`."""
    viewer = viewers.viewer_of(request)
    # No ring since this process read the version: it is still the match's, and a
    # page that has it is told so with no query (games/push/kept.py).
    heard = kept.mark()
    known = kept.kept(match_id, viewer.pk, heard)
    if (
        known is not None
        and request.GET.get("v") == version_token(known)
        and selectors.can_watch(known.match, viewer, known.seat, seat_known=True)
    ):
        return _not_modified(known, viewer)
    version = selectors.match_page_version(match_id, viewer)
    if version is None:
        raise Http404("No such match.")
    # The same rule as the page's, on the row just read (no second query for it).
    if not selectors.can_watch(version.match, viewer, version.seat, seat_known=True):
        raise PermissionDenied("This match is private to its players.")
    if request.GET.get("v") == version_token(version):
        kept.keep(match_id, viewer.pk, version.without_row(), heard)
        return _not_modified(version, viewer)
    seen(version, viewer)
    # The match came with the version (the same moment of it), its seats and the
    # history's newest page with one query (on PostgreSQL; the viewer's seat number,
    # which the history depends on, came with the version).
    match = version.page_match()
    read = selectors.seats_and_history(
        match, version.seat.number if version.seat is not None else None
    )
    seats, seat = read.seats, seat_among(read.seats, viewer.pk)
    if not selectors.can_watch(match, viewer, seat, seat_known=True):
        raise PermissionDenied("This match is private to its players.")
    # The badge's count came with the version (no query of its own).
    shown = Frame(request, viewer=viewer, moves=version.moves, challenges=version.challenges)
    try:
        response = _poll_answer(request, match, seats, seat, shown, version, read)
    except engine.EngineError as error:
        # A stored state the engine will not read: the page keeps what it shows and
        # asks again; the log has the reason.
        log.exception("match %s: poll refused by the engine", match_id)
        refused = engine_refusal(error)
        response = HttpResponse(refused.message, status=refused.status, content_type="text/plain")
    response["Cache-Control"] = "no-store"
    return response


def version_token(version: selectors.PageVersion) -> str:
    """The poll's token of a page of this version (poll_token)."""
    match, turn = version.match, version.turn
    turn_status = turn.status if turn is not None else None
    return poll_token(
        match.status, match.turn_number, turn_status, version.standin, version.steps_seen
    )


def seen(version: selectors.PageVersion, viewer: Any) -> None:
    """A player looked at the match (its page or its poll): the "seen" mark."""
    if version.seat is not None and viewer.pk is not None:
        services.seat_seen(match=version.match, user_id=viewer.pk)


def _not_modified(version: selectors.PageVersion, viewer: Any) -> HttpResponse:
    seen(version, viewer)
    response = HttpResponseNotModified()
    response["Cache-Control"] = "no-store"
    return response


def _poll_answer(
    request: HttpRequest,
    match: Match,
    seats: list[Seat],
    seat: Seat | None,
    shown: Frame,
    version: selectors.PageVersion,
    read: selectors.SeatsAndHistory | None = None,
) -> HttpResponse:
    # The current turn came with the version, of the same moment as the match.
    page = selectors.match_page(match, seat, seats=seats, version=version, read=read)
    since = _int_param(request.GET.get("since"), -1, low=-1)
    upto = int(page.view["turn"]) if page.view is not None else 0
    if page.view is not None and page.view["over"]:
        # A match of steps may end within a turn (the arena's last robot destroyed):
        # that turn's steps are played too.
        upto += Resolution.objects.filter(match=match, turn_number=upto).exists()
    movie = page.view is not None and 0 <= since < upto
    # A movie brings its own boards: the page's board is not sent with it.
    context = {"page": page, "match": match, "seat": seat, **board_context(page, board=not movie)}
    context.update(frame=shown, your_move=shown)
    context.update(orders_context(page))
    if movie:
        last = upto - 1
        first = max(since, last - MOVIE_MAX_TURNS + 1)
        seat_number = seat.number if seat is not None else None
        context.update(
            movie_context(match, seat_number, first, last, with_end=True, view=page.view)
        )
    elif page.view is not None and since != int(page.view["turn"]):
        context["board_swap"] = True
    return render(request, "games/_poll.html", context)


@require_GET
def match_history(request: HttpRequest, match_id: int) -> HttpResponse:
    """One page of the turn history (htmx swaps it in; otherwise the whole page)."""
    number = _int_param(request.GET.get("page"), 1, low=1)
    if not getattr(request, "htmx", False):
        url = reverse("games:match-detail", args=[match_id])
        return redirect(f"{url}?history={number}#history")
    match, seats, seat = _watching(request, match_id)
    page = selectors.match_page(match, seat, seats=seats, history_page=number)
    return render(request, "games/_history.html", {"page": page, "match": match})


@require_GET
def match_turn_movie(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    """One past turn to replay on the board: the board before it and its events."""
    match, _seats, seat = _watching(request, match_id)
    played = int(match.state["turn"]) if match.state is not None else 0
    if match.status == Match.Status.FINISHED and match.state is not None:
        # A match of steps may end within a turn: that turn was played too.
        played += int(Resolution.objects.filter(match=match, turn_number=played).exists())
    if number >= played:
        raise Http404("That turn has not been played.")
    viewer = seat.number if seat is not None else None
    context = movie_context(match, viewer, number, number, with_end=False)
    return render(request, "games/_movie.html", context)


def _hint_error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message}}, status=status)


@login_required
@require_GET
def match_hints(request: HttpRequest, match_id: int) -> JsonResponse:
    """Where the viewer's other robots may go after the actions planned so far.

    `first` is the planned action as protocol JSON, or the list of every action
    planned so far, in order (a game of more than two actions a turn: the remake's
    hints say `max_actions` and how many are `planned`). The answer is the engine's
    error for them (400), or the hints on the board they leave.
    """
    match, seats, seat = viewer_of(request, match_id)
    if seat is None:
        return _hint_error("not_a_player", "You do not play in this match.", 403)
    page = selectors.match_page(match, seat, seats=seats)
    if not page.my_move or page.view is None:
        return _hint_error("not_your_turn", "It is not your turn.", 409)
    shown = presentation.get(match.ruleset)
    raw = request.GET.get("first")
    if raw is None:
        try:
            hints = shown.hints(page.view)
        except engine.EngineError as error:
            refused = from_engine_error(error)
            return JsonResponse(refused.to_json(), status=refused.status)
        if hints is None:
            return _hint_error("no_planner", "This game has no board planner.", 404)
        return JsonResponse(hints)
    if len(raw) > MAX_HINT_QUERY:
        return _hint_error("bad_shape", "The planned action is too long.", 400)
    try:
        first = json.loads(raw)
    except (ValueError, RecursionError):
        return _hint_error("bad_json", "The planned action is not valid JSON.", 400)
    # One planned action, or the list of those planned so far, in order.
    answer = shown.hints_after(page.view, first if isinstance(first, list) else [first])
    return JsonResponse(answer, status=400 if "error" in answer else 200)


@require_GET
def match_replay_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """A finished match played again from its record, every shield shown."""
    match = get_object_or_404(
        Match.objects.defer("record"), pk=match_id, status=Match.Status.FINISHED
    )
    if match.initial_state is None or match.state is None:
        raise Http404("This match has no record.")
    seats = list(Seat.objects.filter(match=match).select_related("user"))
    user_id = request.user.pk if request.user.is_authenticated else None
    seat = next((s for s in seats if user_id is not None and s.user_id == user_id), None)
    if not selectors.can_watch(match, request.user, seat):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied("This match is private to its players.")
    shown = presentation.get(match.ruleset)
    initial = {**match.initial_state, "viewer": None}
    final = match.state
    labels = {s.number: s.label for s in seats}
    # What the game ranks by (Helium 3: each player's money), from the engine.
    scores = engine.scores(final)
    players = [
        {"seat": p["seat"], "who": labels.get(p["seat"], "?"), "money": scores.get(str(p["seat"]))}
        for p in final["players"]
    ]
    length_ms = int(final.get("clock_ms", 0))
    return render(
        request,
        "games/replay.html",
        {
            "match": match,
            "board": shown.board(initial, caption=f"Match {match.pk}, replayed"),
            "players": players,
            "winners": final.get("winners", []),
            "length_ms": length_ms,
            "length_text": clock_text(length_ms),
            # A match of steps may end within a turn (the arena's last robot destroyed):
            # that turn was played too.
            "turns": final["turn"]
            + int(Resolution.objects.filter(match=match, turn_number=final["turn"]).exists()),
            "turn_ms": list(
                Resolution.objects.filter(match=match)
                .order_by("turn_number")
                .values_list("turn_ms", flat=True)
            ),
            "timing": shown.timing,
            "legend_template": shown.legend_template,
            "legend_seats": sorted(labels),
            "figures": shown.figures(match, {**final, "viewer": None}, replay=True),
            # Drawn only by a page that shows it (the template calls it).
            "final_board": lambda: shown.board(
                {**final, "viewer": None}, caption=f"Match {match.pk}, at its end"
            ),
            **board_assets(shown),
        },
    )
