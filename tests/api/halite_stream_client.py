"""A program that plays one seat of a match through the bot API as a bot author
would write it: it holds the event stream open (GET /api/v1/stream/) and, on each
`your_turn` of its match, sends the orders a built-in bot of the engine gives on
its view. It never polls and never retries a refused request: a 429 is counted and
reported, so a test can tell that the rate limit was never met.

    python tests/api/halite_stream_client.py BASE_URL TOKEN MATCH_ID BOT

It prints one JSON object when the match is over: its seat, the turns it played,
its requests and how many answered 429, the seconds it took, and the match's
final view.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import engine


def main(base: str, token: str, match_id: int, bot: str) -> dict[str, Any]:
    started = time.monotonic()
    auth = {"Authorization": f"Bearer {token}"}
    requests = rate_limited = 0
    played: list[int] = []
    seat = None
    request = urllib.request.Request(f"{base}/api/v1/stream/", headers=auth)
    requests += 1
    with urllib.request.urlopen(request, timeout=30) as stream:
        for line in stream:
            if not line.strip():
                continue
            event = json.loads(line)
            if event["match_id"] != match_id:
                continue
            body = event["match"] if event["type"] != "turn_resolved" else None
            if event["type"] == "match_over":
                assert body is not None
                return {
                    "seat": seat,
                    "played": played,
                    "requests": requests,
                    "rate_limited": rate_limited,
                    "seconds": time.monotonic() - started,
                    "final": body,
                }
            if event["type"] != "your_turn":
                continue
            assert body is not None
            seat = body["seat"]
            view = body["state"]
            orders = {**engine.bot_orders(bot, view, seat), "turn": view["turn"]}
            post = urllib.request.Request(
                f"{base}/api/v1/matches/{match_id}/orders/",
                data=json.dumps(orders).encode(),
                headers={**auth, "Content-Type": "application/json"},
                method="POST",
            )
            requests += 1
            try:
                with urllib.request.urlopen(post, timeout=30) as answer:
                    answer.read()
            except urllib.error.HTTPError as error:
                if error.code != 429:
                    raise
                rate_limited += 1
                continue
            played.append(view["turn"])
    raise RuntimeError("the stream ended before the match did")


if __name__ == "__main__":
    base_url, raw_token, match, bot_name = sys.argv[1:5]
    print(json.dumps(main(base_url, raw_token, int(match), bot_name)))
