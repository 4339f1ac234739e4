"""The one settings module.

Every value comes from the environment through small typed readers that fail
loudly on a bad value. The defaults give the embedded setup (SQLite in WAL mode,
Celery's filesystem transport, mail written to ./var/mail), so nothing but Python
is needed; production differs only by environment variables (see docs/operations.md).
"""

from __future__ import annotations

import os
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
# An optional .env file next to manage.py, for people who prefer one to exports.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env.path("HELIUM3_VAR_DIR", default=str(BASE_DIR / "var")))


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    """A boolean variable: 1/true/yes/on or 0/false/no/off; anything else is an error."""
    raw = env.str(name, default=None)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false).")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = env.str(name, default=None)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}.")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = env.str(name, default=None)
    if raw is None:
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None
    if minimum is not None and not value >= minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}.")
    return value


def _positive_int(name: str, default: int) -> int:
    return env_int(name, default, minimum=1)


def _positive_float(name: str, default: float) -> float:
    value = env_float(name, default)
    if not value > 0:
        raise ImproperlyConfigured(f"{name} must be a positive number, got {value}.")
    return value


# --- core -------------------------------------------------------------------
DEBUG = env_bool("DEBUG", True)
_DEV_SECRET = "dev-only-insecure-key-helium3-not-for-production"
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# The port `make run` serves on (Makefile, Procfile.dev).
HELIUM3_PORT = env_int("HELIUM3_PORT", 8000, minimum=1)
if HELIUM3_PORT > 65535:
    raise ImproperlyConfigured(f"HELIUM3_PORT must be a TCP port (1-65535), got {HELIUM3_PORT}.")
# Absolute base for links in emails (no trailing slash): the site as it runs. In
# development that is `make run`'s server; in production nothing can guess it.
SITE_URL = env.str("SITE_URL", default="").strip().rstrip("/")
if not SITE_URL:
    if not DEBUG:
        raise ImproperlyConfigured("SITE_URL must be set when DEBUG is off (links in emails).")
    SITE_URL = f"http://127.0.0.1:{HELIUM3_PORT}"
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL={SITE_URL!r} must start with http:// or https://.")
# The site's name, as emails greet with it (the Sites row follows it and SITE_URL's
# host on every migrate: games/apps.py).
SITE_NAME = env.str("SITE_NAME", default="Robot Turns").strip() or "Robot Turns"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "allauth",
    "allauth.account",
    "axes",
    "django_htmx",
    # The bot API's browsable docs serve their scripts from ninja's static files.
    "ninja",
    "games",
    "games.guests",
    "games.compete",
    "games.ladder",
    "games.webpush",
]

MIDDLEWARE = [
    # Outermost, so that every error under /api/v1/ leaves as a JSON error object.
    "games.api.middleware.ApiErrorBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Pages go out gzipped to a browser that asks (a finished 50 x 50 Halite page is
    # 367 KB as text); the bot API's JSON is left as it is. Django's gzip adds random
    # bytes against BREACH, and the CSRF token is masked per response. Static files
    # are WhiteNoise's (below).
    "helium3_site.gzip.PageGZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Axes must be last: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "helium3_site.urls"
WSGI_APPLICATION = "helium3_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.your_move",
            ],
        },
    },
]

