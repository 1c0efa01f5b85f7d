"""The live hub's once-a-second check of its open streams (issue 18): a client that closed
its socket, and a token rotated or revoked, end their streams; the credentials are looked
up when the token generation moved, and always for streams opened since the last check."""

from __future__ import annotations

import socket
import time

from service.adapters.memory_store import MemoryStore
from service.players.live_hub import LiveHub
from service.players.players import Players, hash_token


class CountingPlayers(Players):
    """Players that count the credential lookups the hub makes."""

    lookups = 0

    def still_current(self, credentials):
        self.lookups += 1
        return super().still_current(credentials)


def hub_and_players():
    store = MemoryStore()
    players = CountingPlayers(store)
    return LiveHub(store, lambda stream: None, poll=3600, credentials=players), players


def test_a_stream_whose_client_closed_its_socket_is_ended_and_an_open_one_is_not():
    hub, _ = hub_and_players()
    left, left_client = socket.socketpair()
    stays, stays_client = socket.socketpair()
    gone = hub.subscribe("game-1", connection=left)
    open_ = hub.subscribe("game-1", connection=stays)
    stays_client.sendall(b"x")  # a client that sends bytes has not gone: they stay unread
    left_client.close()
    hub.check_subscribers()
    assert gone.ended == "gone" and gone.queue.get_nowait() is None
    assert open_.ended is None and stays.recv(1) == b"x"
    for s in (left, stays, stays_client):
        s.close()


def test_a_rotated_or_revoked_token_ends_its_streams_and_no_other():
    hub, players = hub_and_players()
    ann, bob, cy = (players.create(name) for name in ("Ann", "Bob", "Cy"))
    streams = {p["name"]: hub.subscribe("game-1", (p["id"], hash_token(p["token"]))) for p in (ann, bob, cy)}
    spectator = hub.subscribe("game-1")
    hub.check_subscribers()
    assert not any(s.ended for s in (*streams.values(), spectator))
    players.rotate_token(ann["token"])
    players.revoke_token(bob["token"])
    hub.check_subscribers()
    assert streams["Ann"].ended == streams["Bob"].ended == "credential"
    assert streams["Cy"].ended is None and spectator.ended is None


def test_credentials_are_looked_up_only_when_the_generation_moved_or_for_new_streams():
    hub, players = hub_and_players()
    ann, bob = players.create("Ann"), players.create("Bob")
    hub.subscribe("game-1", (ann["id"], hash_token(ann["token"])))
    hub.check_subscribers()
    looked = players.lookups
    hub.check_subscribers()
    hub.check_subscribers()
    assert players.lookups == looked  # nothing changed, no stream opened: no lookup
    # a stream opened with a token revoked just before (between its request's check and
    # its subscription): the generation moved before the last check, the stream is new
    old = bob["token"]
    players.revoke_token(old)
    hub.check_subscribers()
    late = hub.subscribe("game-1", (bob["id"], hash_token(old)))
    hub.check_subscribers()
    assert late.ended == "credential"


class CountingStore(MemoryStore):
    """A store that counts the hub's reads of the log heads."""

    heads_read = 0

    def log_heads(self):
        self.heads_read += 1
        return super().log_heads()


def test_a_hub_nobody_listens_to_ends_its_thread_and_asks_the_store_nothing():
    store = CountingStore()
    hub = LiveHub(store, lambda stream: None, poll=0.01, credentials=Players(store))
    subscriber = hub.subscribe("game-1")
    thread = hub._thread
    assert thread is not None and thread.is_alive()
    hub.unsubscribe(subscriber)
    thread.join(timeout=5)
    assert not thread.is_alive() and hub._thread is None
    read = store.heads_read
    time.sleep(0.1)  # ten polls' time: an ended thread reads nothing
    assert store.heads_read == read
    again = hub.subscribe("game-2")  # the next subscriber starts a thread again
    assert hub._thread is not None and hub._thread.is_alive()
    hub.unsubscribe(again)
