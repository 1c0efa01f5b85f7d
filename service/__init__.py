"""The game server: the rules of ``domain`` and the read models of ``projections`` served over
HTTP, with their events kept in a store. ``python -m service`` (``__main__``) is the entry point.

One package per concern, top to bottom (each may import only those below it; import-linter
holds the order, see ``pyproject.toml``): ``running`` (the processes), ``api`` (HTTP),
``wiring`` (the composition root), ``play`` (the use cases), ``background`` and ``players``,
``streams`` (a game's stream), ``adapters`` (the stores) and ``base`` (errors, configuration).
"""
