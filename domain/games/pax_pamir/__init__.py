"""Pax Pamir (second edition). The engine specification is ``shared/rules/paxpamir/rules.md``
(rule ids R-xxx-n) and the card data ``shared/rules/paxpamir/cards.yaml``.

Only the static data exists so far (``data/``); the game is not registered yet.
"""