# --- database ----------------------------------------------------------------
# Embedded default: SQLite in WAL mode. IMMEDIATE transactions take the write lock
# at BEGIN, so the web process and the worker queue up behind the busy timeout
# instead of failing when a read transaction tries to become a write.
_SQLITE_PATH = VAR_DIR / "db.sqlite3"
DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{_SQLITE_PATH}")}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db.setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # A file (not :memory:) so that the Celery worker thread in the tests sees the
    # same database as the test itself; one per process, so that two test runs in
    # one work tree do not delete each other's database.
    _db["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}
    VAR_DIR.mkdir(parents=True, exist_ok=True)
else:
    _db["CONN_MAX_AGE"] = env_int("CONN_MAX_AGE", 60, minimum=0)
    _db["CONN_HEALTH_CHECKS"] = True
    # As SQLite's: a test database per process, so that two test runs against one
    # server do not drop each other's (pytest-xdist adds _gw0, _gw1 per worker).
    _db["TEST"] = {"NAME": f"test_{_db['NAME']}_{os.getpid()}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache -------------------------------------------------------------------------
# The bot API's rate limits count in the cache, so every web process must share it:
# CACHE_URL=redis://host:6379/1 in production (several gunicorn processes). The
# embedded default is per-process memory, enough for `make run`'s single server.
CACHE_URL = env.str("CACHE_URL", default="")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        # Django's Redis backend with one client object kept (helium3_site/rediscache.py).
        "default": {"BACKEND": "helium3_site.rediscache.RedisCache", "LOCATION": CACHE_URL}
    }
    # A session is read from the shared cache, the database only on a miss: every
    # signed-in POST read its row (and every page the viewer memo did not cover).
    # A logout deletes both, for every process at once; so does anything that ends a
    # session through Django (cycle_key, flush). Only a shared cache may hold them:
    # with the per-process default a logout would leave the session alive in the
    # other processes' memory.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
elif CACHE_URL in ("", "locmem://"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(f"CACHE_URL={CACHE_URL!r}: use redis://host:port/db or locmem://.")
# Rendered match pages and a turn's boards (games/views/match.py, games/views/board.py):
# in each process's memory, whatever CACHE_URL says. A page is keyed by its version
# and a board by its turn, so no process can serve a stale one, and a hit costs no
# round trip (about a third of a cached view's time through Redis).
CACHES["pages"] = {
    # LocMemCache without memcached's key check (helium3_site/pagecache.py).
    "BACKEND": "helium3_site.pagecache.PageCache",
    "LOCATION": "match-pages",
    "TIMEOUT": 60,
    "OPTIONS": {"MAX_ENTRIES": env_int("PAGE_CACHE_ENTRIES", 500, minimum=1)},
}
# How long a web process serves a match page's version it has read without asking the
# database again, while no doorbell rings (games/push/kept.py): what no bell rings for
# (an admin's edit, a pause) reaches the page within it, as it reaches a page on the
# push channel within PUSH_SWEEP_SECONDS. 0: the database on every view.
PAGE_VERSION_KEEP_SECONDS = env_float("PAGE_VERSION_KEEP_SECONDS", 2.0)
if not 0 <= PAGE_VERSION_KEEP_SECONDS <= 60:
    raise ImproperlyConfigured("PAGE_VERSION_KEEP_SECONDS must be between 0 and 60.")

# --- auth: allauth + axes ----------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    # First, so a locked-out client is refused before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "games:lobby"
ACCOUNT_LOGOUT_REDIRECT_URL = "account_login"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if DEBUG else "https"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Robot Turns] "
# A guest who signs up becomes the account (games/guests/adapter.py).
ACCOUNT_ADAPTER = "games.guests.adapter.AccountAdapter"

AXES_FAILURE_LIMIT = _positive_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=_positive_int("AXES_COOLOFF_MINUTES", 30))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
# allauth's login form calls its field "login", not "username".
AXES_USERNAME_FORM_FIELD = "login"
AXES_IPWARE_PROXY_COUNT = env_int("AXES_PROXY_COUNT", 0, minimum=0) or None
AXES_VERBOSE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- i18n / static -----------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
# Each game's presentation package keeps its board script and stylesheet in its own
# static folder (games/play/<game>/static/play/<game>/); the platform's are the app's.
STATICFILES_DIRS = sorted((BASE_DIR / "games" / "play").glob("*/static"))
STATIC_ROOT = Path(env.path("STATIC_ROOT", default=str(VAR_DIR / "static")))
if STATIC_ROOT.is_relative_to(VAR_DIR):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- email -------------------------------------------------------------------------
# EMAIL_URL (smtp+tls://user:password@host:587, consolemail://, ...) wins; without it
# mail is written to files under ./var/mail so a developer can read it.
if env.str("EMAIL_URL", default=""):
    vars().update(env.email_url("EMAIL_URL"))
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
EMAIL_TIMEOUT = _positive_int("EMAIL_TIMEOUT", 20)
# "Your turn" waits this long, or this fraction of a shorter turn time, whichever is
# less; it goes out only if the turn is still open and the player has not opened
# the match since the turn began (a player watching the page gets none).
YOUR_TURN_EMAIL_AFTER_SECONDS = env_int("YOUR_TURN_EMAIL_AFTER_SECONDS", 300, minimum=0)
YOUR_TURN_EMAIL_TURN_FRACTION = env_float("YOUR_TURN_EMAIL_TURN_FRACTION", 0.25, minimum=0)
if YOUR_TURN_EMAIL_TURN_FRACTION > 1:
    raise ImproperlyConfigured("YOUR_TURN_EMAIL_TURN_FRACTION must be between 0 and 1.")
# A claimed email (status sending) not sent after this long was lost with its worker:
# the clock sweep queues it again. Longer than a send may take.
EMAIL_CLAIM_STALE_SECONDS = _positive_int("EMAIL_CLAIM_STALE_SECONDS", 300)
if EMAIL_CLAIM_STALE_SECONDS <= EMAIL_TIMEOUT:
    raise ImproperlyConfigured("EMAIL_CLAIM_STALE_SECONDS must be longer than EMAIL_TIMEOUT.")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Robot Turns <noreply@localhost>")
