"""The stores behind the service's ports (``store``: one recorder per capability: streams, the
global log, projections, snapshots, players, shared state): in memory, SQLite (the embedded
default), Redis (and Redis Cluster) and the PostgreSQL archive, with the codec they share. Each is
checked by the contract suites in ``tests/contract/``. May import ``base`` only.
"""
