"""`make run`, the README's first command, as a newcomer runs it: the embedded site
(SQLite, Celery's filesystem broker, no Redis or PostgreSQL) with its web server, a
real worker and celery beat under honcho. The demo login plays a turn against
three bots in a browser's way (forms, cookies, CSRF); the worker resolves the bots'
turns and the beat's clock sweep runs.

The virtual environment is the one `make test` set up (`make -o venv`: not
reinstalled here). Every process is stopped at the end, however the test ends.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import shutil
import signal
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from site_support import wait_for

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
TURN = re.compile(r'name="turn" value="(\d+)"')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Browser:
    """Cookies and CSRF tokens as a browser keeps them; only 127.0.0.1."""

    def __init__(self, base: str) -> None:
        self.base = base
        cookies = urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        self.opener = urllib.request.build_opener(cookies)
        self.no_follow = urllib.request.build_opener(cookies, _NoRedirect())

    def get(self, path: str) -> tuple[int, str, str]:
        with self.opener.open(self.base + path, timeout=30) as answer:
            return answer.status, answer.geturl(), answer.read().decode()

    def post(
        self, path: str, form_page: str, data: dict[str, str], *, follow: bool = True
    ) -> tuple[int, str, str]:
        """Post the form; `follow=False` answers the redirect itself (its status and
        where it points) without opening the page it names."""
        token = CSRF.search(form_page)
        assert token, "no CSRF token on the form's page"
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": token.group(1), **data}).encode()
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Referer": self.base + path}
        )
        opener = self.opener if follow else self.no_follow
        try:
            with opener.open(request, timeout=30) as answer:
                return answer.status, answer.geturl(), answer.read().decode()
        except urllib.error.HTTPError as answer:
            if follow or answer.code not in (301, 302, 303):
                raise
            return answer.code, answer.headers.get("Location", ""), ""


def wait_logged(predicate: Callable[[], Any], seconds: float, what: str, log: Path) -> Any:
    """site_support.wait_for, with the end of make run's output when it times out."""
    try:
        return wait_for(predicate, seconds, what)
    except AssertionError as error:
        raise AssertionError(f"{error}; make run said:\n{log.read_text()[-4000:]}") from None


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        # The embedded setup is what no variable asks for: drop CI's servers.
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "EMAIL_URL")
    }
    env.update(
        HELIUM3_PORT=str(port),
        HELIUM3_VAR_DIR=str(tmp_path / "var"),
        CLOCK_SWEEP_SECONDS="2",
        # "Your turn" goes out at once, so the run's mail folder gets one in the test's
        # time ("Play now" mails no "Match started" to the player who pressed it).
        YOUR_TURN_EMAIL_AFTER_SECONDS="0",
        YOUR_TURN_EMAIL_TURN_FRACTION="0",
        PYTHONUNBUFFERED="1",
    )
    log = tmp_path / "make-run.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [make, "-o", "venv", "run"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2) as answer:
                    return answer.status == 200
            except (OSError, urllib.error.URLError):
                assert process.poll() is None, log.read_text()[-4000:]
                return False

        wait_logged(up, 120, "the web server answering /healthz", log)
        yield base, log
    finally:
        for sig, grace in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            if process.poll() is not None:
                break
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                continue


def test_make_run_serves_the_embedded_site_with_a_real_worker_and_clock(
    site: tuple[str, Path], tmp_path: Path
) -> None:
    base, log = site
    printed = log.read_text()
    assert f"Helium 3 is starting at http://127.0.0.1:{base.rsplit(':', 1)[1]}/" in printed
    assert "demo / helium3-demo" in printed

    browser = Browser(base)
    _, _, login_page = browser.get("/accounts/login/")
    status, landed, lobby = browser.post(
        "/accounts/login/", login_page, {"login": "demo", "password": "helium3-demo"}
    )
    assert status == 200 and "Play now against three bots" in lobby, landed

    _, _, page = browser.post("/matches/play-now/", lobby, {})
    assert "your move" in page
    match_path = urllib.parse.urlsplit(
        re.search(r'action="(/matches/\d+/orders/)"', page).group(1)  # type: ignore[union-attr]
    ).path
    turn = int(TURN.search(page).group(1))  # type: ignore[union-attr]
    # The player sends and looks away (the redirect is not followed): the bots' turns
    # are resolved by the worker, the person's turn begins and, as the player has
    # not looked since, the your-turn email goes out at once (no delay here). A
    # player who looked at the page would get none ("only when away"), and with
    # the bots' turns resolved in the same task as the person's, the redirect's
    # page may already show the player's next turn.
    status, _, _ = browser.post(
        match_path, page, {"turn": str(turn), "actions_json": "[]"}, follow=False
    )
    assert status == 302
    var = tmp_path / "var"
    wait_logged(
        lambda: (var / "mail").is_dir() and any((var / "mail").iterdir()), 90, "a mail", log
    )
    # The three bots' turns are resolved by the worker; the person moves again.
    detail = match_path.removesuffix("orders/")
    assert "Orders accepted" in browser.get(detail)[2]  # the redirect's message, shown once

    def my_move_again() -> int | None:
        found = TURN.search(browser.get(detail)[2])
        return int(found.group(1)) if found and int(found.group(1)) > turn else None

    assert wait_logged(my_move_again, 60, "the bots' turns resolved by the worker", log) == turn + 4
    # Celery beat sends the clock sweep (every 2 s here) and the worker runs it.
    wait_logged(
        lambda: re.search(r"clock_sweep_task\[[^\]]+\] succeeded", log.read_text()),
        30,
        "a clock sweep run",
        log,
    )
    # Everything lives under the run's own folder: the SQLite database, the queue, mail.
    assert (var / "db.sqlite3").exists() and (var / "celery").is_dir()
    # The your-turn email, sent by the worker from the email queue; its links
    # point at the site as it runs (HELIUM3_PORT), not at a default port.
    mail = "".join(path.read_text() for path in (var / "mail").iterdir())
    assert f"{base}{detail}" in mail
