"""deploy/: the compose file, its proxy and its image start the project's real entry
points, and every long-running service has a health check that works.

Docker is not needed: the files are read, and what they name is looked up in the
project (modules and the objects they serve, the Celery app, manage.py commands,
the stream paths the proxy must pass unbuffered, the health check script run
against a live server). Where nginx is installed, the proxy's own configuration runs
in front of this machine's servers: pages gzipped, an event passed on at once.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
LONG_RUNNING = {"proxy", "web", "stream", "worker", "beat", "postgres", "redis"}
APP_SERVICES = {"migrate", "web", "stream", "worker", "beat"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def words(command: Any) -> list[str]:
    return command.split() if isinstance(command, str) else [str(w) for w in command]


def option(command: list[str], name: str) -> str | None:
    for i, word in enumerate(command):
        if word == name and i + 1 < len(command):
            return command[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def defines(module: str, name: str) -> bool:
    """`module` is a file of the project that assigns `name` at its top level."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"no module {module}"
    assert Path(spec.origin).resolve().is_relative_to(REPO), f"{module} is not the project's"
    tree = ast.parse(Path(spec.origin).read_text())
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return True
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def test_every_process_kind_is_a_service_with_a_health_check(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert LONG_RUNNING | {"migrate"} <= set(services)
    for name in LONG_RUNNING:
        check = services[name].get("healthcheck")
        assert check and check.get("test"), f"{name} has no health check"
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
    # web and worker are the ones to multiply; beat must stay one.
    assert services["beat"]["deploy"]["replicas"] == 1
    for name in ("web", "worker"):
        assert "replicas" in services[name]["deploy"], name


def test_the_services_start_the_projects_real_entry_points(compose: dict[str, Any]) -> None:
    services = compose["services"]
    web = words(services["web"]["command"])
    assert web[0] == "gunicorn"
    module = next(w for w in web[1:] if not w.startswith("-"))
    assert defines(module, "application"), module
    assert option(web, "--bind") == "0.0.0.0:8000"

    stream = words(services["stream"]["command"])
    assert stream[0] == "uvicorn"
    module, _, attr = next(w for w in stream[1:] if not w.startswith("-")).partition(":")
    assert defines(module, attr or "app"), f"{module}:{attr}"
    assert option(stream, "--port") == "8001"

    from django.core.management import get_commands

    for name in ("worker", "beat"):
        command = words(services[name]["command"])
        assert command[0] == "celery"
        app = option(command, "--app") or option(command, "-A")
        assert app is not None, name
        assert defines(f"{app}.celery", "app"), app
        assert name in command
    migrate = words(services["migrate"]["command"])
    assert migrate[:2] == ["python", "manage.py"] and (REPO / "manage.py").exists()
    assert migrate[2] in get_commands()

    # The image runs them all and collects the static files with a real command.
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    for command in re.findall(r"python manage\.py (\w+)", dockerfile):
        assert command in get_commands(), command
    for source in re.findall(r"^COPY (.+) \S+$", dockerfile, re.M):
        for path in source.split():
            assert (REPO / path).exists(), f"the Dockerfile copies {path}, which is missing"
    for name in APP_SERVICES:
        build = services[name]["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (
            DEPLOY / "Dockerfile"
        )


def test_the_app_services_reach_postgres_and_redis_by_their_service_names(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    for name in APP_SERVICES:
        env = services[name]["environment"]
        assert env["DEBUG"] == "0"
        assert "@postgres:5432/" in env["DATABASE_URL"], name
        for key in ("CELERY_BROKER_URL", "CACHE_URL", "PUSH_REDIS_URL"):
            assert env[key].startswith("redis://redis:6379/"), (name, key)
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"
        if name != "migrate":
            assert depends["migrate"]["condition"] == "service_completed_successfully"


def test_the_proxy_passes_both_event_streams_unbuffered_to_the_stream_service(
    compose: dict[str, Any],
) -> None:
    from games.api.stream import STREAM_PATH
    from games.push.asgi import PUSH_PATH

    conf = (DEPLOY / "nginx.conf").read_text()
    mounted = compose["services"]["proxy"]["volumes"][0].split(":")[0]
    assert (DEPLOY / mounted).resolve() == DEPLOY / "nginx.conf"
    assert re.search(r"^\s*gzip on;", conf, re.M)
    assert re.search(r"upstream web \{\s*server web:8000;", conf)
    assert re.search(r"upstream stream \{\s*server stream:8001;", conf)
    for path in (PUSH_PATH, STREAM_PATH):
        found = re.search(r"location = " + re.escape(path) + r" \{(.*?)\}", conf, re.S)
        assert found, f"the proxy does not route {path}"
        block = found.group(1)
        assert "proxy_pass http://stream;" in block
        assert "proxy_buffering off;" in block
        assert "gzip off;" in block
        assert "proxy_read_timeout 1h;" in block
    rest = re.search(r"location / \{(.*?)\}", conf, re.S)
    assert rest and "proxy_pass http://web;" in rest.group(1)


def test_the_env_example_names_every_required_variable_and_holds_no_secret(
    compose: dict[str, Any],
) -> None:
    example: dict[str, str] = {}
    for line in (DEPLOY / "env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            example[key] = value
    assert example["SECRET_KEY"] == "" and example["POSTGRES_PASSWORD"] == ""
    text = (DEPLOY / "compose.yaml").read_text()
    for name, default in re.findall(r"\$\{(\w+)(:-|:\?|)", text):
        if default != ":-":
            assert name in example, f"compose.yaml needs {name}, which env.example lacks"


def test_the_health_check_script_tells_a_live_site_from_a_dead_port(live_server: Any) -> None:
    script = [sys.executable, str(DEPLOY / "healthcheck.py")]
    # A loaded test machine may take a while to answer the first request.
    env = {
        "ALLOWED_HOSTS": "testserver,localhost",
        "PATH": "/usr/bin:/bin",
        "HEALTHCHECK_TIMEOUT": "60",
    }
    up = subprocess.run(
        [*script, "http", f"{live_server.url}/healthz"], env=env, capture_output=True, timeout=90
    )
    assert up.returncode == 0, up.stderr
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    down = subprocess.run(
        [*script, "http", f"http://127.0.0.1:{dead}/healthz"], capture_output=True, timeout=90
    )
    assert down.returncode == 1 and b"unhealthy" in down.stderr
    # A page that is not 200 is unhealthy too.
    missing = subprocess.run(
        [*script, "http", f"{live_server.url}/no-such-page"], env=env, capture_output=True,
        timeout=90,
    )  # fmt: skip
    assert missing.returncode == 1 and b"404" in missing.stderr


def test_the_redis_health_check_pings_a_real_server() -> None:
    script = [sys.executable, str(DEPLOY / "healthcheck.py"), "redis"]
    with socket.socket() as sock:
        if sock.connect_ex(("127.0.0.1", 6379)) != 0:
            pytest.skip("no Redis on 127.0.0.1:6379")
    ok = subprocess.run([*script, "redis://127.0.0.1:6379/0"], capture_output=True, timeout=90)
    assert ok.returncode == 0, ok.stderr
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    down = subprocess.run([*script, f"redis://127.0.0.1:{dead}/0"], capture_output=True, timeout=90)
    assert down.returncode == 1


NGINX = Path("/usr/sbin/nginx")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "nginx ended while starting"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("nginx did not start")


@pytest.mark.skipif(not NGINX.exists(), reason="no nginx on this machine")
def test_the_proxy_compresses_pages_and_passes_an_event_before_the_stream_ends(
    live_server: Any, tmp_path: Path
) -> None:
    """deploy/nginx.conf in a real nginx, its upstreams pointed at this machine: the
    web's page comes gzipped, and an event of /push/ reaches the client while the
    stream is still open (a buffering proxy would hold it)."""
    import threading
    import time
    import urllib.request

    events = socket.socket()
    events.bind(("127.0.0.1", 0))
    events.listen(1)
    second_sent = threading.Event()
    first_read = threading.Event()

    def stream_server() -> None:  # the stream service: one event, then waits
        conn, _ = events.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            first = b'event: turn\ndata: {"match": 1}\n\n'
            conn.sendall(b"%x\r\n%s\r\n" % (len(first), first))
            first_read.wait(20)
            second_sent.set()
            conn.sendall(b"0\r\n\r\n")

    threading.Thread(target=stream_server, daemon=True).start()
    web_port = int(live_server.url.rsplit(":", 1)[1])
    port = free_port()
    conf = (DEPLOY / "nginx.conf").read_text()
    conf = conf.replace("server web:8000;", f"server 127.0.0.1:{web_port};")
    conf = conf.replace("server stream:8001;", f"server 127.0.0.1:{events.getsockname()[1]};")
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    assert f"listen 127.0.0.1:{port};" in conf and "web:8000" not in conf
    (tmp_path / "nginx.conf").write_text(conf)
    proc = subprocess.Popen(
        [str(NGINX), "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
         "-e", str(tmp_path / "error.log"),
         "-g", f"daemon off; pid {tmp_path / 'nginx.pid'};"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_port(port, proc)
        page = urllib.request.Request(
            f"http://127.0.0.1:{port}/",
            headers={"Accept-Encoding": "gzip", "Host": "testserver"},
        )
        with urllib.request.urlopen(page, timeout=60) as response:
            assert response.status == 200
            assert response.headers["Content-Encoding"] == "gzip"
            assert "text/html" in response.headers["Content-Type"]
        with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
            # As a browser's EventSource asks: gzip accepted (a compressed event would
            # wait in the compressor's buffer).
            client.sendall(
                b"GET /push/?match=1 HTTP/1.1\r\nHost: testserver\r\n"
                b"Accept-Encoding: gzip\r\nAccept: text/event-stream\r\n\r\n"
            )
            got = b""
            started = time.monotonic()
            while b'data: {"match": 1}' not in got and time.monotonic() - started < 20:
                got += client.recv(65536)
            assert b'data: {"match": 1}' in got, got
            # The event came while the stream was open: nothing after it was sent yet.
            assert not second_sent.is_set()
            assert b"content-encoding: gzip" not in got.lower()
            first_read.set()
    finally:
        first_read.set()
        proc.terminate()
        proc.wait(15)
        events.close()
