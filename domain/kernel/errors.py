"""Errors the rules raise. Each carries a reason a player can read."""


class DomainError(Exception):
    """Base of every error the domain raises on purpose."""

    code = "domain_error"

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RuleViolation(DomainError):
    """The command is not allowed by the rules right now ("it is not your turn")."""

    code = "rule_violated"


class InvalidOptions(DomainError):
    """A game option is unknown or outside its allowed values."""

    code = "invalid_option"

    def __init__(self, option: str, reason: str):
        super().__init__(f"option '{option}': {reason}")
        self.option = option


class RunawayGame(DomainError):
    """A rules bug: more automatic steps or events from one command than any game takes
    (``domain.kernel.flow.RUNAWAY_LIMIT``); the game would never ask anyone anything again."""

    code = "runaway"
