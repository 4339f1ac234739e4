"""Nothing is told before it is shown: while a turn's movie plays, the tab title,
the "your move" badge and the panel keep what they said when it began; they change
once its last animation has played. At the match's end "The match is over" shows
only after the last event's animation.

Every frame the page draws is recorded inside the page (an init script), so the
test reads them all afterwards instead of sampling the page between its frames."""

from __future__ import annotations

from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}

RECORD = """(() => {
  window.frames_ = [];
  const record = () => {
    const player = document.querySelector('#player'), badge = document.querySelector('#move-badge');
    const panel = document.querySelector('#panel'), main = document.querySelector('main') || document.body;
    window.frames_.push({
      playing: !!player && player.classList.contains('playing'),
      title: document.title,
      badge: badge ? (badge.hidden ? 0 : +badge.dataset.count || 0) : null,
      yourMove: !!panel && panel.innerText.includes('your move'),
      over: main.innerText.includes('The match is over'),
    });
    requestAnimationFrame(record);
  };
  requestAnimationFrame(record);
})()"""

MINE_OR_OVER = """() => {
  const f = window.frames_, last = f[f.length - 1];
  return !!last && !last.playing && (last.yourMove || last.over)
    && !document.querySelector('#movie template');
}"""


def runs(frames: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Each movie as the frames it played: (first, last) indexes."""
    out, start = [], None
    for i, f in enumerate(frames):
        if f["playing"] and start is None:
            start = i
        if not f["playing"] and start is not None:
            out.append((start, i - 1))
            start = None
    if start is not None:
        out.append((start, len(frames) - 1))
    return out


def test_the_title_the_badge_and_the_end_change_after_the_last_animation(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    from game_factories import UserFactory

    from games import services

    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    player = UserFactory(username="teller")
    sign_in(page, live_server.url, "teller")
    match = services.match_create(
        creator=player,
        seat_count=2,
        turn_seconds=3600,
        bots=["prospector"],
        ruleset="helium3-remake",
        options={"rounds": 5},
    )
    page.add_init_script(RECORD)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    expect(page.get_by_text("your move").first).to_be_visible(timeout=30_000)

    for _ in range(20):
        page.wait_for_function(MINE_OR_OVER, timeout=60_000, polling=100)
        if page.evaluate("() => window.frames_[window.frames_.length - 1].over"):
            break
        page.locator("#bar-send").click()
        # The click is taken: the panel no longer says it is the player's move.
        page.wait_for_function(
            "() => !window.frames_[window.frames_.length - 1].yourMove", timeout=30_000
        )
    else:
        raise AssertionError("the match did not end")
    # The ending stays said a moment: a few frames after it are recorded too.
    page.wait_for_timeout(300)
    frames: list[dict[str, Any]] = page.evaluate("() => window.frames_")
    movies = runs(frames)
    assert len(movies) >= 2, movies

    for first, last in movies:
        during = frames[first : last + 1]
        # A movie is an animation, not a frame: it plays for some frames.
        assert last - first >= 5, (first, last)
        for f in during:
            assert not f["yourMove"] and not f["over"], f
            assert f["title"] == during[0]["title"] and f["badge"] == during[0]["badge"], (
                during[0],
                f,
            )
    # After a movie the page came back to the player: the title and badge say so
    # then, and not before the movie's last frame (they did not during it, above).
    # (From the first movie on: the page's first frames count the match as it loads.)
    start = movies[0][0]
    told = [
        i
        for i in range(start, len(frames))
        if frames[i]["title"] != frames[i - 1]["title"] and frames[i]["title"].startswith("(")
    ]
    assert told, "the tab title never counted a match waiting for the player"
    for i in told:
        assert not frames[i]["playing"], frames[i]
    badge_told = [
        i
        for i in range(start, len(frames))
        if (frames[i]["badge"] or 0) > (frames[i - 1]["badge"] or 0)
    ]
    assert badge_told, "the badge never counted the match again"
    for i in badge_told:
        assert not frames[i]["playing"], frames[i]
        # The movie that resolved the turn ended before it.
        assert any(last < i for _, last in movies), i
    # The end is said after the last movie's last frame, never during one.
    first_over = next(i for i, f in enumerate(frames) if f["over"])
    assert first_over > movies[-1][1], (first_over, movies[-1])
    assert all(f["over"] for f in frames[first_over:])
    assert not errors, errors
