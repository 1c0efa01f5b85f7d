"""Health, the contract (openapi.yaml), human-readable docs, the problem types and the
public keys that sign exports."""

from __future__ import annotations

from flask import Response, current_app, render_template_string
from flask_smorest import Blueprint

from domain import engine
from service.api.contract import spec_yaml
from service.api.errors import problem, problem_responses
from service.api.faults import checks
from service.api.problems import PROBLEM_TYPES
from service.api.schemas import HealthSchema, SigningKeysSchema
from service.base.errors import NotFound

blp = Blueprint("meta", __name__, description="Health, contract and docs")
HTML = {"200": {"description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}}


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
@problem_responses(blp, 503)
@blp.doc(operationId="health")
def health():
    """Liveness and readiness: every backing service answers (the store; in RQ mode the job
    queue; a Redis limits storage). A 503 problem names what is down in `checks`; each probe
    gives up after 1 s."""
    games = current_app.extensions["games"]
    store = games.store
    found = checks(current_app)
    down = [name for name, check in found.items() if not check["ok"]]
    if not down:
        return {"status": "ok", "store": type(store).__name__, "engine": engine(), "checks": found,
                "warnings": _warnings(games)}
    response = problem(503, "unavailable", "Service Unavailable", f"not answering: {', '.join(down)}",
                       checks=found, store=type(store).__name__)
    response.headers["Retry-After"] = "5"
    return response


def _warnings(games) -> list[str]:
    """Read models whose checkpoints are past the log (the store went back in time)."""
    try:
        statuses = games.read_models.runner.status_all()
    except Exception as exc:  # health reports, it never fails
        return [f"projections: could not read their checkpoints ({type(exc).__name__})"]
    return [f"projection {s['name']}: checkpoints ahead of the log by {s['ahead']} positions (the store went "
            f"back in time); it is rebuilt from the log at its next catch-up" for s in statuses if s["ahead"]]
@blp.route("/signing-keys", methods=["GET"])
@blp.response(200, SigningKeysSchema)
@blp.doc(operationId="listSigningKeys")
def signing_keys():
    """The public Ed25519 keys whose signatures this server's exports carry, by key id: the first
    signs now, the others signed before a rotation. Check an export offline with
    `python -m service verify FILE --key <public_key>`."""
    return {"keys": current_app.extensions["games"].signing_keys()}


@blp.route("/openapi.yaml", methods=["GET"])
@blp.doc(operationId="getOpenApi",
         responses={"200": {"description": "the OpenAPI document", "content": {"application/yaml": {}}}})
def openapi_yaml():
    """This API's OpenAPI 3 document."""
    # written once per app (the contract does not change while it serves): dumping it took
    # 1.5 s a request, and a fuzzer's run timed one out on a loaded machine
    text = current_app.extensions.get("openapi_yaml")
    if text is None:
        text = current_app.extensions["openapi_yaml"] = spec_yaml(current_app)
    return Response(text, mimetype="application/yaml")


@blp.route("/docs", methods=["GET"])
@blp.doc(operationId="getDocs", responses=HTML)
def docs():
    """The API's documentation as a web page (no script, no external assets)."""
    spec = current_app.extensions["api"].spec.to_dict()
    return Response(render_template_string(DOCS_PAGE, spec=spec, problems=PROBLEM_TYPES.values()),
                    mimetype="text/html")


@blp.route("/problems/<string:code>", methods=["GET"])
@blp.doc(operationId="getProblemType", responses=HTML)
@problem_responses(blp, 404)
def problem_type(code):
    """What a problem's `type` (`/problems/{code}`) means: its status, title and when it happens."""
    found = PROBLEM_TYPES.get(code)
    if found is None:
        raise NotFound(f"no problem type {code!r}; /docs lists them all")
    return Response(render_template_string(PROBLEM_PAGE, problem=found), mimetype="text/html")


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
</ul>
<h2 id="problems">Problems</h2>
<p>Every error is <code>application/problem+json</code>; its <code>type</code> is <code>/problems/{code}</code>.</p>
<ul>
{% for p in problems %}<li id="{{ p.code }}"><code>{{ p.code }}</code> ({{ p.status }}, {{ p.title }}):
 {{ p.description }}</li>
{% endfor %}</ul></body></html>
"""

PROBLEM_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ problem.code }}</title></head><body>
<h1><code>{{ problem.code }}</code>: {{ problem.title }}</h1>
<p>HTTP status {{ problem.status }}. {{ problem.description }}</p>
<p>Every problem type: <a href="/docs#problems">/docs</a>.</p>
</body></html>
"""
