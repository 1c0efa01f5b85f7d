"""Prompts: the question a game puts to one seat, and the choices it allows.

A game declares its **verbs** once (``Verb``: the command type, its argument and the
argument's ``Kind``). At any moment each seat has at most one ``Prompt``: readable text
and, per verb, which argument values are allowed (nothing, one of a set, a subset of a set
of size min..max, an integer in a range, or any value of the argument's kind: a free-form
argument such as a hash, strictly checked by its kind's ``pattern``). The kernel derives ``to_move`` and
``legal_commands`` from the prompts and checks a command against them before any game
handler runs, so the legality of each command is written once, in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Final

from domain.kernel.commands import Command
from domain.kernel.errors import RuleViolation


def short(value: object) -> str:
    """``repr`` cut to 40 characters, for reasons that quote what a client sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- argument kinds ----------------------------------------------------------------------

def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _as_string(kind: Kind, raw: object) -> str:
    if kind.pattern is not None:
        if not isinstance(raw, str) or re.fullmatch(kind.pattern, raw) is None:
            raise RuleViolation(f"{_a(kind.name)} must be {kind.description}, not {short(raw)}")
        return raw
    if not isinstance(raw, str) or not 1 <= len(raw) <= 64:
        raise RuleViolation(f"{_a(kind.name)} must be {_a(kind.name)} id, not {short(raw)}")
    return raw


def _as_integer(kind: Kind, raw: object) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RuleViolation(f"{_a(kind.name)} must be an integer, not {short(raw)}")
    return raw


@dataclass(frozen=True)
class Kind:
    """What an argument is: a card, a region, a seat, an amount... and its JSON type.

    ``parse`` turns one raw JSON value into the game's value or raises ``RuleViolation``
    with a readable reason; a game may give its own (card ids of its deck). ``pattern``
    (a string kind only) is a regular expression the whole value must match: the strict
    shape of a free-form value (a hash: ``[0-9a-f]{64}``), which a prompt offers with
    ``Prompt.free`` rather than as a list.
    """

    name: str
    json_type: str  # "string" or "integer"
    description: str
    parse: Callable[[Kind, object], Any] | None = None
    pattern: str | None = None

    def check(self, raw: object) -> Any:
        if self.parse is not None:
            return self.parse(self, raw)
        return _as_integer(self, raw) if self.json_type == "integer" else _as_string(self, raw)

    def to_json(self) -> dict[str, Any]:
        shape = {"kind": self.name, "type": self.json_type, "description": self.description}
        return shape if self.pattern is None else {**shape, "pattern": self.pattern}


CARD = Kind("card", "string", "a card id")
REGION = Kind("region", "string", "a region of the map")
BORDER = Kind("border", "string", "a border between two regions")
COALITION = Kind("coalition", "string", "a coalition")
SUIT = Kind("suit", "string", "a suit")
PIECE = Kind("piece", "string", "a piece on the board")
CHOICE = Kind("choice", "string", "one of the named choices the prompt lists")
SEAT = Kind("seat", "integer", "a seat number, from 0")
AMOUNT = Kind("amount", "integer", "a whole number in the range the prompt allows")
NUMBER = Kind("card", "integer", "a card number")


@dataclass(frozen=True)
class Arg:
    """A command's one argument: its name in ``args``, its kind, and whether it is a list."""

    name: str
    kind: Kind
    many: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **self.kind.to_json(), "list": self.many}


