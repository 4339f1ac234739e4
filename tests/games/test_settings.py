"""Configuration: one settings module read from the environment. Each case runs
in a fresh interpreter so that it sees exactly the environment it sets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "EMAIL_URL",
    "SITE_URL",
    "CLOCK_SWEEP_SECONDS",
    "HELIUM3_VAR_DIR",
    "DJANGO_SETTINGS_MODULE",
)
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "p" * 20 + "-production-secret-key-with-enough-entropy-1234567890",
    "ALLOWED_HOSTS": "helium3.example.org",
    "DATABASE_URL": "postgres://helium3:secret@127.0.0.1:5432/helium3",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "EMAIL_URL": "smtp+tls://mailer:secret@127.0.0.1:587",
    "SITE_URL": "https://helium3.example.org",
}
SHOW = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'engine': s.DATABASES['default']['ENGINE'], "
    "'options': s.DATABASES['default'].get('OPTIONS', {}), 'broker': s.CELERY_BROKER_URL, "
    "'email': s.EMAIL_BACKEND, 'debug': s.DEBUG, 'beat': s.CELERY_BEAT_SCHEDULE}))"
)


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in OURS}
    clean |= {
        "HELIUM3_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "helium3_site.settings",
    }
    clean |= env
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_passes_with_production_variables(tmp_path):
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], tmp_path, **PRODUCTION
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_embedded_default_is_sqlite_in_wal_mode_and_the_filesystem_broker(tmp_path):
    result = run(["-c", SHOW], tmp_path)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["engine"] == "django.db.backends.sqlite3"
    assert "journal_mode=WAL" in shown["options"]["init_command"]
    assert shown["broker"] == "filesystem://"
    assert (tmp_path / "var" / "celery" / "queue").is_dir()
    assert shown["debug"] is True
    assert shown["email"].endswith("filebased.EmailBackend")


def test_production_variables_switch_to_postgres_redis_and_smtp(tmp_path):
    result = run(["-c", SHOW], tmp_path, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["engine"] == "django.db.backends.postgresql"
    assert shown["broker"] == "redis://127.0.0.1:6379/0"
    assert shown["email"].endswith("smtp.EmailBackend")
    assert shown["debug"] is False


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DEBUG", "maybe", "DEBUG"),
        ("CLOCK_SWEEP_SECONDS", "60", "CLOCK_SWEEP_SECONDS"),
        ("CLOCK_SWEEP_SECONDS", "soon", "soon"),
        ("AXES_FAILURE_LIMIT", "-1", "AXES_FAILURE_LIMIT"),
    ],
)
def test_a_bad_value_fails_loudly(tmp_path, name, value, message):
    result = run(["-c", SHOW], tmp_path, **{name: value})
    assert result.returncode != 0
    assert message in result.stderr


def test_production_without_a_secret_key_refuses_to_start(tmp_path):
    env = dict(PRODUCTION)
    del env["SECRET_KEY"]
    result = run(["-c", SHOW], tmp_path, **env)
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def test_the_demo_login_command_makes_a_verified_user(db, capsys):
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("demo_user")
    call_command("demo_user")  # twice is fine: it resets
    user = get_user_model().objects.get(username="demo")
    assert user.check_password("helium3-demo")
    assert EmailAddress.objects.get(user=user).verified
    assert "demo" in capsys.readouterr().out
