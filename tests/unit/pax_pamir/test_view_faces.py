"""What a seat's view gives a front end to draw the table with: each seat's stars per suit and
its hand and court limits (R-STR, R-LIM), and the printed face (name, region, suit, stars,
patriot, prize) of every card the view already shows, and of no other card (the deck stays
hidden). The web client names cards from these faces; it computes none of it."""

from __future__ import annotations

import random

from domain.games.pax_pamir import RULES
from domain.games.pax_pamir import queries as q
from domain.games.pax_pamir.data.board import Suit
from domain.games.pax_pamir.data.cards import COURT_CARDS
from service.adapters.memory_store import MemoryStore
from service.play.services import GameService
from tests.helpers.play import play_randomly, start_game


def _shown(view: dict) -> set[int]:
    shown = {slot["card"] for row in view["market"] for slot in row if slot["card"] is not None}
    shown.update(view["discard"])
    for player in view["players"]:
        shown.update(player["court"], player.get("hand", ()), player["prizes"])
    return shown


def test_faces_name_only_the_cards_a_view_shows_and_the_limits_follow_the_stars():
    service = GameService(MemoryStore(), {"pax_pamir": RULES})
    rng = random.Random(5)
    game_id, players = start_game(service, "pax_pamir", 3)
    checked, deals = 0, 1
    # 40 views looked at, 8 random commands apart; the deal comes from the server's secret seed
    # and a game may end before its 40th view (one did after 15), so the views run on over a
    # fresh deal: every run looks at as many views
    while checked < 40:
        if service.load(game_id).over:
            assert deals < 5, "5 deals in a row ended within a few views"
            game_id, players = start_game(service, "pax_pamir", 3)
            deals += 1
        play_randomly(service, game_id, players, rng, max_commands=8)
        game = service.load(game_id)
        for seat in range(3):
            view = game.rules.view(game.state, seat)
            if view["outcome"] is not None:
                break
            faces = {int(number) for number in view["faces"]}
            assert faces == _shown(view), "a face for a card the view does not show (or one missing)"
            assert not faces & set(game.state.deck), "a face names a card still in the deck"
            for player in view["players"]:
                stars = {suit: q.stars(game.state, player["seat"], suit) for suit in Suit}
                assert player["stars"] == {str(suit): n for suit, n in stars.items()}
                assert player["hand_limit"] == 2 + stars[Suit.INTELLIGENCE]
                assert player["court_limit"] == 3 + stars[Suit.POLITICAL]
            for number in view["players"][seat]["court"]:
                face, card = view["faces"][str(number)], COURT_CARDS[number]
                assert (face["name"], face["region"], face["suit"], face["rank"]) == \
                       (card.name, card.region.value, card.suit.value, card.rank)
            checked += 1
