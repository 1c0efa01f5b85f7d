"""The web client (clients/web/src, plain ES modules with JSDoc types) type-checks with
``tsc --checkJs`` against the types openapi-typescript generates from the committed
openapi.yaml, with the pinned tools of clients/typescript (``npm run check:web``). A field
or operation the client relies on that leaves the contract fails this test.

Needs Node.js and npm, like tests/api/test_typescript_types.py: it fails and says so without.
"""

from __future__ import annotations

import shutil
import subprocess

from service.api.app import committed_spec_path

ROOT = committed_spec_path().parent
TOOLS = ROOT / "clients" / "typescript"
WEB = ROOT / "clients" / "web"


def _npm() -> str:
    npm = shutil.which("npm")
    assert npm, "Node.js and npm are needed to type-check the web client: install Node.js 18+, then `make test`"
    if not (TOOLS / "node_modules" / ".package-lock.json").exists():
        installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS, capture_output=True,
                                   text=True, timeout=600)
        assert installed.returncode == 0, "npm ci failed:\n" + installed.stdout[-3000:] + installed.stderr[-3000:]
    return npm


def test_the_web_client_type_checks_against_openapi_yaml():
    checked = subprocess.run([_npm(), "run", "--silent", "check:web"], cwd=TOOLS, capture_output=True, text=True,
                             timeout=600)
    assert checked.returncode == 0, ("the web client does not type-check against openapi.yaml:\n"
                                     + checked.stdout[-6000:] + checked.stderr[-3000:])


def test_the_check_catches_a_field_the_contract_does_not_have(tmp_path):
    """The check has teeth: a module reading a field that no schema has fails it."""
    probe = WEB / "src" / "_probe_wrong_field.js"
    probe.write_text('// @ts-check\n/** @param {import("./api.js").Game} game */\n'
                     'export const wrong = (game) => game.no_such_field;\n')
    try:
        checked = subprocess.run([_npm(), "exec", "--", "tsc", "--noEmit", "-p", str(WEB)], cwd=TOOLS,
                                 capture_output=True, text=True, timeout=600)
    finally:
        probe.unlink()
    assert checked.returncode != 0 and "no_such_field" in checked.stdout, checked.stdout[-3000:]


def test_the_client_is_served_without_a_build_step():
    """Browser-native modules only: every import is a relative path to a committed .js file."""
    import re

    for module in (WEB / "src").rglob("*.js"):
        for target in re.findall(r'^import .* from "([^"]+)";$', module.read_text(), re.M):
            assert target.startswith("./") or target.startswith("../"), (module, target)
            assert (module.parent / target).resolve().is_file(), (module, target)
