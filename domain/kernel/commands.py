"""Commands: what a seat asks the game to do. Plain data; the rules decide if it is allowed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class Command:
    """A command such as ``Command("PlaceNoble", {"card": "coppe-07"})``.

    ``args`` holds JSON values only, so a command listed by ``legal_commands`` can be
    posted back verbatim by any client.
    """

    type: str
    args: dict[str, Any] = field(default_factory=dict)
    # Not a native class where the engine is compiled, though ``legal_commands`` makes one per
    # choice listed: a native class checks the type of each field it is given, and a command
    # may hold anything a client sent (``Command(7, {})`` is refused by the kernel, with a reason).

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "args": dict(self.args)}

    def __hash__(self) -> int:  # args is a dict; hash a canonical form
        return hash((self.type, repr(sorted(self.args.items()))))
