"""Fixtures of the integration tests.

``archive_url``: PostgreSQL comes from ``ARCHIVE_TEST_URL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``); without it a test using it is skipped,
unless ``REQUIRE_POSTGRES=1`` (CI), where it fails."""

import os
import uuid

import psycopg
import pytest

from tests.helpers.redis_trips import trips  # noqa: F401 - the fixture counting Redis round trips


@pytest.fixture
def archive_url():
    """A PostgreSQL URL whose search path is a fresh schema of this test's own (dropped after)."""
    base = os.environ.get("ARCHIVE_TEST_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    try:
        admin = psycopg.connect(base, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail(f"REQUIRE_POSTGRES=1 but PostgreSQL is not reachable at {base}: {exc}")
        pytest.skip(f"no PostgreSQL at {base} (set ARCHIVE_TEST_URL): {exc}")
    schema = f"archive_test_{uuid.uuid4().hex[:10]}"
    admin.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in base else "?"
    yield f"{base}{separator}options=-csearch_path%3D{schema}"
    admin.execute(f"DROP SCHEMA {schema} CASCADE")
    admin.close()
