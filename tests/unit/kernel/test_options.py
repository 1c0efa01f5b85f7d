"""Options: checked once into a typed, frozen object. Defaults fill the gaps, every value
is checked against its spec, an unknown name is refused by name, a game's cross-option
rule runs last, and a recorded set reads back even after options come and go."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, fields

import pytest

from domain.games import default_registry
from domain.kernel.errors import InvalidOptions
from domain.kernel.events import redact
from domain.kernel.rules import GameOptions, OptionSpec, option
from domain.kernel.table import PLATFORM_OPTIONS, Table, game_created, split_options


@dataclass(frozen=True)
class TaxOptions(GameOptions):
    rounds: int = option(3, "rounds to play", minimum=1, maximum=9)
    hand_limit: int | None = option(None, "cards a seat may hold; null: no limit", minimum=1, nullable=True)
    teaching: bool = option(False, "show every card")
    pace: str = option("fast", "how fast", choices=("fast", "slow"))

    def validate(self) -> None:
        if self.pace == "slow" and self.rounds > 5:
            raise InvalidOptions("rounds", "a slow game has at most 5 rounds")


def refusal(given: dict) -> InvalidOptions:
    with pytest.raises(InvalidOptions) as refused:
        TaxOptions.check(given)
    return refused.value


def test_defaults_fill_every_option_not_given():
    assert TaxOptions.check({}) == TaxOptions(rounds=3, hand_limit=None, teaching=False, pace="fast")
    assert TaxOptions.check(None) == TaxOptions()
    assert TaxOptions.check({"rounds": 9, "pace": "fast"}).rounds == 9


def test_the_options_object_is_typed_and_frozen():
    options = TaxOptions.check({"teaching": True})
    assert options.teaching is True
    with pytest.raises(FrozenInstanceError):
        options.rounds = 4  # type: ignore[misc]
    assert options.to_json() == {"rounds": 3, "hand_limit": None, "teaching": True, "pace": "fast"}


def test_an_integer_outside_its_bounds_is_refused_naming_the_option_and_the_range():
    for rounds in (0, 10):
        refused = refusal({"rounds": rounds})
        assert refused.option == "rounds"
        assert refused.reason == f"option 'rounds': {rounds} is out of range; allowed >= 1 <= 9"
    assert refusal({"hand_limit": 0}).reason == "option 'hand_limit': 0 is out of range; allowed >= 1 or null"


def test_a_value_of_the_wrong_type_is_refused():
    assert refusal({"rounds": "3"}).reason == "option 'rounds': must be an integer >= 1 <= 9"
    assert refusal({"rounds": True}).reason == "option 'rounds': must be an integer >= 1 <= 9"
    assert refusal({"teaching": 1}).reason == "option 'teaching': must be true or false"
    assert refusal({"pace": "medium"}).reason == "option 'pace': must be one of fast, slow"


def test_null_is_allowed_only_where_the_option_is_nullable():
    assert TaxOptions.check({"hand_limit": None}).hand_limit is None
    assert TaxOptions.check({"hand_limit": 4}).hand_limit == 4
    assert refusal({"rounds": None}).option == "rounds"


def test_an_unknown_option_is_refused_by_name_listing_the_known_ones():
    refused = refusal({"rouns": 3})
    assert refused.option == "rouns"
    assert refused.reason == "option 'rouns': unknown option; known options are hand_limit, pace, rounds, teaching"


def test_the_games_validate_hook_refuses_a_combination_after_each_value_passed():
    assert TaxOptions.check({"pace": "slow", "rounds": 5}).pace == "slow"
    refused = refusal({"pace": "slow", "rounds": 6})
    assert refused.option == "rounds" and refused.reason == "option 'rounds': a slow game has at most 5 rounds"


def test_recorded_options_read_back_ignoring_names_no_longer_known_and_defaulting_new_ones():
    recorded = {"rounds": 2, "retired_option": True}
    assert TaxOptions.from_json(recorded) == TaxOptions(rounds=2)


def test_each_option_spec_takes_its_kind_from_the_default_or_its_choices():
    specs = {spec.name: spec for spec in TaxOptions.specs()}
    assert [(name, spec.kind) for name, spec in specs.items()] == [
        ("rounds", "int"), ("hand_limit", "int"), ("teaching", "bool"), ("pace", "choice")]
    assert specs["rounds"] == OptionSpec("rounds", "int", 3, "rounds to play", minimum=1, maximum=9)
    assert specs["hand_limit"].nullable and not specs["rounds"].nullable
    assert specs["pace"].to_json() == {"name": "pace", "type": "choice", "default": "fast", "description": "how fast",
                                       "nullable": False, "choices": ["fast", "slow"]}
    assert specs["rounds"].to_json()["minimum"] == 1 and specs["rounds"].to_json()["maximum"] == 9


NO_CLOCK = {"clock_bank_seconds": None, "clock_increment_seconds": 0, "clock_cap_seconds": None,
            "clock_move_seconds": None}


def test_the_platform_takes_seating_open_information_and_the_clock_and_passes_the_rest_to_the_game():
    assert [spec.name for spec in PLATFORM_OPTIONS] == ["seating", "open_information", *NO_CLOCK]
    platform, game = split_options({"seating": "random", "rounds": 4})
    assert platform == {"seating": "random", "open_information": False, **NO_CLOCK}
    assert game == {"rounds": 4}
    assert split_options({})[0] == {"seating": "as_joined", "open_information": False, **NO_CLOCK}


def test_the_platform_refuses_its_own_options_out_of_range_and_a_body_that_is_not_an_object():
    with pytest.raises(InvalidOptions, match="option 'seating': must be one of as_joined, random"):
        split_options({"seating": "by_age"})
    with pytest.raises(InvalidOptions, match="option 'open_information': must be true or false"):
        split_options({"open_information": "yes"})
    with pytest.raises(InvalidOptions, match="option 'options': must be an object"):
        split_options(["seating"])  # type: ignore[arg-type]


@dataclass(frozen=True)
class DealOptions(GameOptions):
    deal: dict | None = option(None, "a given deal instead of a shuffle", kind="object")


def test_an_object_option_takes_plain_json_objects_only_and_keeps_its_own_copy():
    (spec,) = DealOptions.specs()
    assert (spec.kind, spec.nullable) == ("object", True)
    given = {"hands": [["c1"], ["c2"]]}
    checked = DealOptions.check({"deal": given})
    given["hands"].append(["c3"])
    assert checked.deal == {"hands": [["c1"], ["c2"]]}, "changing what was given changes nothing checked"
    assert DealOptions.check({}).deal is None and DealOptions.check({"deal": None}).deal is None
    for bad, reason in (([1], "must be an object or null"), ({"x": float("nan")}, "must be plain JSON"),
                        ({"x": "y" * 20_000}, "is too large")):
        with pytest.raises(InvalidOptions, match=reason):
            DealOptions.check({"deal": bad})


@dataclass(frozen=True)
class SecretDealOptions(GameOptions):
    rounds: int = option(3, "rounds to play", minimum=1)
    deal: dict | None = option(None, "a given deal", kind="object", secret=True)


def test_a_secret_option_is_listed_as_secret_and_kept_out_of_the_public_record():
    assert SecretDealOptions.secret_names() == ("deal",)
    assert [spec.to_json().get("secret", False) for spec in SecretDealOptions.specs()] == [False, True]
    options = SecretDealOptions.check({"deal": {"order": ["c2", "c1"]}}).to_json()
    created = game_created("tax", options, 2, "p1", "seed", SecretDealOptions.secret_names())
    public = redact(created, None)
    assert public["data"]["options"] == {"rounds": 3} and public["data"]["secret_options"] == ["deal"]
    assert "c2" not in str(public)
    table = Table()
    table.apply(created)
    assert table.game_options() == {"rounds": 3, "deal": {"order": ["c2", "c1"]}}
    assert table.public_options() == {"rounds": 3, "deal": "(secret)"}


def test_every_hosted_games_options_read_and_write_exactly_their_fields():
    # from_json and to_json name the fields from __dataclass_fields__, which would also hold a
    # ClassVar: an options class declares none, and each round trip gives the same options back
    for rules in default_registry().values():
        cls = rules.options_type
        assert list(cls.__dataclass_fields__) == [f.name for f in fields(cls)], rules.kind
        checked = cls.check({})
        assert set(checked.to_json()) == {f.name for f in fields(cls)}
        assert cls.from_json(checked.to_json()) == checked
        # a store may hand the recorded options back in another order: read, then written, in the fields' order
        reordered = dict(reversed(list(checked.to_json().items())))
        assert list(cls.from_json(reordered).to_json()) == list(checked.to_json()), rules.kind
