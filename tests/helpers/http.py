"""What a test does against a server over real HTTP: sessions with a player's token."""

from __future__ import annotations

import requests


class PlayerClients:
    """Mixed into anything with a ``url``: a session per token, and new players."""

    url: str

    def client(self, token: str | None = None) -> requests.Session:
        session = requests.Session()
        if token:
            session.headers["Authorization"] = f"Bearer {token}"
        return session

    def new_player(self, name: str) -> tuple[dict, requests.Session]:
        response = requests.post(f"{self.url}/players", json={"name": name}, timeout=10)
        assert response.status_code == 201, response.text
        player = response.json()
        return player, self.client(player["token"])