SERVER_EMAIL = env.str("SERVER_EMAIL", default=DEFAULT_FROM_EMAIL)
# Web Push (games/webpush, docs/webpush.md): "your turn" in the browser, under the
# email's rule. The VAPID key is made on first use and kept in the database, unless
# given here (PEM, or the raw P-256 scalar in base64url). The subject names who runs
# the site to the push services (mailto: or https:).
WEBPUSH_VAPID_PRIVATE_KEY = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_SUBJECT = env.str(
    "WEBPUSH_VAPID_SUBJECT",
    default=f"mailto:{parseaddr(DEFAULT_FROM_EMAIL)[1] or 'noreply@localhost'}",
)
if not WEBPUSH_VAPID_SUBJECT.startswith(("mailto:", "https://")):
    raise ImproperlyConfigured("WEBPUSH_VAPID_SUBJECT must start with mailto: or https://.")
# The push services' hosts the site may POST to (and their subdomains); empty: any
# https endpoint named by a domain. The tests allow only 127.0.0.1 (over http).
WEBPUSH_ENDPOINT_HOSTS = env.list("WEBPUSH_ENDPOINT_HOSTS", default=[])
WEBPUSH_TIMEOUT_SECONDS = _positive_float("WEBPUSH_TIMEOUT_SECONDS", 10.0)

# --- celery ------------------------------------------------------------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's filesystem transport, each message written aside and renamed into place.
    CELERY_BROKER_TRANSPORT = "helium3_site.broker:Transport"
    _queue_dir = Path(env.path("CELERY_FILESYSTEM_DIR", default=str(VAR_DIR / "celery")))
    for _sub in ("queue", "processed", "control"):
        (_queue_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # The same folder in and out: producers and the worker share one queue.
        "data_folder_in": str(_queue_dir / "queue"),
        "data_folder_out": str(_queue_dir / "queue"),
        "processed_folder": str(_queue_dir / "processed"),
        # Exchange tables too, or kombu writes them to ./control in the cwd.
        "control_folder": str(_queue_dir / "control"),
        "store_processed": False,
        "polling_interval": _positive_float("CELERY_POLLING_INTERVAL", 0.2),
    }
else:
    if CELERY_BROKER_URL.startswith("redis://"):
        # kombu's Redis transport, one client per channel (helium3_site.celery).
        CELERY_BROKER_TRANSPORT = "helium3_site.celery:RedisTransport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Read only where acknowledgements are emulated in Redis, which our channel
        # turns off (helium3_site/celery.py, RedisChannel): a lost worker's turns
        # come back through the clock sweep instead. Kept for a transport that sets
        # "ack_emulation" back on.
        "visibility_timeout": _positive_int("CELERY_VISIBILITY_TIMEOUT", 3600),
    }
# One queue name for web and workers; a benchmark or a second site on the same Redis
# database gives its own so that their workers never take each other's tasks.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="celery")
# Emails have a queue of their own, so that a slow mail server or a burst of emails
# never delays a turn. A worker started without -Q consumes both queues; production
# may run separate workers (`-Q celery` and `-Q email`, docs/operations.md).
EMAIL_TASK_QUEUE = env.str(
    "CELERY_EMAIL_QUEUE",
    default="email"
    if CELERY_TASK_DEFAULT_QUEUE == "celery"
    else f"{CELERY_TASK_DEFAULT_QUEUE}-email",
)
if EMAIL_TASK_QUEUE == CELERY_TASK_DEFAULT_QUEUE:
    raise ImproperlyConfigured("CELERY_EMAIL_QUEUE must differ from CELERY_QUEUE.")
CELERY_TASK_QUEUES = {
    name: {"routing_key": name} for name in (CELERY_TASK_DEFAULT_QUEUE, EMAIL_TASK_QUEUE)
}
CELERY_TASK_ROUTES = {
    "games.tasks.notification_send_task": {"queue": EMAIL_TASK_QUEUE},
    "games.webpush.tasks.webpush_send_task": {"queue": EMAIL_TASK_QUEUE},
}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
# Acknowledge a task after it ran (a worker killed mid-task gets it again); the
# fault tests run with it on and off. Either way the services claim their work.
CELERY_TASK_ACKS_LATE = env_bool("CELERY_TASK_ACKS_LATE", True)
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# The clock: one static schedule, run by exactly one `celery beat`. Deadlines are
# rows; the sweeper reads them. No long ETA tasks anywhere.
CLOCK_SWEEP_SECONDS = _positive_float("CLOCK_SWEEP_SECONDS", 15.0)
if CLOCK_SWEEP_SECONDS > 30:
    raise ImproperlyConfigured("CLOCK_SWEEP_SECONDS must be 30 or less.")
