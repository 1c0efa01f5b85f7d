"""Work that runs beside the web, in lanes no other game waits on: the bots' seats (``bot_seats``,
``rq_bots``), the turn clocks' timeouts (``clocks``, ``timers``), webhook deliveries (``webhooks``,
``webhook_jobs``) and the read models' projections (``projections_runner``, ``inline_projections``,
``rq_projections``, ``read_models``, ``stored_tables``). May import ``streams``, ``base`` and
``service.adapters``; never the use cases (``play``) or the processes (``running``).
"""
