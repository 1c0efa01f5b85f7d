"""The WSGI entry point for gunicorn: ``gunicorn service.running.wsgi:app`` (settings from the environment)."""

from service.api.app import create_app

app = create_app()
