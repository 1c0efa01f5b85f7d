"""The use cases, as the API calls them: ``GameService`` (``services``) with the tables' life
(``lifecycle``), chat, fair play (``fairness``), portable logs and a game's live stream
(``live_feed``). May import ``background``, ``players``, ``streams``, ``base`` and ``service.adapters``.
"""
