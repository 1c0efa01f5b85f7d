"""Phase 2 by commit-reveal (option ``commit_reveal_tributes``): R17a."""

import hashlib

from domain.games.dynasties.rules import tribute_digest
from domain.kernel.commands import Command
from domain.kernel.events import redact
from tests.helpers.scenario import expect
from tests.unit.dynasties.dynasties_table import deal, tribute_cmd

THREE = (["coppe-09", "coppe-02", "coppe-03", "coppe-04"],
         ["denari-09", "denari-02", "denari-03", "denari-04"],
         ["spade-05", "spade-02", "spade-03", "spade-04"])
SALTS = ("00" * 16, "a1" * 16, "5e" * 32)


def sealed(*hands, **options):
    return deal(*hands, commit_reveal_tributes=True, **options)


def seal(card: str, salt: str) -> Command:
    return Command("CommitTribute", {"hash": tribute_digest(salt, card)})


def reveal(salt: str) -> Command:
    return Command("RevealTribute", {"salt": salt})


def all_sealed(cards=("coppe-09", "denari-09", "spade-05")):
    g = sealed(*THREE)
    for seat, card in enumerate(cards):
        g = g.when(seat, seal(card, SALTS[seat]))
    return g


def test_r17a_the_seal_is_sha256_of_the_salt_bytes_then_the_card_id():
    assert tribute_digest("a1" * 16, "coppe-09") == hashlib.sha256(bytes([0xA1] * 16) + b"coppe-09").hexdigest()


def test_r17a_every_seat_with_cards_seals_first_and_nothing_is_listed_for_a_free_hash():
    g = sealed(*THREE)
    assert g.to_move() == [0, 1, 2]
    assert g.legal(0) == []  # a hash cannot be listed...
    choice = g.rules.prompt(g.state, 0).to_json()["choices"]
    assert choice == {"CommitTribute": {"allows": "free", "kind": "hash", "type": "string",
                                        "description": "exactly 64 lowercase hex digits: sha256(salt || card id)",
                                        "pattern": "[0-9a-f]{64}"}}  # ...so the prompt says what it must be
    g.when(0, tribute_cmd("coppe-09")).then_rejects("send CommitTribute, then RevealTribute")


def test_r17a_a_seal_is_public_and_names_no_card():
    g = sealed(*THREE).when(0, seal("coppe-09", SALTS[0]))
    g.then(expect("TributeSealed", seat=0, hash=tribute_digest(SALTS[0], "coppe-09")))
    assert g.events[0].secret is None
    assert g.view(1)["players"][0]["tribute_hash"] == tribute_digest(SALTS[0], "coppe-09")
    assert g.view(1)["players"][0]["tribute_committed"] is False
    assert g.to_move() == [1, 2]


def test_r17a_a_seal_is_final():
    sealed(*THREE).when(0, seal("coppe-09", SALTS[0])).when(0, seal("coppe-02", SALTS[0])) \
        .then_rejects("you have already sealed your Tribute; a seal is final")


def test_r17a_a_hash_that_is_not_64_lowercase_hex_is_refused_with_what_it_must_be():
    for bad in ("AB" * 32, "ab" * 31, "coppe-09", 64):
        sealed(*THREE).when(0, Command("CommitTribute", {"hash": bad})) \
            .then_rejects("a hash must be exactly 64 lowercase hex digits")


def test_r17a_nobody_reveals_before_every_seat_has_sealed():
    g = sealed(*THREE).when(0, seal("coppe-09", SALTS[0])).when(1, seal("denari-09", SALTS[1]))
    assert g.to_move() == [2]
    g.when(0, reveal(SALTS[0])).then_rejects("reveal your Tribute once every seat has sealed one")


def test_r17a_a_reveal_that_differs_from_its_seal_is_refused_with_the_reason_and_changes_nothing():
    g = all_sealed()
    assert g.to_move() == [0, 1, 2]
    before = g.state
    refused = g.when(0, reveal(SALTS[1]))
    refused.then_rejects("your reveal does not match your seal")
    assert refused.state == before
    # a seal of a card the seat does not hold opens nothing either
    g2 = sealed(*THREE).when(0, seal("denari-09", SALTS[0]))
    for seat in (1, 2):
        g2 = g2.when(seat, seal(THREE[seat][0], SALTS[seat]))
    g2.when(0, reveal(SALTS[0])).then_rejects("the hash of no Noble in your hand")


def test_r17a_reveals_are_secret_until_the_last_then_public_with_their_salts():
    g = all_sealed().when(0, reveal(SALTS[0]))
    g.then(expect("TributeCommitted", seat=0, card="coppe-09")).then_not("TributesRevealed")
    committed = g.events[0]
    assert committed.secret == {"card": "coppe-09", "salt": SALTS[0]} and committed.secret_to == frozenset({0})
    assert redact(committed, 1).get("secret") is None
    assert g.view(1)["my_tribute"] is None and g.view(0)["my_tribute"] == "coppe-09"
    g.when(0, reveal(SALTS[0])).then_rejects("you have already revealed your Tribute")
    done = g.when(1, reveal(SALTS[1])).when(2, reveal(SALTS[2]))
    done.then(expect("TributesRevealed", highest=9), expect("FirstPlayerChosen", seat=2, value=5))
    rows = done.of_type("TributesRevealed")[0].data["tributes"]
    assert rows == [{"seat": s, "card": c, "salt": SALTS[s]} for s, c in enumerate(("coppe-09", "denari-09", "spade-05"))]
    sealed_hashes = {e.data["seat"]: e.data["hash"] for e in done.history if e.type == "TributeSealed"}
    assert all(tribute_digest(row["salt"], row["card"]) == sealed_hashes[row["seat"]] for row in rows)
    assert done.state.tribute_hash == [None, None, None]


def test_r17a_an_all_tied_redraw_seals_again():
    done = all_sealed(("coppe-09", "denari-09", "spade-02"))
    g = sealed(*THREE)
    for seat, card in enumerate(("coppe-02", "denari-02", "spade-02")):
        g = g.when(seat, seal(card, SALTS[seat]))
    for seat in range(3):
        g = g.when(seat, reveal(SALTS[seat]))
    g.then(expect("TributeStalemate"))
    assert g.to_move() == [0, 1, 2] and g.state.tribute_hash == [None, None, None]
    assert g.rules.prompt(g.state, 0).allows("CommitTribute")
    assert done.to_move() == [0, 1, 2]


def test_r17a_without_the_option_commit_and_reveal_are_refused():
    deal(*THREE).when(0, seal("coppe-09", SALTS[0])).then_rejects("give yours with SubmitTribute")
    deal(*THREE).when(0, reveal(SALTS[0])).then_rejects("give yours with SubmitTribute")
