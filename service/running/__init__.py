"""The processes an operator starts (``python -m service ...``): the web server (``serving``,
``gunicorn_worker``, ``wsgi``), the RQ workers and the jobs of their lanes (``worker``, ``lane_jobs``,
``archiving``), the embedded store's background and projector processes (``background``, ``projector``),
their supervision (``supervision``) and the contract's writer (``openapi``). The top layer: imports
anything below, and nothing imports it except the entry point.
"""
