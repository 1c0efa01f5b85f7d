"""A bot seat's decision and its play (``service.background.bot_seats``), on a service that runs no
background work of its own (``background="process"``), so that the test drives the bot."""

from __future__ import annotations

from service.background.bot_seats import decide, play, play_one, search_here
from service.base.config import Config
from service.streams.envelopes import stream_of
from service.wiring.bootstrap import build_service


def _person_against_greedy():
    service = build_service(Config(store_url="memory://", background="process"))
    person = service.players.create("ann")
    game = service.create_game(person, "dynasties", {"starting_gold": 30}, 2, bots=[{"kind": "greedy"}])
    service.join_game(game.id, person)
    loaded = service.load(game.id)
    assert loaded.rules.to_move(loaded.state) == [0, 1]  # both choose their Tribute at once
    return service, person, game.id


def test_a_bot_whose_game_moved_on_while_it_searched_decides_again_and_plays():
    """The person's Tribute lands while the bot searches: the bot's play meets a version
    conflict and decides again at the new version (issue 33: that retry read an attribute
    the conflict does not carry, and the move failed instead)."""
    service, person, game_id = _person_against_greedy()
    searches = []

    def search_while_the_person_moves(game_type, rules, kind, level, shown, seed):
        if not searches:
            game = service.load(game_id)
            service.submit_command(game_id, person, rules.legal_commands(game.state, 0)[0])
        searches.append(seed)
        return search_here(game_type, rules, kind, level, shown, seed)

    assert play_one(service, game_id, search=search_while_the_person_moves)
    assert len(searches) == 2  # decided, met the conflict, decided again
    acted = [r.event for r in service.store.read(stream_of(game_id)) if r.event.get("bot")]
    assert acted and all(event["actor"] == 1 for event in acted)


def test_a_decision_is_due_its_think_time_after_the_prompt_and_is_played_once():
    service, _, game_id = _person_against_greedy()
    decision = decide(service, game_id, think=2.5, prompted_at=1000.0)
    assert decision is not None and decision.seat == 1 and decision.due == 1002.5
    assert play(service, decision)
    version = service.load(game_id).version
    assert play(service, decision)  # a second play of the same decision (a retried job) answers as the first
    assert service.load(game_id).version == version


def test_the_background_settings_refuse_values_that_would_stall_a_lane():
    import pytest

    for bad in ({"webhook_threads": 0}, {"bot_search_processes": -1}, {"background": "elsewhere"}):
        with pytest.raises(ValueError):
            build_service(Config(store_url="memory://", **bad))
