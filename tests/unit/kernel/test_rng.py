"""The rng: the same seed and stream version always draw the same; another version or
seed draws differently, so a retried command is repeatable but moves are not."""

from __future__ import annotations

import pytest

from domain.kernel.rng import Rng

ITEMS = list(range(52))


def draws(rng: Rng) -> tuple[list[int], int, int]:
    return rng.shuffled(ITEMS), rng.choice(ITEMS), rng.randint(1, 1_000_000)


def test_the_same_seed_and_version_draw_the_same():
    assert draws(Rng("seed", 7)) == draws(Rng("seed", 7))
    assert draws(Rng(42)) == draws(Rng(42, 0))


def test_another_version_draws_differently():
    assert draws(Rng("seed", 7)) != draws(Rng("seed", 8))


def test_another_seed_draws_differently():
    assert draws(Rng("seed", 7)) != draws(Rng("other", 7))


def test_the_draws_do_not_depend_on_the_global_random_state():
    import random

    random.seed(1)
    first = draws(Rng("seed", 3))
    random.seed(2)
    assert draws(Rng("seed", 3)) == first


def test_a_shuffle_is_a_new_permutation_and_leaves_its_input_alone():
    items = list(ITEMS)
    shuffled = Rng("seed").shuffled(items)
    assert items == ITEMS and sorted(shuffled) == ITEMS and shuffled != ITEMS


def test_choice_and_randint_stay_within_what_they_are_given():
    rng = Rng("bounds")
    assert all(rng.choice("abc") in "abc" for _ in range(50))
    assert {rng.randint(1, 3) for _ in range(200)} == {1, 2, 3}


@pytest.mark.parametrize("seed", ["seed", 7, "another"])
def test_a_shuffle_is_the_standard_librarys_shuffle_of_the_same_generator(seed):
    """``Rng.shuffled`` runs ``random.Random.shuffle``'s steps itself (to be compiled): every
    size gives the same order from the same seed, and leaves the generator where the standard
    library leaves it (the draws after it agree too)."""
    for size in range(0, 70):
        ours, theirs = Rng(seed, size), Rng(seed, size)
        expected = list(range(size))
        theirs._random.shuffle(expected)
        assert ours.shuffled(range(size)) == expected
        assert ours.randint(0, 10**9) == theirs.randint(0, 10**9)
