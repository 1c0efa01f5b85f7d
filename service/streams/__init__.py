"""A game's stream: the envelope of its events (``envelopes``), the game a stream folds into and what each
seat may see of it (``game``), loading it with snapshots (``loading``), appending to it with the version
and idempotency checks (``appending``), the turn clocks' events of each append (``clock_rules``), undo
(``undo_policy``), replay and signed portable logs' keys (``signing``). May import ``base``,
``service.adapters``, projections and the domain; nothing that runs in the background or serves HTTP.
"""