@dataclass(frozen=True)
class Verb:
    """One command type of a game. ``refusal`` is the reason given when the verb is not
    offered to the seat now; it may depend on the state (``refusal(state, seat)``)."""

    type: str
    description: str
    arg: Arg | None = None
    refusal: str | Callable[[Any, int], str] = "that is not something you can do now"
    #: the commands of this verb listed so far, by their argument's value (a string or an integer):
    #: ``Prompt.commands`` lists the same command again rather than make it anew (a command is never
    #: changed, its ``args`` included; most lists offer values listed before, cards of one deck);
    #: a verb's own, never passed on (``dataclasses.replace`` makes a verb with none listed yet)
    listed: dict[Any, Command] = field(default_factory=dict, init=False, compare=False, repr=False)

    def command(self, value: Any) -> Command:
        """The command of this verb with ``value`` as its argument (None: a verb without one), made
        once for a string or an integer value and listed again after that."""
        arg = self.arg
        if arg is None:
            value = None
        kept = value is None or type(value) is str or type(value) is int  # (a bool is not kept: True == 1)
        known = self.listed.get(value) if kept else None
        if known is not None:
            return known
        made = Command(self.type, {} if arg is None else {arg.name: value})
        if kept and len(self.listed) < LISTED_PER_VERB:
            self.listed[value] = made
        return made

    def refused(self, state: Any, seat: int) -> str:
        return self.refusal(state, seat) if callable(self.refusal) else self.refusal

    @property
    def args(self) -> dict[str, str]:
        """``{arg name: kind name}`` (a list of a kind is its plural: ``cards``), as ``GET
        /game-types`` has always shown it; ``Arg.to_json`` gives the whole shape."""
        if self.arg is None:
            return {}
        return {self.arg.name: self.arg.kind.name + ("s" if self.arg.many else "")}

    def parse(self, command: object) -> Any:
        """The command's argument, checked for shape and kind (not yet for the prompt)."""
        args = command.args if isinstance(command, Command) else getattr(command, "args", None)
        if not isinstance(args, dict):
            raise RuleViolation(f"{self.type} takes its arguments as an object")
        arg = self.arg
        if arg is None:
            if args:
                raise RuleViolation(f"{self.type} takes no arguments; unexpected "
                                    f"{', '.join(sorted(short(k) for k in args))}")
            return None
        if len(args) != 1 or arg.name not in args:  # (the arguments of almost every command are right)
            extra = sorted([short(key) for key in args if key != arg.name])
            if extra:
                raise RuleViolation(f"{self.type} takes only '{arg.name}'; unexpected {', '.join(extra)}")
            raise RuleViolation(f"{self.type} needs '{arg.name}'")
        raw = args[arg.name]
        if not arg.many:
            if (type(raw) is str or type(raw) is int) and self.listed.get(raw) is command:
                return raw  # the very command this verb listed (``command``): a value a prompt offered
            return arg.kind.check(raw)
        if not isinstance(raw, list | tuple):
            raise RuleViolation(f"'{arg.name}' must be a list of {arg.kind.name} ids"
                                if arg.kind.json_type == "string" else f"'{arg.name}' must be a list")
        values = [arg.kind.check(item) for item in raw]
        if len(set(values)) != len(values):
            raise RuleViolation(f"a {arg.kind.name} is listed more than once")
        return values


def verb_table(verbs: Sequence[Verb]) -> dict[str, tuple[int, Verb]]:
    """``{type: (position, verb)}`` for a game's verbs, as ``Prompt.commands`` takes them."""
    return {verb.type: (position, verb) for position, verb in enumerate(verbs)}


def verb_type(verb: str | Verb) -> str:
    """A verb's command type: a game may name a verb by its ``Verb`` (declared once) or its type."""
    return verb.type if isinstance(verb, Verb) else verb


#: The most commands of one verb ``Verb.command`` keeps (a game's values are a deck's cards, a map's
#: regions, small amounts: far fewer; the bound holds whatever a game offers)
LISTED_PER_VERB: Final = 4096


# -- what a prompt allows per verb -------------------------------------------------------

Why = str | Callable[[Any], str] | None


def _reason(why: Why, value: Any, default: str, text: str) -> str:
    """The game's reason (or ``default``) followed by the prompt's text, so a refusal
    always says what the seat is being asked."""
    reason = default if why is None else why(value) if callable(why) else why
    return f"{reason} ({text})"


