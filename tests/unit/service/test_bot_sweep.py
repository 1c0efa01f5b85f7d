"""The bots' sweep (``service.background.bot_seats.sweep``): every game whose bot is asked gets a
move requested, and a game found waiting for a person is not loaded again until its version moves,
so a sweep over thousands of games waiting for their people costs one read of their versions."""

from __future__ import annotations

from service.background.bot_seats import BOT_GAMES, play_one, prompted_bots, sweep
from service.base.config import Config
from service.streams.envelopes import stream_of
from service.wiring.bootstrap import build_service


class _Requests:
    """A driver that records what it is asked."""

    def __init__(self):
        self.asked: list[tuple[str, int]] = []

    def request(self, game_id, version, prompted_at=None):
        self.asked.append((game_id, version))


def _counting_loads(service):
    loaded: list[str] = []
    load = service.load

    def counted(game_id, *args, **kwargs):
        loaded.append(game_id)
        return load(game_id, *args, **kwargs)

    service.load = counted
    return loaded


def test_a_game_waiting_for_its_person_is_loaded_again_only_once_it_moves():
    service = build_service(Config(store_url="memory://", background="process"))
    person = service.players.create("ann")
    games = []
    for _ in range(3):  # Dynasties, 2 seats: both choose their Tribute at once, the bot too
        game = service.create_game(person, "dynasties", {"starting_gold": 30}, 2, bots=[{"kind": "random"}])
        service.join_game(game.id, person)
        games.append(game.id)
    waiting, also_waiting, bot_asked = games
    for game_id in (waiting, also_waiting):
        assert play_one(service, game_id)  # the bot has chosen: only the person is asked now
        assert prompted_bots(service.load(game_id)) == []
    assert prompted_bots(service.load(bot_asked)) == [1]
    assert set(service.store.set_members(BOT_GAMES)) == set(games)
    loaded, driver, quiet = _counting_loads(service), _Requests(), {}

    assert sweep(service, driver, quiet) == 1  # the first sweep loads every game
    assert sorted(loaded) == sorted(games) and [g for g, _ in driver.asked] == [bot_asked]
    assert quiet == {waiting: service.store.version(stream_of(waiting)),
                     also_waiting: service.store.version(stream_of(also_waiting))}

    loaded.clear()
    driver.asked.clear()
    assert sweep(service, driver, quiet) == 1  # the next: only the game whose bot is asked
    assert loaded == [bot_asked] and [g for g, _ in driver.asked] == [bot_asked]

    game = service.load(waiting)
    service.submit_command(waiting, person, game.rules.legal_commands(game.state, 0)[0])
    loaded.clear()
    driver.asked.clear()
    sweep(service, driver, quiet)  # the person moved: that game is looked at again
    assert sorted(loaded) == sorted([waiting, bot_asked])
    assert {g for g, _ in driver.asked} == {g for g in (waiting, bot_asked) if prompted_bots(service.load(g))}


def test_without_a_memory_every_sweep_loads_every_game():
    service = build_service(Config(store_url="memory://", background="process"))
    person = service.players.create("bo")
    game = service.create_game(person, "dynasties", {"starting_gold": 30}, 2, bots=[{"kind": "random"}])
    service.join_game(game.id, person)
    assert play_one(service, game.id)
    loaded, driver = _counting_loads(service), _Requests()
    sweep(service, driver)
    sweep(service, driver)
    assert loaded == [game.id, game.id] and driver.asked == []
