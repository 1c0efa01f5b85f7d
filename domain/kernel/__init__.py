"""The game-agnostic kernel: events, commands, the rules protocol, errors, fold, redaction, rng."""

from domain.kernel.commands import Command
from domain.kernel.errors import DomainError, InvalidOptions, RuleViolation
from domain.kernel.events import Event, redact
from domain.kernel.rng import Rng
from domain.kernel.rules import GameRules, OptionSpec, Outcome, fold

__all__ = [
    "Command",
    "DomainError",
    "Event",
    "GameRules",
    "InvalidOptions",
    "OptionSpec",
    "Outcome",
    "Rng",
    "RuleViolation",
    "fold",
    "redact",
]
