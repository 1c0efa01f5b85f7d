"""The HTTP layer: ``app.create_app`` builds the Flask app on a wired service; the routes
(``routes``, ``commands``, ``table_life``, ``read_models``, ``webhooks``, ``live``, ``meta``),
the fast play routes (``lean``), the contract (``contract``, ``schemas``), the input guard, the
limits and the one mapping of errors to problem+json (``errors``, ``problems``). May import
``wiring`` and every package below it; nothing below imports it.
"""
