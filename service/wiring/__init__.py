"""The composition root: ``bootstrap.build_service`` builds the service for one deployment shape (the
embedded store, or Redis with the workers' lanes) and hands each collaborator in at construction;
``stores.open_store`` opens the event store a URL names. May import every package below ``api``.
"""
