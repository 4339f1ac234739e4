"""Planned orders drawn on the board as it will show them done: a missile armed,
then fired (its trajectory from the robot, the target cell marked) with a second
robot's move (its path from the robot to the chosen cell); then the shot animated
with its flight and its explosion. Screenshots of the planned board and of the
explosion (the phone's is taken from a replay, at a set moment: test_board_effects)."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from browser_support import sign_in
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.worker, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def log_in_and_start(page: Page, base: str) -> int:
    from game_factories import UserFactory

    from games import services

    player = UserFactory(username="gunner")
    match = services.match_create(creator=player, seat_count=2, turn_seconds=3600, bots=["random"])
    sign_in(page, base, "gunner")
    page.goto(f"{base}/matches/{match.pk}/")
    expect(page.locator("#panel strong.your-move")).to_be_visible()
    return int(match.pk)


def robot(page: Page, robot_id: str) -> Any:
    return page.locator(f'#board-wrap svg.board g.rb[data-id="{robot_id}"]')


def centre(page: Page, x: int, y: int) -> tuple[float, float]:
    """The centre of cell (x, y) in the board's own units."""
    svg = page.locator("#board-wrap svg.board")
    cell, margin = int(svg.get_attribute("data-cell")), int(svg.get_attribute("data-margin"))
    return margin + x * cell + cell / 2, margin + y * cell + cell / 2


def at(page: Page, robot_id: str) -> tuple[int, int]:
    g = robot(page, robot_id)
    return int(g.get_attribute("data-x")), int(g.get_attribute("data-y"))


def numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)]


def plan_a_move(page: Page, robot_id: str) -> tuple[int, int]:
    """Plan a move of `robot_id` to the last highlighted cell (the farthest along)."""
    robot(page, robot_id).click()
    page.get_by_role("button", name="Move (6)").click()
    cells = page.locator("#board-wrap .hl rect")
    expect(cells.first).to_be_visible()
    far = cells.nth(cells.count() - 1)
    to = (int(far.get_attribute("data-x")), int(far.get_attribute("data-y")))
    far.click()
    return to


def plan_a_missile(page: Page) -> tuple[int, int]:
    """Fire 1-5's missile at the last target cell, previewed by pointing at it first."""
    robot(page, "1-5").click()
    page.get_by_role("button", name="Fire missile").click()
    targets = page.locator("#board-wrap .hl rect.tg")
    expect(targets.first).to_be_visible()
    target = targets.nth(targets.count() - 1)
    target.hover()
    expect(page.locator("#board-wrap .plan .pv path.traj")).to_have_count(1)
    goal = (int(target.get_attribute("data-x")), int(target.get_attribute("data-y")))
    target.click()
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    return goal


