"""The contract type-checks in TypeScript: openapi-typescript generates types from the
committed openapi.yaml and ``tsc --noEmit`` checks clients/typescript/src/client.ts, a
small client written against them.

This needs Node.js (18+) with npm. ``make test`` installs the pinned packages
(``npm ci`` from the committed package-lock.json) and ``.ci/run`` installs Node.js where
it is missing. Without npm the test fails and says so: it is never skipped.
"""

from __future__ import annotations

import shutil
import subprocess

from service.api.app import committed_spec_path

CLIENT = committed_spec_path().parent / "clients" / "typescript"


def test_the_typescript_client_type_checks_against_openapi_yaml():
    npm = shutil.which("npm")
    assert npm, ("Node.js and npm are needed to type-check openapi.yaml in TypeScript, and `npm` is not on "
                 "PATH: install Node.js 18+ (CI's .ci/run does), then `make test`")
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        installed = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT, capture_output=True,
                                   text=True, timeout=600)
        assert installed.returncode == 0, "npm ci failed:\n" + installed.stdout[-3000:] + installed.stderr[-3000:]
    checked = subprocess.run([npm, "run", "--silent", "check"], cwd=CLIENT, capture_output=True, text=True,
                             timeout=600)
    assert checked.returncode == 0, ("the TypeScript client does not type-check against openapi.yaml:\n"
                                     + checked.stdout[-6000:] + checked.stderr[-3000:])