@dataclass
class Allowed:
    """The argument values a prompt allows for one verb. Never changed once made (not a
    frozen dataclass: where the engine is compiled, a native class's frozen ``__init__``
    costs several times a plain one, and one is made for every prompt)."""

    def check(self, value: Any, text: str) -> None:
        raise NotImplementedError

    def values(self) -> tuple[Any, ...]:
        """Every value allowed, in order (a tuple: compiled, walked by index, where an iterable
        goes through the iterator protocol, for every command ``legal_commands`` lists)."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


@dataclass
class Nothing(Allowed):
    def check(self, value: Any, text: str) -> None:
        return None

    def values(self) -> tuple[Any, ...]:
        return (None,)

    def to_json(self) -> dict[str, Any]:
        return {"allows": "nothing"}


#: ``Nothing`` holds nothing: one is enough for every prompt.
NOTHING: Final = Nothing()


@dataclass
class OneOf(Allowed):
    options: tuple[Any, ...]
    why: Why = None

    def __init__(self, options: tuple[Any, ...], why: Why = None):
        # compiled as written (a dataclass's generated ``__init__`` would run interpreted)
        self.options = options
        self.why = why

    def check(self, value: Any, text: str) -> None:
        if value not in self.options:
            raise RuleViolation(_reason(self.why, value, f"{short(value)} is not a choice here", text))

    def values(self) -> tuple[Any, ...]:
        return self.options

    def to_json(self) -> dict[str, Any]:
        return {"allows": "one_of", "options": list(self.options)}


@dataclass
class SubsetOf(Allowed):
    """A subset of ``options`` of size ``minimum..maximum``. ``too_many``/``too_few`` and
    ``why`` (for a value outside the set) give game-worded reasons."""

    options: tuple[Any, ...]
    minimum: int
    maximum: int
    why: Why = None
    size_why: str | None = None

    def check(self, value: Any, text: str) -> None:
        if not self.minimum <= len(value) <= self.maximum:
            size = (f"exactly {self.minimum}" if self.minimum == self.maximum
                    else f"{self.minimum} to {self.maximum}")
            raise RuleViolation(_reason(self.size_why, value, f"choose {size}", text))
        for item in value:
            if item not in self.options:
                raise RuleViolation(_reason(self.why, item, f"{short(item)} is not a choice here", text))

    def values(self) -> tuple[Any, ...]:
        ordered = sorted(self.options)
        return tuple([list(chosen) for size in range(self.minimum, self.maximum + 1)
                      for chosen in combinations(ordered, size)])

    def to_json(self) -> dict[str, Any]:
        return {"allows": "subset_of", "options": list(self.options), "min": self.minimum, "max": self.maximum}


@dataclass
class Between(Allowed):
    low: int
    high: int
    why: Why = None

    def check(self, value: Any, text: str) -> None:
        if not self.low <= value <= self.high:
            raise RuleViolation(_reason(self.why, value, f"{value} is outside {self.low}..{self.high}", text))

    def values(self) -> tuple[Any, ...]:
        return tuple(range(self.low, self.high + 1))

    def to_json(self) -> dict[str, Any]:
        return {"allows": "between", "min": self.low, "max": self.high}


@dataclass
class Free(Allowed):
    """Any value of the verb's argument kind (its ``parse``/``pattern`` already checked the
    shape) that passes ``test``: a free-form argument, such as a hash a client computes.
    Nothing can be listed, so ``legal_commands`` lists no command for it; ``to_json`` says
    what the value must be instead."""

    kind: Kind
    test: Callable[[Any], bool] | None = None
    why: Why = None

    def check(self, value: Any, text: str) -> None:
        if self.test is not None and not self.test(value):
            raise RuleViolation(_reason(self.why, value, f"{short(value)} is not accepted here", text))

    def values(self) -> tuple[Any, ...]:
        return ()

    def to_json(self) -> dict[str, Any]:
        return {"allows": "free", **self.kind.to_json()}


#: a choice's options, or a function giving them: the function runs only when that verb is
#: read (checking a command of another verb never computes it)
Options = Iterable[Any] | Callable[[], Iterable[Any]]


class _Later:
    """A ``one_of`` whose options are a function (of ``args``), run when the verb is first read."""

    def __init__(self, options: Callable[..., Iterable[Any]], why: Why, args: tuple[Any, ...] = ()):
        self.options = options
        self.why = why
        self.args = args

    def worked_out(self) -> Allowed | None:
        """What the verb allows, or None (a plain method: compiled, a call of the object itself
        goes through Python's calling convention)."""
        options = self.options  # (a local: compiled, an attribute called is looked up by name)
        found = tuple(options(*self.args))
        return OneOf(found, self.why) if found else None


class Prompt:
    """The question put to ``seat`` and, per verb, what it allows. Build it fluently::

        Prompt(seat, "Tax: take up to 2 rupees.").one_of("TakeRupee", cards).nothing("Stop")

    A choice's options may be given as a function (``one_of("Tax", lambda: taxable(s))``):
    it runs when that verb is first read, so checking a command against a menu of many
    verbs computes only the verb sent. A verb whose options turn out empty is not offered,
    as if it had never been added.
    """

    def __init__(self, seat: int, text: str, choices: dict[str, Allowed] | None = None):
        self.seat = seat
        self.text = text
        #: per verb, what it allows, or a function giving that (None: not offered after all)
        self._entries: dict[str, Allowed | _Later] = dict(choices) if choices else {}

    def allowed(self, verb: str) -> Allowed | None:
        """What the prompt allows for ``verb``, or None where it does not offer it (a choice
        given as a function is worked out now, once)."""
        entry = self._entries.get(verb)
        if entry is None or isinstance(entry, Allowed):
            return entry
        made = entry.worked_out()
        if made is None:
            del self._entries[verb]  # (not ``pop``: a method called through Python)
        else:
            self._entries[verb] = made
        return made

    @property
    def choices(self) -> dict[str, Allowed]:
        """Every verb offered and what it allows, in the order they were added."""
        entries = self._entries
        later = False  # is some choice still a function? (most prompts hold none)
        for entry in entries.values():
            if type(entry) is _Later:
                later = True
                break
        if later:  # work them all out in one pass, each in its place (a value replaced, not a key
            empty: list[str] = []  # added: the dict keeps its order); one that comes out empty is not offered
            for verb, each in entries.items():
                if type(each) is _Later:
                    allowed = each.worked_out()
                    if allowed is None:
                        empty.append(verb)
                    else:
                        entries[verb] = allowed
            for verb in empty:
                del entries[verb]
        kept: Any = entries  # every choice is an ``Allowed`` now (not ``cast``: a call)
        worked_out: dict[str, Allowed] = kept
        return worked_out

    def _with(self, verb: str | Verb, allowed: Allowed) -> Prompt:
        self._entries[verb.type if isinstance(verb, Verb) else verb] = allowed  # (``verb_type``, said
        return self  # again: where the sources run as Python a call costs more than this line)

    def nothing(self, verb: str | Verb) -> Prompt:
        self._entries[verb.type if isinstance(verb, Verb) else verb] = NOTHING  # (``_with``, said again:
        return self  # almost every prompt of a seat's turn offers a verb without an argument)

    def one_of(self, verb: str | Verb, options: Options, why: Why = None) -> Prompt:
        # (a list or tuple first: compiled, ``callable`` is looked up among the builtins on
        # every call, and most options are lists)
        if not isinstance(options, list) and not isinstance(options, tuple) and callable(options):
            self._entries[verb.type if isinstance(verb, Verb) else verb] = _Later(options, why)
            return self
        options = tuple(options)
        if options:  # (``_with``, said again: the most common choice of all)
            self._entries[verb.type if isinstance(verb, Verb) else verb] = OneOf(options, why)
        return self

    def one_of_later(self, verb: str | Verb, options: Callable[..., Iterable[Any]], *args: Any) -> Prompt:
        """``one_of(verb, options(*args))``, worked out only when the verb is read (as ``one_of``
        takes a function): the function and its arguments are kept as they are, where a
        ``partial`` is an object made on every prompt, for a menu of many such choices."""
        self._entries[verb.type if isinstance(verb, Verb) else verb] = _Later(options, None, args)
        return self

    def subset_of(self, verb: str | Verb, options: Iterable[Any], minimum: int, maximum: int,
                  why: Why = None, size_why: str | None = None) -> Prompt:
        options = tuple(options)
        if maximum < minimum or len(options) < minimum:
            return self
        return self._with(verb, SubsetOf(options, minimum, min(maximum, len(options)), why, size_why))

    def between(self, verb: str | Verb, low: int, high: int, why: Why = None) -> Prompt:
        return self._with(verb, Between(low, high, why)) if low <= high else self

    def free(self, verb: Verb, test: Callable[[Any], bool] | None = None, why: Why = None) -> Prompt:
        """Any value of ``verb``'s argument kind that passes ``test`` (``why``: the reason
        for one that does not)."""
        assert verb.arg is not None and not verb.arg.many, f"{verb.type} takes one free-form argument"
        return self._with(verb, Free(verb.arg.kind, test, why))

    def __bool__(self) -> bool:
        """Does it offer anything? (a choice already known answers without computing the rest)"""
        if any(type(entry) is not _Later for entry in self._entries.values()):
            return True
        return any(self.allowed(verb) is not None for verb in list(self._entries))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Prompt):
            return NotImplemented
        return (self.seat, self.text, self.choices) == (other.seat, other.text, other.choices)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Prompt(seat={self.seat!r}, text={self.text!r}, choices={self.choices!r})"

    def allows(self, verb: str) -> bool:
        return self.allowed(verb) is not None

    def check(self, verb: str, value: Any) -> None:
        """Refuse ``value`` for ``verb`` with a reason that carries this prompt's text."""
        allowed = self.allowed(verb)
        assert allowed is not None, f"{verb} is not offered: ask ``allows`` first"
        allowed.check(value, self.text)

    def commands(self, verbs: Sequence[Verb] | Mapping[str, tuple[int, Verb]]) -> list[Command]:
        """Every command this prompt allows, in the order the game declared its verbs (given
        in that order, or as ``{type: (position, verb)}``: ``verb_table``, which spares
        looking at every verb the game has for the few a prompt offers). A ``free`` choice lists
        none: its value is the client's to compute."""
        out: list[Command] = []
        choices = self.choices
        if not choices:
            return out
        offered: list[tuple[int, Verb]]  # (position, verb) of each verb offered, put in order
        if isinstance(verbs, dict):  # (a dict without the ABC's check, and read as one)
            table: dict[str, Any] = verbs  # (its pairs read as they are: compiled, a value typed as a
            # pair is taken apart and a new tuple made to list it)
            offered = []  # (a loop, not a comprehension: where the sources run as Python, that is a call)
            for kind in choices:
                found = table.get(kind)
                if found is not None:
                    offered.append(found)
            if len(offered) > 1:  # most prompts offer one verb: nothing to put in order
                offered.sort()
        elif isinstance(verbs, Mapping):
            offered = sorted([verbs[kind] for kind in choices if kind in verbs])
        else:
            offered = [(position, verb) for position, verb in enumerate(verbs) if verb.type in choices]
        for _, verb in offered:
            if verb.arg is None:
                out.append(verb.command(None))
                continue
            listed = verb.listed
            for value in choices[verb.type].values():  # (``Verb.command``, said again for a command
                # listed before, as most are: where the sources run as Python, a call each costs more)
                known = listed.get(value) if type(value) is str or type(value) is int else None
                out.append(verb.command(value) if known is None else known)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "text": self.text,
                "choices": {verb: allowed.to_json() for verb, allowed in self.choices.items()}}

