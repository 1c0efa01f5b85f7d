"""Commands: what a seat asks the game to do. Plain data; the rules decide if it is allowed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final


@dataclass(init=False)
class Command:
    """A command such as ``Command("PlaceNoble", {"card": "coppe-07"})``.

    ``args`` holds JSON values only, so a command listed by ``legal_commands`` can be
    posted back verbatim by any client.

    Never changed once made, its ``args`` included: ``legal_commands`` lists again, to every
    caller, the very command it listed before for the same verb and value (``Verb.command``).
    Where the engine is compiled this is a native class (its two fields are C struct slots),
    made by a compiled ``__init__``. Its fields are typed ``Any`` because a command may hold
    anything a client sent (``Command(7, {})``): the kernel refuses a malformed one with its
    reason, where a typed native field would refuse it first with a ``TypeError``. Its fields
    are ``Final``, which mypy enforces and the compiled native class too. (Not a frozen
    dataclass: a native class's frozen ``__init__`` sets each field through
    ``object.__setattr__``.)
    """

    type: Final[Any]
    args: Final[Any]

    def __init__(self, type: Any, args: Any = None):
        self.type = type
        self.args = {} if args is None else args

    def __reduce__(self) -> tuple[type[Command], tuple[Any, Any]]:
        # pickled as a call of the class with its fields, by either engine: a native class
        # with a compiled ``__init__`` is not made by ``__new__`` alone, as pickle makes others
        return Command, (self.type, self.args)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "args": dict(self.args)}

    def __hash__(self) -> int:  # args is a dict; hash a canonical form
        return hash((self.type, repr(sorted(self.args.items()))))