CELERY_BEAT_SCHEDULE = {
    "clock-sweep": {
        "task": "games.tasks.clock_sweep_task",
        "schedule": CLOCK_SWEEP_SECONDS,
        # A sweep that waited longer than its period is pointless: the next one runs.
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    },
    # Guests nobody claimed within a week go (games/guests/services.py).
    "guests-cleanup": {"task": "games.guests.tasks.guests_cleanup_task", "schedule": 3600.0},
    # Challenges past their time expire; a challenged player who is away is emailed.
    "challenges-sweep": {
        "task": "games.compete.tasks.challenges_sweep_task",
        "schedule": CLOCK_SWEEP_SECONDS,
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    },
    # Web Push's "your turn" that came due is queued (games/webpush/tasks.py).
    "webpush-sweep": {
        "task": "games.webpush.tasks.webpush_sweep_task",
        "schedule": CLOCK_SWEEP_SECONDS,
        "options": {"expires": CLOCK_SWEEP_SECONDS},
    },
}
# The home page's showcase match: its bots' next move is checked this often (0: off).
SHOWCASE_STEP_SECONDS = env_float("SHOWCASE_STEP_SECONDS", 2.0, minimum=0)
if SHOWCASE_STEP_SECONDS:
    CELERY_BEAT_SCHEDULE["showcase-step"] = {
        "task": "games.guests.tasks.showcase_step_task",
        "schedule": SHOWCASE_STEP_SECONDS,
        "options": {"expires": SHOWCASE_STEP_SECONDS},
    }
# The bot ladder (games/ladder): a round of matchmaking every LADDER_INTERVAL_SECONDS
# while fewer than LADDER_MATCHES_PER_BOT of a bot's ladder matches run; a ladder
# match's turn lasts LADDER_TURN_SECONDS, kept by the clock as any match's turn.
LADDER_INTERVAL_SECONDS = _positive_float("LADDER_INTERVAL_SECONDS", 30.0)
LADDER_MATCHES_PER_BOT = _positive_int("LADDER_MATCHES_PER_BOT", 2)
LADDER_TURN_SECONDS = _positive_int("LADDER_TURN_SECONDS", 10)
CELERY_BEAT_SCHEDULE["ladder-round"] = {
    "task": "games.ladder.tasks.ladder_round_task",
    "schedule": LADDER_INTERVAL_SECONDS,
    "options": {"expires": LADDER_INTERVAL_SECONDS},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- the game ------------------------------------------------------------------------
# Seconds an accepted turn may wait for the worker before the sweeper queues it again.
RESOLVE_GRACE_SECONDS = _positive_int("RESOLVE_GRACE_SECONDS", 20)
# Missed turns in a row after which a built-in bot takes the seat.
MISSED_TURNS_BEFORE_BOT = _positive_int("MISSED_TURNS_BEFORE_BOT", 3)
STANDIN_BOT = env.str("STANDIN_BOT", default="random")
# Ratings (games/compete): a rating not played for this many days leaves the leaderboards.
RATING_ACTIVE_DAYS = _positive_int("RATING_ACTIVE_DAYS", 90)
# A challenge not answered within this many seconds expires (a day).
CHALLENGE_EXPIRE_SECONDS = _positive_int("CHALLENGE_EXPIRE_SECONDS", 24 * 3600)

# --- fault tests only (games/faults.py) ------------------------------------------------
# Empty in production. A fault test names a step here to pause the first process
# that reaches it, and a folder where the pause is announced and released.
FAULT_PAUSE_AT = env.str("HELIUM3_FAULT_PAUSE_AT", default="")
FAULT_DIR = env.str("HELIUM3_FAULT_DIR", default="")

# --- the bot API (/api/v1/) ---------------------------------------------------------
# Requests per token per window; one more in the window answers 429 with Retry-After.
API_RATE_LIMIT = _positive_int("API_RATE_LIMIT", 120)
API_RATE_WINDOW_SECONDS = _positive_int("API_RATE_WINDOW_SECONDS", 60)

# --- security (production: DEBUG=0) -------------------------------------------------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# A load balancer's health check may come over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusal_one_line": {"()": "helium3_site.logfilters.RefusalOneLine"}},
    # A refusal is one line, as every other 4xx (no PermissionDenied traceback): on the
    # request log, for every handler, and on the web log's own handler, for what
    # reaches it from elsewhere (django.security.*'s 400s).
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["refusal_one_line"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "axes": {"level": "WARNING"},
        "django.request": {"filters": ["refusal_one_line"]},
    },
}
