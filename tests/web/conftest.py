"""Browser tests: a real server (werkzeug, threaded, over a real SQLite file) and Debian's
chromium driven by Playwright (never `playwright install`: the executable is /usr/bin/chromium,
which .ci/run installs with apt). Screenshots go to test-artifacts/web/ (ignored by git)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from service.api.app import create_app
from service.base.config import Config

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
AXE = ROOT / "clients" / "typescript" / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

# Every payload the page's scripts receive: each fetch answer and each stream message, as text.
CAPTURE = """
(() => {
  window.__payloads = []; window.__streams = 0; window.__csp = []; window.__promptSaid = [];
  // every text the prompt's live region is given (a log line must never be one)
  document.addEventListener("DOMContentLoaded", () => {
    const region = document.getElementById("prompt-announcer");
    if (region) new MutationObserver(() => { if (region.textContent) window.__promptSaid.push(region.textContent); })
      .observe(region, {childList: true, characterData: true, subtree: true});
  });
  document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  const fetch0 = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const answer = await fetch0(...args);
    answer.clone().text().then((text) => window.__payloads.push({url: String(args[0]), text}));
    return answer;
  };
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(url, init) {
      super(url, init);
      window.__streams += 1;
      const keep = (e) => window.__payloads.push({url: String(url), text: e.data});
      this.addEventListener("message", keep);
      this.addEventListener("end", keep);
    }
  };
})();
"""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """The service on a real port: streams end every 2 s (the client resumes them), as a proxy would cut them."""
    data = tmp_path_factory.mktemp("web")
    app = create_app(Config(store_url=f"sqlite:///{data}/events.db", projections="inline", stream_poll=0.05,
                            stream_heartbeat=1.0, stream_max_seconds=2.0))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), ("the browser tests need Debian's chromium at /usr/bin/chromium: "
                                     "apt-get install -y chromium (.ci/run does)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
