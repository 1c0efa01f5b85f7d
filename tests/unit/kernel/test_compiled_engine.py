"""The compiled engine (``make compile``: the package built with mypyc, in build/engine) and the
pure-Python one are the same rules.

Seeded random games of both games are played twice, each in its own process: once on the
Python sources, once on the compiled modules (``tests/helpers/engine.py``). Every event
(secrets included), every offer of legal commands, the final views and the outcome must be
identical; a state pickled by either engine (mid-game and at the end) must load in the other and show the
same (the service's snapshots are pickles, keyed on the rules' version, not on the build).

Where no compiled build is present the comparison cannot be made and the test says so by
skipping, unless ``REQUIRE_COMPILED=1`` (CI, after ``make compile``), where it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.engine import compiled_build_present

ROOT = Path(__file__).resolve().parents[3]

CASES = [("pax_pamir", 2, [1, 2, 3]), ("pax_pamir", 5, [4, 5]), ("dynasties", 3, [6, 7, 8, 9]),
         ("dynasties", 5, [10, 11])]


def _run(*args: str, pure: bool, stdin: str | None = None) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "DOMAIN_PURE"}
    out = subprocess.run([sys.executable, "-m", "tests.helpers.engine_games", *args, *(["--pure"] if pure else [])],
                         cwd=ROOT, env=env, input=stdin, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def compiled_build():
    if not compiled_build_present():
        if os.environ.get("REQUIRE_COMPILED") == "1":
            pytest.fail("REQUIRE_COMPILED=1 but domain/ has no compiled build: run `make compile`")
        pytest.skip("no compiled build of domain/ here (make compile needs mypyc and a C compiler)")


@pytest.mark.parametrize(("kind", "seats", "seeds"), CASES, ids=[f"{k}-{s}" for k, s, _ in CASES])
def test_the_compiled_and_the_pure_engine_play_the_same_games(compiled_build, kind, seats, seeds):
    args = (kind, str(seats), *map(str, seeds))
    pure, compiled = _run(*args, pure=True), _run(*args, pure=False)
    assert pure["compiled"] is False and compiled["compiled"] is True
    for seed, a, b in zip(seeds, pure["games"], compiled["games"], strict=True):
        assert a["events"] == b["events"], f"seed {seed}: the event streams differ"
        assert a["offered"] == b["offered"], f"seed {seed}: the offered commands differ"
        assert a["views"] == b["views"] and a["outcome"] == b["outcome"], f"seed {seed}: the end differs"
        assert len(a["offered"]) > 10 and a["outcome"] is not None, "a whole game was played"


@pytest.mark.parametrize(("kind", "seats", "seeds"), CASES[::2], ids=[f"{k}-{s}" for k, s, _ in CASES[::2]])
def test_a_state_pickled_by_either_engine_loads_in_the_other(compiled_build, kind, seats, seeds):
    args = (kind, str(seats), *map(str, seeds))
    pure, compiled = _run(*args, pure=True), _run(*args, pure=False)
    from_pure = json.dumps([blob for game in pure["games"] for blob in game["pickles"]])
    from_compiled = json.dumps([blob for game in compiled["games"] for blob in game["pickles"]])
    in_compiled = _run(kind, str(seats), "--load", pure=False, stdin=from_pure)
    in_pure = _run(kind, str(seats), "--load", pure=True, stdin=from_compiled)
    assert in_compiled["compiled"] is True and in_pure["compiled"] is False
    own_pure = _run(kind, str(seats), "--load", pure=True, stdin=from_pure)
    assert in_compiled["looks"] == own_pure["looks"] == in_pure["looks"]
    midway, ended = own_pure["looks"][0::2], own_pure["looks"][1::2]
    for game, looks in zip(pure["games"], ended, strict=True):
        assert looks["views"] == game["views"], "a loaded state shows what the played one did"
    assert all(looks["to_move"] and any(looks["legal"]) for looks in midway), "mid-game states ask someone"
