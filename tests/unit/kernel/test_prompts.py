"""Prompts: what each kind of allowed value accepts and lists, the reasons a refusal
gives, and the shape checks of ``Verb.parse`` that come before any prompt."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest

from domain.kernel.commands import Command
from domain.kernel.errors import RuleViolation
from domain.kernel.prompt import (
    AMOUNT,
    CARD,
    CHOICE,
    LISTED_PER_VERB,
    SEAT,
    Arg,
    Between,
    Kind,
    Nothing,
    OneOf,
    Prompt,
    SubsetOf,
    Verb,
)

TEXT = "Tax: take up to 2 rupees."
VERBS = (
    Verb("Stop", "stop taxing"),
    Verb("TakeRupee", "take a rupee from a card", Arg("card", CARD)),
    Verb("Discard", "discard cards", Arg("cards", CARD, many=True)),
    Verb("Pay", "pay an amount", Arg("amount", AMOUNT)),
    Verb("Target", "choose a seat", Arg("seat", SEAT)),
)


def reason_of(check, *args) -> str:
    with pytest.raises(RuleViolation) as refused:
        check(*args)
    return refused.value.reason


# -- each kind of allowed value -------------------------------------------------------------

def test_nothing_accepts_only_the_absent_argument_and_lists_one_command():
    prompt = Prompt(0, TEXT).nothing("Stop")
    prompt.check("Stop", None)
    assert list(Nothing().values()) == [None]
    assert prompt.commands(VERBS) == [Command("Stop", {})]
    assert prompt.to_json() == {"seat": 0, "text": TEXT, "choices": {"Stop": {"allows": "nothing"}}}


def test_one_of_accepts_its_options_and_refuses_others_with_the_prompt_text():
    prompt = Prompt(0, TEXT).one_of("TakeRupee", ["c2", "c1"])
    prompt.check("TakeRupee", "c1")
    assert reason_of(prompt.check, "TakeRupee", "c9") == f"'c9' is not a choice here ({TEXT})"
    assert list(prompt.choices["TakeRupee"].values()) == ["c2", "c1"]
    assert prompt.commands(VERBS) == [Command("TakeRupee", {"card": "c2"}), Command("TakeRupee", {"card": "c1"})]
    assert prompt.choices["TakeRupee"].to_json() == {"allows": "one_of", "options": ["c2", "c1"]}


def test_a_games_own_reason_for_a_value_still_carries_the_prompt_text():
    fixed = Prompt(0, TEXT).one_of("TakeRupee", ["c1"], why="that card holds no rupee")
    assert reason_of(fixed.check, "TakeRupee", "c9") == f"that card holds no rupee ({TEXT})"
    worded = Prompt(0, TEXT).one_of("TakeRupee", ["c1"], why=lambda card: f"{card} holds no rupee")
    assert reason_of(worded.check, "TakeRupee", "c9") == f"c9 holds no rupee ({TEXT})"
    sized = Prompt(0, TEXT).subset_of("Discard", ["c1", "c2"], 1, 1, size_why="discard exactly one card")
    assert reason_of(sized.check, "Discard", ["c1", "c2"]) == f"discard exactly one card ({TEXT})"


def test_subset_of_checks_the_size_then_each_member():
    prompt = Prompt(0, TEXT).subset_of("Discard", ["c3", "c1", "c2"], 1, 2)
    prompt.check("Discard", ["c1", "c3"])
    assert reason_of(prompt.check, "Discard", []) == f"choose 1 to 2 ({TEXT})"
    assert reason_of(prompt.check, "Discard", ["c1", "c2", "c3"]) == f"choose 1 to 2 ({TEXT})"
    assert reason_of(prompt.check, "Discard", ["c1", "c9"]) == f"'c9' is not a choice here ({TEXT})"
    exact = Prompt(0, TEXT).subset_of("Discard", ["c1", "c2"], 2, 2)
    assert reason_of(exact.check, "Discard", ["c1"]) == f"choose exactly 2 ({TEXT})"


def test_subset_of_lists_every_sorted_combination_of_each_allowed_size():
    prompt = Prompt(0, TEXT).subset_of("Discard", ["c3", "c1", "c2"], 0, 2)
    assert [c.args["cards"] for c in prompt.commands(VERBS)] == [
        [], ["c1"], ["c2"], ["c3"], ["c1", "c2"], ["c1", "c3"], ["c2", "c3"]]
    assert prompt.choices["Discard"].to_json() == {"allows": "subset_of", "options": ["c3", "c1", "c2"],
                                                   "min": 0, "max": 2}


def test_subset_of_caps_the_maximum_at_the_options_and_leaves_the_verb_out_when_too_few():
    assert Prompt(0, TEXT).subset_of("Discard", ["c1", "c2"], 1, 5).choices["Discard"] == SubsetOf(("c1", "c2"), 1, 2)
    assert not Prompt(0, TEXT).subset_of("Discard", ["c1"], 2, 3)
    assert not Prompt(0, TEXT).subset_of("Discard", ["c1", "c2"], 2, 1)


def test_between_accepts_its_range_inclusive_and_lists_every_integer_in_it():
    prompt = Prompt(0, TEXT).between("Pay", 0, 3)
    for amount in (0, 3):
        prompt.check("Pay", amount)
    assert reason_of(prompt.check, "Pay", 4) == f"4 is outside 0..3 ({TEXT})"
    assert reason_of(prompt.check, "Pay", -1) == f"-1 is outside 0..3 ({TEXT})"
    assert [c.args["amount"] for c in prompt.commands(VERBS)] == [0, 1, 2, 3]
    assert prompt.choices["Pay"] == Between(0, 3)
    assert prompt.choices["Pay"].to_json() == {"allows": "between", "min": 0, "max": 3}
    assert not Prompt(0, TEXT).between("Pay", 2, 1)


def test_an_empty_one_of_leaves_the_verb_out_and_an_empty_prompt_is_false():
    prompt = Prompt(0, TEXT).one_of("TakeRupee", []).nothing("Stop")
    assert not prompt.allows("TakeRupee") and prompt.allows("Stop")
    assert prompt.commands(VERBS) == [Command("Stop", {})]
    assert not Prompt(0, TEXT).one_of("TakeRupee", [])
    assert bool(Prompt(0, TEXT).one_of("TakeRupee", ["c1"]))


def test_allowed_is_what_the_prompt_allows_for_a_verb_worked_out_once_or_none_where_not_offered():
    worked: list[str] = []

    def cards() -> list[str]:
        worked.append("cards")
        return ["c1", "c2"]

    prompt = Prompt(0, TEXT).one_of("TakeRupee", cards).one_of("Target", lambda: []).nothing("Stop")
    assert worked == [], "a choice given as a function waits until it is read"
    allowed = prompt.allowed("TakeRupee")
    assert allowed == OneOf(("c1", "c2")) and prompt.allowed("TakeRupee") is allowed and worked == ["cards"]
    assert prompt.allowed("Target") is None and not prompt.allows("Target"), "worked out empty: not offered"
    assert prompt.allowed("Pay") is None and prompt.allowed("Stop") is not None


def test_a_command_listed_again_is_the_one_listed_before_and_equals_one_made_anew():
    take = Verb("TakeRupee", "take a rupee from a card", Arg("card", CARD))
    stop = Verb("Stop", "stop taxing")
    first = Prompt(0, TEXT).one_of(take, ["a", "b"]).nothing(stop).commands((take, stop))
    again = Prompt(1, TEXT).one_of(take, ["b", "c"]).nothing(stop).commands((take, stop))
    assert first == [Command("TakeRupee", {"card": "a"}), Command("TakeRupee", {"card": "b"}), Command("Stop", {})]
    assert again == [Command("TakeRupee", {"card": "b"}), Command("TakeRupee", {"card": "c"}), Command("Stop", {})]
    assert again[0] is first[1] and again[2] is first[2]  # the same value: the very same command
    assert again[1] is not first[0]


def test_only_strings_and_integers_are_listed_again_and_true_is_never_taken_for_one():
    pay = Verb("Pay", "pay an amount", Arg("amount", AMOUNT))
    one = Prompt(0, TEXT).one_of(pay, [1]).commands((pay,))[0]
    true = Prompt(0, TEXT).one_of(pay, [True]).commands((pay,))[0]
    assert one.args == {"amount": 1} and true.args["amount"] is True
    assert Prompt(0, TEXT).one_of(pay, [True]).commands((pay,))[0] is not true  # a bool is made anew
    discard = Verb("Discard", "discard cards", Arg("cards", CARD, many=True))
    listed = Prompt(0, TEXT).subset_of(discard, ["a", "b"], 1, 1).commands((discard,))
    assert [c.args for c in listed] == [{"cards": ["a"]}, {"cards": ["b"]}]
    assert Prompt(0, TEXT).subset_of(discard, ["a", "b"], 1, 1).commands((discard,))[0] is not listed[0]


def test_a_verb_made_from_another_by_replace_lists_commands_of_its_own_type():
    take = Verb("TakeRupee", "take a rupee from a card", Arg("card", CARD))
    assert take.command("a") == Command("TakeRupee", {"card": "a"})
    renamed = replace(take, type="Grab")
    assert renamed.command("a") == Command("Grab", {"card": "a"}) and renamed.listed is not take.listed


def test_a_verb_keeps_a_bounded_number_of_commands_and_lists_every_value_past_the_bound():
    pay = Verb("Pay", "pay an amount", Arg("amount", AMOUNT))
    high = LISTED_PER_VERB + 10
    listed = Prompt(0, TEXT).between(pay, 0, high).commands((pay,))
    assert [c.args["amount"] for c in listed] == list(range(high + 1))
    assert len(pay.listed) == LISTED_PER_VERB
    assert Prompt(0, TEXT).between(pay, high, high).commands((pay,)) == [Command("Pay", {"amount": high})]


def test_commands_follow_the_order_the_game_declared_its_verbs_not_the_prompt_order():
    prompt = Prompt(1, TEXT).one_of("Target", [2]).nothing("Stop").one_of("TakeRupee", ["c1"])
    assert [c.type for c in prompt.commands(VERBS)] == ["Stop", "TakeRupee", "Target"]
    assert list(prompt.choices) == ["Target", "Stop", "TakeRupee"]


# -- Verb.parse: the shape of a command, before any prompt ---------------------------------

def test_a_verb_without_an_argument_refuses_any_argument():
    stop = VERBS[0]
    assert stop.parse(Command("Stop", {})) is None
    assert reason_of(stop.parse, Command("Stop", {"card": "c1"})) == "Stop takes no arguments; unexpected 'card'"
    assert reason_of(stop.parse, Command("Stop", ["c1"])) == "Stop takes its arguments as an object"  # type: ignore[arg-type]


def test_a_verb_refuses_a_missing_or_unexpected_argument_by_name():
    take = VERBS[1]
    assert take.parse(Command("TakeRupee", {"card": "c1"})) == "c1"
    assert reason_of(take.parse, Command("TakeRupee", {})) == "TakeRupee needs 'card'"
    assert reason_of(take.parse, Command("TakeRupee", {"card": "c1", "n": 2})) == (
        "TakeRupee takes only 'card'; unexpected 'n'")


def test_a_string_kind_refuses_a_non_string_an_empty_string_and_a_long_one():
    take = VERBS[1]
    for raw in (7, "", "x" * 65, None):
        assert reason_of(take.parse, Command("TakeRupee", {"card": raw})).startswith("a card must be a card id, not")
    assert take.parse(Command("TakeRupee", {"card": "x" * 64})) == "x" * 64


def test_an_integer_kind_refuses_strings_floats_and_booleans():
    pay = VERBS[3]
    assert pay.parse(Command("Pay", {"amount": -3})) == -3
    for raw in ("3", 3.0, True):
        assert reason_of(pay.parse, Command("Pay", {"amount": raw})).endswith(f"must be an integer, not {raw!r}")


def test_a_list_argument_must_be_a_list_without_repeats():
    discard = VERBS[2]
    assert discard.parse(Command("Discard", {"cards": ("c1", "c2")})) == ["c1", "c2"]
    assert reason_of(discard.parse, Command("Discard", {"cards": "c1"})) == "'cards' must be a list of card ids"
    assert reason_of(discard.parse, Command("Discard", {"cards": ["c1", "c1"]})) == "a card is listed more than once"
    numbers = Verb("Pick", "pick numbers", Arg("numbers", AMOUNT, many=True))
    assert reason_of(numbers.parse, Command("Pick", {"numbers": 3})) == "'numbers' must be a list"


def test_a_kind_with_its_own_parse_decides_what_a_value_is():
    def parse_region(kind: Kind, raw: object) -> str:
        if raw not in ("kabul", "herat"):
            raise RuleViolation(f"there is no region {raw!r}")
        return str(raw)

    region = Kind("region", "string", "a region", parse=parse_region)
    move = Verb("Move", "move", Arg("to", region))
    assert move.parse(Command("Move", {"to": "kabul"})) == "kabul"
    assert reason_of(move.parse, Command("Move", {"to": "paris"})) == "there is no region 'paris'"


def test_a_command_the_verb_listed_is_taken_as_listed_and_any_other_is_parsed():
    parsed: list[object] = []

    def parse_region(kind: Kind, raw: object) -> str:
        parsed.append(raw)
        if raw not in ("kabul", "herat"):
            raise RuleViolation(f"there is no region {raw!r}")
        return str(raw)

    move = Verb("Move", "move", Arg("to", Kind("region", "string", "a region", parse=parse_region)))
    listed = Prompt(0, TEXT).one_of(move, ["kabul"]).commands((move,))[0]
    assert move.parse(listed) == "kabul" and parsed == []  # a value a prompt offered
    assert move.parse(Command("Move", {"to": "kabul"})) == "kabul" and parsed == ["kabul"]  # equal, made anew
    assert reason_of(move.parse, Command("Move", {"to": "paris"})) == "there is no region 'paris'"


def test_a_verb_describes_its_argument_for_clients():
    assert VERBS[2].args == {"cards": "cards"} and VERBS[0].args == {}
    assert Arg("choice", CHOICE).to_json() == {"name": "choice", "kind": "choice", "type": "string",
                                               "description": CHOICE.description, "list": False}


def test_a_refusal_may_depend_on_the_state_and_seat():
    verb = Verb("Bribe", "bribe", refusal=lambda state, seat: f"seat {seat} has {state} rupees")
    assert verb.refused(0, 2) == "seat 2 has 0 rupees"
    assert Verb("Stop", "stop").refused(None, 0) == "that is not something you can do now"


# -- a free-form argument (a kind with a pattern) ------------------------------------------

DIGEST = Kind("digest", "string", "exactly 64 lowercase hex digits", pattern="[0-9a-f]{64}")
SEAL = Verb("Seal", "post a digest", Arg("digest", DIGEST))


def test_a_kind_with_a_pattern_accepts_only_a_whole_match_and_says_what_it_must_be():
    assert DIGEST.check("ab" * 32) == "ab" * 32
    for bad in ("AB" * 32, "ab" * 31, "ab" * 32 + "\n", "ab" * 33, 7, None, "g" * 64):
        assert reason_of(DIGEST.check, bad).startswith("a digest must be exactly 64 lowercase hex digits, not ")
    assert DIGEST.to_json()["pattern"] == "[0-9a-f]{64}"


def test_a_free_choice_accepts_what_its_test_accepts_and_lists_no_command():
    prompt = Prompt(0, "Seal it.").free(SEAL, test=lambda digest: digest != "0" * 64, why="not the zero digest")
    prompt.check("Seal", "ab" * 32)
    assert reason_of(prompt.check, "Seal", "0" * 64) == "not the zero digest (Seal it.)"
    assert prompt and prompt.allows("Seal")  # the seat is asked...
    assert prompt.commands((SEAL,)) == []  # ...but nothing can be listed
    assert prompt.to_json()["choices"]["Seal"] == {"allows": "free", "kind": "digest", "type": "string",
                                                   "description": "exactly 64 lowercase hex digits",
                                                   "pattern": "[0-9a-f]{64}"}


def test_a_command_survives_pickle_and_hashes_as_it_compares():
    # a native class where the engine is compiled: pickled as a call of the class with its fields
    command = Command("PlaceNoble", {"card": "coppe-07"})
    again = pickle.loads(pickle.dumps(command))
    assert again == command and hash(again) == hash(command) and again.to_json() == command.to_json()
    assert {command: 1}[Command("PlaceNoble", {"card": "coppe-07"})] == 1
    assert Command("Stop").args == {} and Command(7, {}).type == 7
