"""The input guard allows what the contract declares, operation by operation: the query
parameters and the ``Idempotency-Key`` header that openapi.yaml lists for it, and nothing else
(``service.api.input_guard`` reads them from the API's OpenAPI document)."""

from __future__ import annotations

import re

import pytest
import yaml

from service.api.app import committed_spec_path, create_app
from service.base.config import Config

METHODS = ("get", "post", "put", "patch", "delete")
#: a value for each path parameter that its rule's converter accepts
PATH_VALUES = {"game_id": "0123456789abcdef"}


def _operations():
    contract = yaml.safe_load(committed_spec_path().read_text(encoding="utf-8"))
    parameters = contract.get("components", {}).get("parameters", {})
    for path, item in contract["paths"].items():
        for method in METHODS:
            if method in item:
                declared = [parameters[p["$ref"].rsplit("/", 1)[-1]] if "$ref" in p else p
                            for p in [*item.get("parameters", []), *item[method].get("parameters", [])]]
                url = re.sub(r"\{([^}]+)\}", lambda m: PATH_VALUES.get(m.group(1), "dynasties"), path)
                yield method.upper(), url, declared


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("guard")
    return create_app(Config(store_url=f"sqlite:///{tmp}/events.db", projections="inline")).test_client()


@pytest.mark.api
def test_an_undeclared_query_parameter_is_refused_naming_the_declared_ones(client):
    checked = 0
    for method, url, declared in _operations():
        known = sorted(p["name"] for p in declared if p["in"] == "query")
        answer = client.open(url, method=method, query_string={"zz_not_declared": "1"})
        assert answer.status_code == 422, (method, url, answer.get_data(as_text=True))
        problem = answer.get_json()
        assert problem["code"] == "unknown_query_parameter", (method, url, problem)
        assert problem["detail"].endswith(f"this operation takes {', '.join(known) if known else 'none'}"), \
            (method, url, problem["detail"])
        checked += 1
    assert checked > 30


@pytest.mark.api
def test_an_idempotency_key_is_taken_only_where_declared(client):
    takers = []
    for method, url, declared in _operations():
        takes = any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in declared)
        answer = client.open(url, method=method, headers={"Idempotency-Key": "retry-1"})
        refused = answer.status_code == 422 and "does not take an Idempotency-Key" in answer.get_data(as_text=True)
        assert refused is not takes, (method, url, answer.status_code, answer.get_data(as_text=True)[:200])
        if takes:
            takers.append(f"{method} {url}")
    assert f"POST /games/{PATH_VALUES['game_id']}/commands" in takers and "POST /games" in takers
