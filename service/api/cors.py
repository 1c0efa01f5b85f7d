"""Cross-origin requests (CORS), for front ends served from another origin than the API.

Off by default: a browser page on another origin may then not read the API's answers.
``GAMES_CORS_ORIGINS`` lists the origins that may (``https://play.example.org,http://localhost:5173``;
``*`` for any). Tokens travel in the ``Authorization`` header, never in cookies, so no
credentials mode is needed; the headers a client sends and reads (ETags, idempotency keys,
``Retry-After``) are allowed and exposed. flask-cors answers the preflights.
"""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

from service.base.config import Config

ALLOWED_HEADERS = ["Authorization", "Content-Type", "If-None-Match", "Idempotency-Key", "Last-Event-ID"]
EXPOSED_HEADERS = ["ETag", "Retry-After", "Location", "Allow"]


def install(app: Flask, config: Config) -> None:
    if not config.cors_origins:
        return
    origins = "*" if "*" in config.cors_origins else list(config.cors_origins)
    CORS(app, origins=origins, allow_headers=ALLOWED_HEADERS, expose_headers=EXPOSED_HEADERS,
         supports_credentials=False, max_age=600)
