"""The ceiling for bench/bench_side_by_side.py: a bare Flask app under the same server and
settings as ``python -m service serve`` (``--server``, service.running.serving).

``GET /games/<id>/legal-commands`` answers a cached 2 KB state (a list of commands);
``POST /games/<id>/commands`` parses the JSON body and does one Redis compare-and-append
(a Lua script: the stream's length must equal the version this process last saw, then
XADD), retrying once with the current version on a conflict. Nothing else: no auth, no
rules, no schema, no projections. What the project does on top of this is its cost.

    python bench/ceiling_app.py --port 8100 --redis redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

APPEND = """
local current = redis.call('XLEN', KEYS[1])
if current ~= tonumber(ARGV[1]) then return -current - 1 end
redis.call('XADD', KEYS[1], (current + 1) .. '-1', 'e', ARGV[2])
return current + 1
"""

COMMANDS = [{"type": "tribute", "args": {"cards": [f"noble-{i}-{j}" for j in range(3)]}} for i in range(24)]
STATE = json.dumps({"version": 12, "seat": 0, "commands": COMMANDS}).encode()
assert 1900 <= len(STATE) <= 2300, len(STATE)


def create_app(redis_url: str, prefix: str):
    import redis
    from flask import Flask, Response, request

    app = Flask(__name__)
    client = redis.Redis.from_url(redis_url)
    append = client.register_script(APPEND)
    versions: dict[str, int] = {}

    @app.get("/health")
    def health():
        return {"status": "ok"}

    @app.get("/games/<game_id>/legal-commands")
    def legal(game_id):
        return Response(STATE, mimetype="application/json")

    @app.post("/games/<game_id>/commands")
    def post(game_id):
        body = request.get_json()
        key = f"{prefix}:{game_id}"
        raw = json.dumps(body)
        expected = versions.get(game_id, 0)
        for _ in range(2):
            reply = append(keys=[key], args=[expected, raw])
            if reply > 0:
                versions[game_id] = reply
                return {"version": reply, "events": [{"type": body["type"], "version": reply}]}, 201
            expected = -reply - 1
        return {"error": "conflict"}, 409

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--prefix", default="ceiling")
    parser.add_argument("--server", default="gevent", help="as python -m service serve --server (service.running.serving)")
    parser.add_argument("--connections", type=int, default=1000, help="as python -m service serve --connections")
    args = parser.parse_args()

    from service.running.serving import SERVERS, run

    if args.server not in SERVERS:
        raise SystemExit(f"--server: one of {', '.join(SERVERS)}")
    run(args.server, lambda: create_app(args.redis, args.prefix), args.host, args.port, args.workers,
        args.connections)


if __name__ == "__main__":
    main()
