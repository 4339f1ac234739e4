"""Sessions in the shared cache (cached_db, only when CACHE_URL is Redis) and the
Redis cache backend that keeps its client (helium3_site/rediscache.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'sessions': s.SESSION_ENGINE, 'cache': s.CACHES['default']['BACKEND']}))"
)


def _settings_with(tmp_path: Path, **env: str) -> dict[str, str]:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("CACHE_URL", "DJANGO_SETTINGS_MODULE")
    }
    clean |= {
        "HELIUM3_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "helium3_site.settings",
        **env,
    }
    result = subprocess.run(
        [sys.executable, "-c", SHOW],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_sessions_go_to_the_cache_only_when_it_is_shared(tmp_path):
    shared = _settings_with(tmp_path, CACHE_URL="redis://127.0.0.1:6379/1")
    assert shared == {
        "sessions": "django.contrib.sessions.backends.cached_db",
        "cache": "helium3_site.rediscache.RedisCache",
    }
    # Each process's own memory: a logout elsewhere would not reach it.
    alone = _settings_with(tmp_path)
    assert alone["sessions"] == "django.contrib.sessions.backends.db"


CACHED_DB = "django.contrib.sessions.backends.cached_db"


@pytest.mark.django_db
@override_settings(SESSION_ENGINE=CACHED_DB)
def test_a_cached_session_reads_no_session_row_and_ends_at_logout():
    user = get_user_model().objects.create_user("cachedsession", "cs@example.org", "pw-123456!x")
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    url = reverse("games:notification-settings")
    assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    assert not [q for q in queries.captured_queries if "django_session" in q["sql"]]

    client.post(reverse("account_logout"))
    # The old cookie, sent again after the logout, names no session.
    stale = Client()
    stale.cookies[settings.SESSION_COOKIE_NAME] = cookie
    answer = stale.get(url)
    assert answer.status_code == 302
    assert reverse("account_login") in answer["Location"]


def _redis_url() -> str:
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("redis://"):
        pytest.skip("no Redis given (CELERY_BROKER_URL)")
    return url


def test_the_redis_cache_keeps_one_client_and_answers_as_django_s():
    from helium3_site.rediscache import RedisCache

    cache = RedisCache(_redis_url(), {})
    key = f"test-rediscache:{uuid.uuid4().hex}"
    try:
        assert cache.get(key) is None
        cache.set(key, ("board", None), 30)
        assert cache.get(key) == ("board", None)
        cache.set_many({key + ":b": 2}, 30)
        assert cache.get_many([key, key + ":b", key + ":c"]) == {
            key: ("board", None),
            key + ":b": 2,
        }
        assert cache._cache.get_client() is cache._cache.get_client(write=True)
    finally:
        cache.delete_many([key, key + ":b"])
