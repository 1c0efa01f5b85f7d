"""A process that searches gives way to the web: niceness, and Linux's idle policy (issue 33).

Run in real child processes, as the decision processes and the bots' worker are: the policy
is the process's own and is inherited by what it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

#: a process that lowers its priority as a search process does, starts a child, and reports both
SCRIPT = """
import json, os, subprocess, sys
from service.background.job_runtime import be_nice
from service.base.config import Config
config = Config.from_env()
be_nice(config.bot_nice, config.bot_idle)
child = subprocess.run([sys.executable, "-c",
    "import json, os; print(json.dumps([os.sched_getscheduler(0), os.nice(0)]))"],
    capture_output=True, text=True, check=True)
print(json.dumps({"own": [os.sched_getscheduler(0), os.nice(0)], "child": json.loads(child.stdout)}))
"""


def searcher(**env: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})
    return json.loads(done.stdout)


pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle policy is Linux's")


def test_a_search_runs_under_the_idle_policy_and_its_children_too():
    before = os.nice(0)
    found = searcher(GAMES_BOT_NICE="10")
    assert found["own"] == [os.SCHED_IDLE, min(19, before + 10)]
    assert found["child"] == found["own"]


def test_the_idle_policy_can_be_switched_off_leaving_niceness():
    before = os.nice(0)
    found = searcher(GAMES_BOT_NICE="5", GAMES_BOT_IDLE="0")
    assert found["own"] == [os.sched_getscheduler(0), min(19, before + 5)]  # the policy it was started with


def test_nothing_changes_with_both_off():
    found = searcher(GAMES_BOT_NICE="0", GAMES_BOT_IDLE="0")
    assert found["own"] == [os.sched_getscheduler(0), os.nice(0)]
