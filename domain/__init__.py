"""The rules engine: the kernel (``domain.kernel``) and the games built on it (``domain.games``)."""


def engine() -> str:
    """Which build of the engine runs: ``"compiled"`` (mypyc, as ``pip install .`` builds it
    where a C compiler is found) or ``"pure"`` (the Python sources)."""
    from domain.kernel import prompt

    return "pure" if (prompt.__file__ or "").endswith(".py") else "compiled"
