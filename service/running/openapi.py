"""Print the OpenAPI document the app serves: ``python -m service.running.openapi > openapi.yaml``."""

from __future__ import annotations

import sys

from service.api.app import create_app
from service.api.contract import spec_yaml
from service.base.config import Config


def generate() -> str:
    return spec_yaml(create_app(Config(store_url="memory://")))


if __name__ == "__main__":
    sys.stdout.write(generate())
