"""Record seeded random games as stored streams, with what they fold to, for the test
that streams stored by older code still fold to the same states
(``tests/unit/kernel/test_stored_streams_fold.py``).

Run it from a checkout of the code whose streams are to be kept (the fixtures in
``tests/fixtures/streams/`` were made by the code before issue 17's engine rework, but for the
two ``*-rules5`` ones, made under Pax Pamir's rules version 5; the header names the version
since)::

    .venv/bin/python tools/record_streams.py OUT_DIR

Each game is one gzipped JSON Lines file: a header (game, seats, options), then one line
per command: the game events it stored (the stored shape: source ``game``, schema version
``v``) and, every few commands and at the end, the checkpoint: ``to_move``, the views of
every seat, a spectator and everyone, and every seat's legal commands.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from domain.games.dynasties import RULES as DYNASTIES  # noqa: E402
from domain.games.pax_pamir import RULES as PAX  # noqa: E402
from domain.kernel.events import EVERYONE  # noqa: E402
from domain.kernel.rng import Rng  # noqa: E402

GAMES = (("pax_pamir", PAX, 2, 11, {}), ("pax_pamir", PAX, 5, 12, {"open_hands": True}),
         ("pax_pamir", PAX, 3, 13, {"first_chooser": "seat_0"}), ("pax_pamir", PAX, 4, 14, {}),
         ("pax_pamir", PAX, 4, 15, {}), ("pax_pamir", PAX, 2, 16, {}),
         ("dynasties", DYNASTIES, 3, 21, {}), ("dynasties", DYNASTIES, 6, 22, {}),
         ("dynasties", DYNASTIES, 4, 23, {"mid_round_enquire": "tda", "shortfall": "debt_to_legacy"}))
CHECK_EVERY = 7


def stored(rules, event) -> dict:
    """The event as the store keeps it: its schema version is its game's (``rules.upcasters``)."""
    return {**event.to_json(), "source": "game", "v": rules.upcasters.current_version(event.type)}


def checkpoint(rules, state, seats: int) -> dict:
    return {"to_move": rules.to_move(state),
            "views": {str(v): rules.view(state, v) for v in [*range(seats), None, EVERYONE]},
            "legal": [[c.to_json() for c in rules.legal_commands(state, s)] for s in range(seats)]}


def record(kind, rules, seats, seed, given, out: Path) -> None:
    choose = random.Random(seed)
    options = rules.check_options(given)
    events = rules.setup(seats, options, Rng(seed, 0))
    state = None
    for event in events:
        state = rules.evolve(state, event)
    count = len(events)
    lines = [{"game": kind, "seats": seats, "options": given, "seed": seed, "rules_version": rules.rules_version},
             {"events": [stored(rules, e) for e in events], "check": checkpoint(rules, state, seats)}]
    commands = 0
    while rules.outcome(state) is None:
        seat = choose.choice(rules.to_move(state))
        command = choose.choice(rules.legal_commands(state, seat))
        decided = rules.decide(state, seat, command, Rng(seed, count))
        for event in decided:
            state = rules.evolve(state, event)
        count += len(decided)
        commands += 1
        line = {"seat": seat, "command": command.to_json(), "events": [stored(rules, e) for e in decided]}
        if commands % CHECK_EVERY == 0 or rules.outcome(state) is not None:
            line["check"] = checkpoint(rules, state, seats)
        lines.append(line)
    lines[-1]["outcome"] = rules.outcome(state).to_json()
    with gzip.open(out / f"{kind}-{seats}-{seed}.jsonl.gz", "wt") as f:
        for line in lines:
            f.write(json.dumps(line, sort_keys=True) + "\n")


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    for game in GAMES:
        record(*game, target)
