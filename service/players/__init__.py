"""The people: accounts and tokens (``players``), each player's feed of notices (``player_feed``), the
live hub that wakes streams when the log moves (``live_hub``) and stream tickets (``stream_tickets``).
May import ``streams``, ``base`` and ``service.adapters``.
"""
