"""Health, the contract (openapi.yaml) and human-readable docs."""

from __future__ import annotations

import json

from flask import Response, current_app, render_template_string
from flask_smorest import Blueprint

from service.api.faults import checks
from service.api.schemas import HealthSchema

blp = Blueprint("meta", __name__, description="Health, contract and docs")


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="a backing service is down (see `checks`)")
def health():
    """Liveness and readiness: every backing service answers (the store; in RQ mode the job
    queue; a Redis limits storage). 503 names what is down; each probe gives up after 1 s."""
    store = current_app.extensions["games"].store
    found = checks(current_app)
    up = all(check["ok"] for check in found.values())
    body = {"status": "ok" if up else "unavailable", "store": type(store).__name__, "checks": found}
    if up:
        return body
    response = current_app.response_class(json.dumps(body), status=503, mimetype="application/json")
    response.headers["Retry-After"] = "5"
    return response


@blp.route("/openapi.yaml", methods=["GET"])
@blp.doc(responses={"200": {"description": "the OpenAPI document", "content": {"application/yaml": {}}}})
def openapi_yaml():
    """This API's OpenAPI 3 document."""
    from service.app import spec_yaml

    return Response(spec_yaml(current_app), mimetype="application/yaml")


@blp.route("/docs", methods=["GET"])
@blp.doc(responses={"200": {"description": "an HTML page", "content": {"text/html": {}}}})
def docs():
    """The API's documentation as a web page (no script, no external assets)."""
    spec = current_app.extensions["api"].spec.to_dict()
    return Response(render_template_string(DOCS_PAGE, spec=spec), mimetype="text/html")


DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ spec.info.title }}</title>
<style>
 body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
 code,pre{background:#f4f4f4;padding:.1rem .3rem;border-radius:3px}
 .op{border-left:4px solid #3a7;padding:.2rem .8rem;margin:.8rem 0}
 .m{font-weight:bold;text-transform:uppercase;margin-right:.5rem}
</style></head><body>
<h1>{{ spec.info.title }} <small>{{ spec.info.version }}</small></h1>
<pre>{{ spec.info.description }}</pre>
<p>The machine-readable contract: <a href="/openapi.yaml">/openapi.yaml</a>.</p>
{% for path, ops in spec.paths.items() %}{% for method, op in ops.items() %}{% if method != 'parameters' %}
<div class="op"><span class="m">{{ method }}</span><code>{{ path }}</code>
<p>{{ op.summary or '' }}{% if op.description %}<br>{{ op.description }}{% endif %}</p>
<p>Responses: {% for code in op.responses %}<code>{{ code }}</code> {% endfor %}</p></div>
{% endif %}{% endfor %}{% endfor %}
<h2>Commands</h2><ul>
{% for type, ref in spec.components.schemas.GameCommand.discriminator.mapping.items() %}
{% set schema = spec.components.schemas[ref.split('/')[-1]] %}
<li><code>{{ type }}</code> <code>{{ schema.properties.args.get('$ref', '').split('/')[-1] }}</code>:
 {{ schema.properties.type.description }}</li>{% endfor %}
</ul></body></html>
"""
