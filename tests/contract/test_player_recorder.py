"""The ``PlayerRecorder`` contract: players by id and by the hash of their one current token."""

from __future__ import annotations

from tests.contract.backends import StoreContract


class PlayerRecorderContract(StoreContract):
    """The tests every store's players pass."""

    def test_players(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        store.add_player("p-2", "Brunhilde 🐉", "hash-2")
        assert store.player("p-1") == {"id": "p-1", "name": "Ada"}
        assert store.player("p-2") == {"id": "p-2", "name": "Brunhilde 🐉"}
        assert store.player_by_token("hash-1", "p-1") == {"id": "p-1", "name": "Ada"}
        assert store.player_by_token("hash-2", "p-2") == {"id": "p-2", "name": "Brunhilde 🐉"}
        assert store.player("p-3") is None
        assert store.player_by_token("hash-1", "p-2") is None  # another player's record never matches
        assert store.player_by_token("hash-3", "p-3") is None

    def test_a_token_is_rotated_only_from_the_current_one(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        store.add_player("p-2", "Bob", "hash-2")
        assert store.replace_token("p-1", "hash-1", "hash-1b") is True
        assert store.player_by_token("hash-1", "p-1") is None
        assert store.player_by_token("hash-1b", "p-1") == {"id": "p-1", "name": "Ada"}
        assert store.player("p-1") == {"id": "p-1", "name": "Ada"}

        assert store.replace_token("p-1", "hash-1", "hash-1c") is False  # rotated meanwhile
        assert store.replace_token("p-1", "hash-2", "hash-1c") is False  # another player's token
        assert store.replace_token("p-9", "hash-1b", "hash-1c") is False  # no such player
        assert store.player_by_token("hash-1c", "p-1") is None
        assert store.player_by_token("hash-1b", "p-1") == {"id": "p-1", "name": "Ada"}
        assert store.player_by_token("hash-2", "p-2") == {"id": "p-2", "name": "Bob"}

    def test_a_revoked_token_finds_no_player(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        assert store.replace_token("p-1", "hash-1", None) is True
        assert store.player_by_token("hash-1", "p-1") is None and store.player_by_token("", "p-1") is None
        assert store.player("p-1") == {"id": "p-1", "name": "Ada"}  # the player stays
        assert store.replace_token("p-1", "hash-1", "hash-new") is False  # nothing to rotate from
        assert store.player_by_token("hash-new", "p-1") is None

    def test_the_token_generation_moves_with_every_rotation_and_revocation_only(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        start = store.token_generation()
        store.add_player("p-2", "Bob", "hash-2")
        assert store.replace_token("p-1", "hash-9", "hash-x") is False  # refused: nothing changed
        assert store.token_generation() == start
        store.replace_token("p-1", "hash-1", "hash-1b")
        rotated = store.token_generation()
        assert rotated != start
        store.replace_token("p-2", "hash-2", None)
        assert store.token_generation() not in (start, rotated)

    def test_current_tokens_are_those_neither_rotated_nor_revoked(self, store):
        store.add_player("p-1", "Ada", "hash-1")
        store.add_player("p-2", "Bob", "hash-2")
        store.add_player("p-3", "Cy", "hash-3")
        store.replace_token("p-1", "hash-1", "hash-1b")
        store.replace_token("p-2", "hash-2", None)
        asked = {("p-1", "hash-1"), ("p-1", "hash-1b"), ("p-2", "hash-2"), ("p-3", "hash-3"),
                 ("p-3", "hash-unknown"), ("p-2", "hash-3")}  # another player's token matches nobody
        assert store.current_tokens(asked) == {("p-1", "hash-1b"), ("p-3", "hash-3")}
        assert store.current_tokens(set()) == set()
        many = {("p-9", f"h-{i}") for i in range(1200)} | {("p-3", "hash-3")}  # more than one SQL statement binds
        assert store.current_tokens(many) == {("p-3", "hash-3")}

    def test_players_outlive_the_store_object(self, store, reopen):
        store.add_player("p-1", "Ada", "hash-1")
        store.add_player("p-2", "Bob", "hash-2")
        store.replace_token("p-2", "hash-2", "hash-2b")
        store.close()

        again = reopen()
        assert again.player("p-1") == {"id": "p-1", "name": "Ada"}
        assert again.player_by_token("hash-1", "p-1") == {"id": "p-1", "name": "Ada"}
        assert again.player_by_token("hash-2", "p-2") is None
        assert again.player_by_token("hash-2b", "p-2") == {"id": "p-2", "name": "Bob"}


class TestPlayerRecorder(PlayerRecorderContract):
    pass