def check_path(page: Page, start: tuple[int, int], to: tuple[int, int]) -> list[tuple[int, int]]:
    """The planned path leaves from the robot's cell and reaches `to` by king steps;
    returns its cells."""
    path = page.locator("#board-wrap .plan polyline.path")
    expect(path).to_have_count(1)
    points = numbers(path.get_attribute("points"))
    assert points[:2] == list(centre(page, *start)), points
    assert points[-2:] == list(centre(page, *to)), points
    steps = [(points[i], points[i + 1]) for i in range(0, len(points), 2)]
    cell = float(page.locator("#board-wrap svg.board").get_attribute("data-cell"))
    assert len(steps) >= 2
    assert all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == cell for a, b in pairwise(steps)), steps
    expect(page.locator("#board-wrap .plan circle.dest")).to_have_count(1)
    expect(page.locator("#board-wrap .plan circle.origin")).to_have_count(1)
    svg = page.locator("#board-wrap svg.board")
    margin = float(svg.get_attribute("data-margin"))
    return [(int((x - margin) // cell), int((y - margin) // cell)) for x, y in steps]


def engine_path(match_id: int, actions: list[dict[str, Any]], robot_id: str) -> list[Any]:
    """The cells the engine walks `robot_id` through for these orders, on the board
    seat 1 believes in (the one the page plans on)."""
    import engine
    from games.models import Match
    from games.play.helium3.hints import believed_state

    state = believed_state(engine.view(Match.objects.get(pk=match_id).state, 1))
    applied = engine.apply(state, {"seat": 1, "turn": state["turn"], "actions": actions})
    return [
        tuple(cell)
        for e in applied.events
        if e["type"] == "moved" and e["robot"] == robot_id
        for cell in e["path"]
    ]


def skip_animations(page: Page) -> None:
    """Press Skip while it is enabled, in the page itself (an animation that ends
    between a check and a click must not leave a click waiting on a disabled button)."""
    skip = page.locator("#skip")
    for _ in range(20):
        page.evaluate(
            "() => { const s = document.querySelector('#skip'); if (!s.disabled) s.click(); }"
        )
        if skip.is_disabled():
            break
        page.wait_for_timeout(100)
    expect(skip).to_be_disabled()


# Pauses the movie in the frame that first draws an effect of class `what`.
PAUSE_AT = """what => {
  if (!document.querySelector('#board-wrap .fx .' + what)) return false;
  const pause = document.querySelector('#pause');
  if (pause.textContent === 'Pause') pause.click();
  return true;
}"""


def shot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


# At 1x: the flight and the blast last four times as long as at the tests' 4x. The
# movie keeps real time, so on a loaded machine one late frame at 4x could carry the
# board past the whole flight, and the moment to photograph never came.
@pytest.mark.movie_speed("1")
def test_a_planned_missile_and_move_are_drawn_from_the_robots_and_the_shot_explodes(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    match_id = log_in_and_start(page, live_server.url)
    page.set_viewport_size(PHONE)
    shot(page, screenshot_dir, "board-start-phone")
    page.set_viewport_size(LAPTOP)

    # Turn 0: robot 1-5 arms its missile where it stands; the board shows it armed.
    home = at(page, "1-5")
    robot(page, "1-5").click()
    page.get_by_role("button", name="Arm missile (2)").click()
    page.locator(f'#board-wrap .hl rect[data-x="{home[0]}"][data-y="{home[1]}"]').click()
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    expect(robot(page, "1-5")).to_have_class(re.compile(r"\bam\b"))
    page.get_by_role("button", name="Send orders").click()
    expect(page.locator("#panel strong.your-move")).to_be_visible(timeout=30_000)
    skip_animations(page)
    expect(robot(page, "1-5")).to_have_class(re.compile(r"\bam\b"))

    # Turn 2. A move as the first action is drawn from the engine's own path: from
    # the robot, one king step at a time, to the cell; then it is undone.
    start = at(page, "1-3")
    to = plan_a_move(page, "1-3")
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    check_path(page, start, to)
    # Planned, the robot stood at the end of its path and was active; undone, it is
    # back where the server drew it, inactive again.
    expect(robot(page, "1-3")).not_to_have_class(re.compile(r"\bidle\b"))
    page.get_by_role("button", name="Undo this action").first.click()
    expect(page.locator("#board-wrap .plan *")).to_have_count(0)
    expect(robot(page, "1-3")).to_have_class(re.compile(r"\bidle\b"))
    x, y = centre(page, *start)
    expect(robot(page, "1-3")).to_have_attribute("transform", f"translate({x:g} {y:g})")

    # 1-5 fires at a cell; pointing at a target previews the shot first. Undone, the
    # missile is armed again; planned again, it stays.
    goal = plan_a_missile(page)
    expect(robot(page, "1-5")).not_to_have_class(re.compile(r"\bam\b"))
    page.get_by_role("button", name="Undo this action").first.click()
    expect(robot(page, "1-5")).to_have_class(re.compile(r"\bam\b"))
    expect(page.locator("#board-wrap .plan *")).to_have_count(0)
    goal = plan_a_missile(page)
    expect(page.get_by_text(f"Robot 1-5: fire missile at ({goal[0]}, {goal[1]}).")).to_be_visible()

    trajectory = page.locator("#board-wrap .plan path.traj")
    expect(trajectory).to_have_count(1)
    d = numbers(trajectory.get_attribute("d"))
    assert d[:2] == list(centre(page, *at(page, "1-5"))), d  # it leaves from the robot
    assert d[-2:] == list(centre(page, *goal)), d  # and lands on the target
    hit = page.locator("#board-wrap .plan rect.hit-cell")
    expect(hit).to_have_count(1)
    box = [float(hit.get_attribute(k)) for k in ("x", "y", "width", "height")]
    gx, gy = centre(page, *goal)
    assert box[0] < gx < box[0] + box[2] and box[1] < gy < box[1] + box[3]
    expect(page.locator("#board-wrap .plan circle.aim")).to_have_count(1)
    expect(robot(page, "1-5")).not_to_have_class(re.compile(r"\bam\b"))  # fired: no longer armed

    # The second robot's move: a path from the robot, step by step, to the cell.
    start = at(page, "1-4")
    to = plan_a_move(page, "1-4")
    expect(page.get_by_text(f"Robot 1-4: move to ({to[0]}, {to[1]}).")).to_be_visible()
    drawn = check_path(page, start, to)
    # Drawn by the script itself (the engine resolved only the first action): the same
    # cells the engine's own path-finding will walk.
    actions = [
        {"robot": "1-5", "type": "fire_missile", "target": list(goal)},
        {"robot": "1-4", "type": "move", "to": list(to)},
    ]
    assert drawn == [start, *engine_path(match_id, actions, "1-4")], drawn
    shot(page, screenshot_dir, "board-planned-laptop")
    # The moon keeps its own dark look in the site's dark theme too.
    page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
    shot(page, screenshot_dir, "board-planned-dark-laptop")
    page.evaluate("() => { delete document.documentElement.dataset.theme; }")
    page.set_viewport_size(PHONE)
    shot(page, screenshot_dir, "board-planned-phone")
    page.set_viewport_size(LAPTOP)

    # Sent: the turn plays on the board, the missile flies and explodes on its target.
    # Each moment is held (Pause, pressed in the frame that shows it) while it is
    # photographed: a slow photograph would otherwise let the blast go by unseen.
    page.get_by_role("button", name="Send orders").click()
    for what, name in (
        ("msl", "board-missile-flight-laptop"),
        ("fireball", "board-missile-blast-laptop"),
    ):
        page.wait_for_function(PAUSE_AT, arg=what, timeout=30_000)
        shot(page, screenshot_dir, name)
        page.locator("#pause").click()  # Play: the movie goes on
    expect(page.locator("#panel strong.your-move")).to_be_visible(timeout=30_000)
    skip_animations(page)
    expect(robot(page, "1-4")).to_have_attribute("data-x", str(to[0]))
    expect(page.locator("#history")).to_contain_text("Robot 1-5 fired a missile")
    assert not errors, errors


def test_the_board_draws_every_move_on_the_path_the_engine_walks(
    live_server: Any, celery_worker: Any, page: Page
) -> None:
    """For each of the player's robots and every cell a move reaches, the path the
    script draws is the engine's, cell for cell: the robots start packed together, so
    many paths bend around them and choose between equally short ways."""
    import engine
    from games.models import Match
    from games.play.helium3.hints import believed_state, hints_for

    match_id = log_in_and_start(page, live_server.url)
    view = engine.view(Match.objects.get(pk=match_id).state, 1)
    state = believed_state(view)
    width = int(view["width"])
    cases = [
        (robot_id, [i % width, i // width])
        for robot_id, hint in hints_for(view)["robots"].items()
        for i, mark in enumerate(hint["reach"])
        if mark not in ".0"
    ]
    assert len(cases) > 100
    drawn = page.evaluate("cases => cases.map(([id, to]) => window.helium3Path(id, to))", cases)
    bends = 0
    for (robot_id, to), path in zip(cases, drawn, strict=True):
        applied = engine.apply(
            state,
            {"seat": 1, "turn": 0, "actions": [{"robot": robot_id, "type": "move", "to": to}]},
        )
        walked = [c for e in applied.events if e["type"] == "moved" for c in e["path"]]
        assert path[1:] == walked, (robot_id, to, path, walked)
        bends += len({(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(path)}) > 1
    assert bends > 20  # not only straight lines


def cells_of(page: Page, rect: Any) -> tuple[int, int, int, int]:
    """The cells a drawn rectangle covers, as (x0, y0, x1, y1)."""
    svg = page.locator("#board-wrap svg.board")
    cell, margin = float(svg.get_attribute("data-cell")), float(svg.get_attribute("data-margin"))
    x, y, w, h = (float(rect.get_attribute(k)) for k in ("x", "y", "width", "height"))
    return (
        round((x - margin) / cell - 0.5),
        round((y - margin) / cell - 0.5),
        round((x + w - margin) / cell - 0.5),
        round((y + h - margin) / cell - 0.5),
    )


def crossed(page: Page) -> list[tuple[int, int]]:
    """The cells the plan crosses out (a robot it destroys): each cross's centre."""
    svg = page.locator("#board-wrap svg.board")
    cell, margin = float(svg.get_attribute("data-cell")), float(svg.get_attribute("data-margin"))
    out = []
    for d in page.locator("#board-wrap .fx path.doom").evaluate_all(
        "ps => ps.map(p => p.getAttribute('d'))"
    ):
        x, y, dx = numbers(d)[:3]  # from the top-left corner, a stroke of 2k to the other
        out.append((int((x + dx / 2 - margin) // cell), int((y + dx / 2 - margin) // cell)))
    return sorted(out)


def test_a_planned_mine_shield_and_kamikaze_are_drawn_with_the_robots_they_destroy(
    live_server: Any, celery_worker: Any, page: Page, screenshot_dir: Path
) -> None:
    """Seat 1's robots start packed: 1-5 at (2, 2), 1-4 at (1, 2), 1-2 at (2, 1). Turn 0:
    1-4 mines where it stands (its 3x3 drawn) and 1-2 raises a shield deflecting south
    (its arrow drawn, the robot shielded); both are active after. Turn 2: 1-5's
    kamikaze draws its blast over the 3x3 and crosses out the robots it destroys:
    itself and 1-4, not 1-2 (its shield takes the hit), nor the inactive ones."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size(LAPTOP)
    log_in_and_start(page, live_server.url)
    assert (at(page, "1-5"), at(page, "1-4"), at(page, "1-2")) == ((2, 2), (1, 2), (2, 1))

    robot(page, "1-4").click()
    page.get_by_role("button", name="Mine (4)").click()
    page.locator('#board-wrap .hl rect[data-x="1"][data-y="2"]').click()
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    dig = page.locator("#board-wrap .plan rect.mine-area")
    expect(dig).to_have_count(1)
    assert cells_of(page, dig) == (0, 1, 2, 3)
    expect(page.locator("#board-wrap .plan .path")).to_have_count(0)  # mined in place

    robot(page, "1-2").click()
    page.get_by_role("button", name="Shield (5)").click()
    page.locator('#board-wrap .hl rect[data-x="2"][data-y="1"]').click()
    page.get_by_role("button", name="Deflect south", exact=True).click()
    expect(page.get_by_text("Robot 1-2: shield, deflecting south.")).to_be_visible()
    expect(robot(page, "1-2")).to_have_class(re.compile(r"\bsd\b.*\bdd\b|\bdd\b.*\bsd\b"))
    arrow = page.locator("#board-wrap .plan path.deflect-mark")
    expect(arrow).to_have_count(1)
    d = numbers(arrow.get_attribute("d"))
    x, y = centre(page, 2, 1)
    assert d[:2] == [x, y] and d[2] == x and d[3] > y, d  # from 1-2 straight down
    expect(dig).to_have_count(1)  # the first action's drawing stays
    page.get_by_role("button", name="Send orders").click()
    expect(page.locator("#panel strong.your-move")).to_be_visible(timeout=30_000)
    skip_animations(page)
    expect(robot(page, "1-2")).to_have_class(re.compile(r"\bsd\b"))

    robot(page, "1-5").click()
    page.get_by_role("button", name="Kamikaze", exact=True).click()
    expect(page.locator("#plan-help")).to_contain_text("The board shows it done")
    blast = page.locator("#board-wrap .plan rect.blast-area")
    expect(blast).to_have_count(1)
    assert cells_of(page, blast) == (1, 1, 3, 3)
    expect(page.locator("#board-wrap .fx path.doom")).to_have_count(2)
    assert crossed(page) == [(1, 2), (2, 2)]
    expect(robot(page, "1-4")).to_have_class(re.compile(r"\bdoomed\b"))
    expect(robot(page, "1-2")).not_to_have_class(re.compile(r"\bdoomed\b"))
    shot(page, screenshot_dir, "board-planned-kamikaze-laptop")
    # Undone, nothing is crossed out any more.
    page.get_by_role("button", name="Undo this action").first.click()
    expect(page.locator("#board-wrap .plan *")).to_have_count(0)
    expect(page.locator("#board-wrap .fx path.doom")).to_have_count(0)
    expect(robot(page, "1-4")).not_to_have_class(re.compile(r"\bdoomed\b"))
    assert not errors, errors
