"""Health checks of the deployment's containers (deploy/compose.yaml), with nothing
but Python's standard library and the project's own environment.

    python deploy/healthcheck.py http http://127.0.0.1:8000/healthz
    python deploy/healthcheck.py redis redis://redis:6379/0

`http`: the URL answers 200. The request names the site's own host (the first of
ALLOWED_HOSTS, else 127.0.0.1) so that Django's host check passes, and says it came
over HTTPS (X-Forwarded-Proto, trusted with BEHIND_TLS_PROXY) so that no HTTPS
redirect answers instead of the page; /healthz touches neither the database nor a
session. `redis`: the server answers PING (RESP over a plain socket).

Exit status 0 when healthy, 1 otherwise, with the reason on stderr.
"""

from __future__ import annotations

import os
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request

# Seconds for an answer (HEALTHCHECK_TIMEOUT); compose gives the check a little more.
TIMEOUT = float(os.environ.get("HEALTHCHECK_TIMEOUT", "5"))


def check_http(url: str) -> str | None:
    hosts = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
    host = hosts[0].lstrip(".") if hosts and hosts[0] != "*" else "127.0.0.1"
    request = urllib.request.Request(url, headers={"Host": host, "X-Forwarded-Proto": "https"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            if response.status != 200:
                return f"{url} answered {response.status}"
    except urllib.error.HTTPError as error:
        return f"{url} answered {error.code}"
    except OSError as error:
        return f"{url}: {error}"
    return None


def check_redis(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or 6379), timeout=TIMEOUT
        ) as sock:
            if parts.password:
                user = urllib.parse.unquote(parts.username or "default")
                secret = urllib.parse.unquote(parts.password)
                sock.sendall(_command("AUTH", user, secret))
                if not sock.recv(64).startswith(b"+OK"):
                    return f"{parts.hostname}: AUTH refused"
            sock.sendall(_command("PING"))
            answer = sock.recv(64)
    except OSError as error:
        return f"{parts.hostname}:{parts.port or 6379}: {error}"
    if not answer.startswith(b"+PONG"):
        return f"{parts.hostname}: PING answered {answer!r}"
    return None


def _command(*words: str) -> bytes:
    out = [f"*{len(words)}\r\n".encode()]
    for word in words:
        data = word.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


CHECKS = {"http": check_http, "redis": check_redis}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in CHECKS:
        print(f"usage: healthcheck.py {{{'|'.join(CHECKS)}}} URL", file=sys.stderr)
        return 2
    problem = CHECKS[argv[0]](argv[1])
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
