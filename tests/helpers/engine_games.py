"""Seeded random games played by the rules alone, as JSON: what the pure and the compiled
engine must agree on (``tests/unit/kernel/test_compiled_engine.py``).

    python -m tests.helpers.engine_games KIND SEATS SEED... [--pure]
    python -m tests.helpers.engine_games KIND SEATS --load < pickles.json [--pure]

The first prints one JSON document: for each seed, every event of the game (setup included),
whose move it was and what each seat was offered before each command, the final views and
outcome, and the state after 40 commands and at the end pickled (base64), so the other engine can load it. The second
loads such pickles (a JSON list on standard input) and prints what each state shows.
"""

from __future__ import annotations

import base64
import json
import pickle
import random
import sys
from typing import Any

#: a random game longer than this is a runaway in any engine
MAX_COMMANDS = 5_000


def play(kind: str, seats: int, seed: int) -> dict[str, Any]:
    from domain.games import default_registry
    from domain.kernel.events import EVERYONE
    from domain.kernel.rng import Rng

    rules = default_registry()[kind]
    options = rules.check_setup(seats, {})
    choose = random.Random(seed)
    events = rules.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = rules.evolve(state, event)
    stream = [event.to_json() for event in events]
    offered: list[Any] = []
    count = len(events)
    midway = None  # the state after 40 commands, pickled: a game in progress, frames and all
    while not rules.is_over(state) and len(offered) < MAX_COMMANDS:
        to_move = rules.to_move(state)
        seat = choose.choice(to_move)
        legal = rules.legal_commands(state, seat)
        offered.append([to_move, [command.to_json() for command in legal]])
        events, state = rules.play(state, seat, choose.choice(legal), Rng(seed, count))
        count += len(events)
        stream.extend(event.to_json() for event in events)
        if len(offered) == 40:
            midway = base64.b64encode(pickle.dumps(state)).decode()
    outcome = rules.outcome(state)
    return {"events": stream, "offered": offered,
            "views": {str(viewer): rules.view(state, viewer) for viewer in [*range(seats), None, EVERYONE]},
            "outcome": outcome.to_json() if outcome is not None else None,
            "pickles": [midway, base64.b64encode(pickle.dumps(state)).decode()]}


def looks(kind: str, state: Any, seats: int) -> dict[str, Any]:
    """What a state shows (views, whose move, the legal commands): to compare a state loaded
    from the other engine's pickle with one folded here."""
    from domain.games import default_registry
    from domain.kernel.events import EVERYONE

    rules = default_registry()[kind]
    return {"views": {str(viewer): rules.view(state, viewer) for viewer in [*range(seats), None, EVERYONE]},
            "to_move": rules.to_move(state),
            "legal": [[command.to_json() for command in rules.legal_commands(state, seat)]
                      for seat in range(seats)]}


def main(argv: list[str]) -> None:
    from tests.helpers.engine import compiled_build_present, domain_is_compiled, use_compiled_domain

    if "--pure" in argv:
        argv = [arg for arg in argv if arg != "--pure"]
    elif compiled_build_present():
        use_compiled_domain()

    kind, seats = argv[0], int(argv[1])
    if argv[2:] == ["--load"]:
        states = [pickle.loads(base64.b64decode(blob)) for blob in json.load(sys.stdin)]
        json.dump({"compiled": domain_is_compiled(), "looks": [looks(kind, state, seats) for state in states]},
                  sys.stdout)
        return
    seeds = [int(seed) for seed in argv[2:]]
    json.dump({"compiled": domain_is_compiled(), "games": [play(kind, seats, seed) for seed in seeds]},
              sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
