"""Fixtures of the integration tests."""

from tests.helpers.redis_trips import trips  # noqa: F401 - the fixture counting Redis round trips
