"""The ``SharedStateRecorder`` contract: one value per secret, whoever asks first; small sets."""

from __future__ import annotations

from tests.contract.backends import StoreContract


class SharedStateRecorderContract(StoreContract):
    """The tests every store's secrets and small sets pass."""

    def test_the_first_candidate_becomes_the_secret(self, store):
        assert store.secret("signing", "first") == "first"
        assert store.secret("signing", "second") == "first"
        assert store.secret("other", "second") == "second"
        assert store.secret("signing", "third") == "first"

    def test_small_sets(self, store):
        assert store.set_members("waiting:p-1") == []
        for member in ("g-2", "g-1", "g-2", "g:3"):
            store.set_add("waiting:p-1", member)
        store.set_add("waiting:p-2", "g-9")
        assert store.set_members("waiting:p-1") == ["g-1", "g-2", "g:3"]  # sorted, no duplicate
        store.set_remove("waiting:p-1", "g-2")
        store.set_remove("waiting:p-1", "never")  # harmless
        store.set_remove("nothing", "g-1")
        assert store.set_members("waiting:p-1") == ["g-1", "g:3"]
        assert store.set_members("waiting:p-2") == ["g-9"]
        store.set_remove("waiting:p-1", "g-1")
        store.set_remove("waiting:p-1", "g:3")
        assert store.set_members("waiting:p-1") == []

    def test_every_store_on_the_backend_agrees(self, store, reopen):
        assert store.secret("signing", "mine") == "mine"
        store.set_add("s", "a")
        other = reopen()  # another process of the deployment
        assert other.secret("signing", "theirs") == "mine"
        other.set_add("s", "b")
        assert store.set_members("s") == ["a", "b"]


class TestSharedStateRecorder(SharedStateRecorderContract):
    pass
