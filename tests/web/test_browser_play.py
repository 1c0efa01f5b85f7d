"""Whole games of both types played in a real browser by clicking, one browser context per
seat, against a real server. While they play, every payload seat A's page receives (each
fetch answer, each stream message) and its page text are checked for seat B's hidden cards;
the stream is cut (the server ends streams every 2 s, and A's browser goes offline once) and
the log must resume with no duplicate and no missing line; the replay viewer is opened at
several versions; axe-core checks the lobby, each game page and the replay page, signed in and
signed out (no "serious" or "critical" violation); every screen is kept as a screenshot at
1280 x 800 and 390 x 844 in test-artifacts/web/. In the two-person games Ann plays at 1280 x 800
and Bob on a phone at 390 x 844; in Pax Pamir every map piece's accessible name states its kind
and owner, and the map's text is at least 12 px at 390 px wide."""

from __future__ import annotations

import json
import random
import re
import time
import types

import pytest
import requests

from tests.web.conftest import AXE, CAPTURE, SIZES

pytestmark = pytest.mark.api

QUIET = {"dynasties": {"SetupStarted", "DeckShuffled"},
         "pax_pamir": {"StepsChanged", "StepEntered", "StepLeft", "StepUpdated", "MarketSlotMarked", "SetupStarted"}}
BRIBES = ("PayBribe", "OfferBribe", "AcceptBribeOffer", "CounterBribeOffer", "DeclineBribeOffer",
          "AcceptBribeCounter", "RefuseBribe", "AbandonBribe")


class Seat:
    """One player in its own browser context."""

    def __init__(self, browser, url, name, size="desktop"):
        self.size = size
        self.context = browser.new_context(viewport=SIZES[size])
        self.context.add_init_script(CAPTURE)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.urls: list[str] = []
        self.pages = 0  # navigations of the main frame, hash routes included
        self.page.on("framenavigated", lambda frame: setattr(self, "pages", self.pages + (frame == self.page.main_frame)))
        self.page.on("request", lambda request: self.urls.append(request.url))
        self.page.goto(url + "/")
        self.page.fill("#player-name", name)
        self.page.click("text=Register and play")
        self.page.wait_for_selector("text=Signed in as")
        self.player = json.loads(self.page.evaluate("sessionStorage.getItem('game-service.player')"))
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {self.player['token']}"
        self.payloads: list[dict] = []
        self.clicks = 0

    def take_payloads(self) -> list[dict]:
        fresh = self.page.evaluate("window.__payloads.splice(0)")
        self.payloads.extend(fresh)
        return fresh

    def close(self):
        """Before closing: the token never went in a URL, and the page broke no Content-Security-Policy."""
        try:
            assert not [u for u in self.urls if self.player["token"] in u], "the token appeared in a URL"
            assert self.page.evaluate("window.__csp") == [], "the page broke its Content-Security-Policy"
        finally:
            self.context.close()


def _shot(seat: Seat, artifacts, name: str):
    """The screen at both sizes; at each, the page fits its width (wide tables and the map scroll inside)."""
    for viewport in SIZES.values():
        seat.page.set_viewport_size(viewport)
        seat.page.wait_for_timeout(150)
        width = seat.page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} is {width} px wide at {viewport['width']} px"
        seat.page.screenshot(path=str(artifacts / f"{name}-{viewport['width']}x{viewport['height']}.png"), full_page=True)
    seat.page.set_viewport_size(SIZES[getattr(seat, "size", "desktop")])


def _axe(seat, where: str) -> int:
    """axe-core on the page as it is (a Seat's or a bare page): no serious or critical violation.
    Returns the rules checked."""
    page = getattr(seat, "page", seat)
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [(v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:3])
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"axe on {where}: {bad}"
    return len(result["passes"]) + len(result["violations"]) + len(result["inapplicable"])


def _all_events(http, url, game_id, after=0) -> list[dict]:
    events = []
    while after is not None:
        page = http.get(f"{url}/games/{game_id}/events?after={after}&limit=1000", timeout=10).json()
        events += page["events"]
        after = page["next_after"]
    return events


def _game(url, game_id) -> dict:
    return requests.get(f"{url}/games/{game_id}", timeout=10).json()


def _click_a_move(seat: Seat, rng: random.Random, version: int, moved=lambda: False) -> None:
    """Choose one of the prompt's choices as a player would: a button, a target on the table, a
    subset, or an amount; then confirm a hand-over. ``moved``: the game moved on meanwhile (a slow
    earlier click landed), so there is nothing to choose."""
    page = seat.page
    try:
        page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v && "
                               "document.querySelector('#prompt fieldset.choice button:not([disabled])') !== null",
                               arg=version, timeout=30000)
    except Exception as error:
        if moved():
            return
        raise AssertionError(f"no choice shown for version {version}: prompt at version "
                             f"{page.evaluate('document.getElementById(`prompt`)?.dataset.version')}, "
                             f"{page.inner_text('#prompt')!r}, stream {page.inner_text('#live-status')!r}, "
                             f"status {page.inner_text('#game-status')!r}") from error
    targets = [t for t in page.locator("#main .board .target").all()
               if " or " not in (t.get_attribute("aria-label") or t.text_content() or "")]  # one move: click it
    groups = page.locator("#prompt fieldset.choice").all()
    group = rng.choice(groups)
    toggles = group.locator("button.toggle").all()
    amount = group.locator("input[type=number]")
    if targets and rng.random() < 0.3:
        rng.choice(targets).click()
    elif toggles:
        confirm = group.locator("button.confirm")
        for toggle in rng.sample(toggles, rng.randint(0, len(toggles))):
            if confirm.is_enabled() and rng.random() < 0.5:
                break
            toggle.click()
            seat.clicks += 1
        while not confirm.is_enabled():  # over the limit: take some back
            group.locator("button.toggle[aria-pressed=true]").first.click()
            seat.clicks += 1
        confirm.click()
    elif amount.count():
        low, high = int(amount.get_attribute("min")), int(amount.get_attribute("max"))
        amount.fill(str(rng.randint(low, high)))
        group.locator("button.cmd").click()
        seat.clicks += 1
    else:
        rng.choice(group.locator("button.cmd").all()).click()
    seat.clicks += 1
    confirm_yes = page.locator("#confirm-yes")
    if confirm_yes.count():
        confirm_yes.click()
        seat.clicks += 1


def _keyboard_move(seat: Seat, version: int) -> None:
    """A move with the keyboard only: Tab to the prompt's first choice, Enter, Enter on a confirm."""
    page = seat.page
    page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v && "
                           "document.querySelector('#prompt fieldset.choice button:not([disabled])') !== null",
                           arg=version, timeout=30000)
    page.locator("#main").focus()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.matches('#prompt fieldset.choice button.cmd')"):
            break
    else:
        raise AssertionError("Tab never reached a choice of the prompt")
    page.keyboard.press("Enter")
    seat.clicks += 1
    if page.locator("#confirm-yes").count():
        assert page.evaluate("document.activeElement?.id") == "confirm-yes"
        page.keyboard.press("Enter")
        seat.clicks += 1


def _cards_in(text: str, game_type: str) -> set[str]:
    """Card ids a text names: Dynasties' are words ('coppe-09'); Pax Pamir's are numbers, found in JSON
    under card-like keys or as 'card N' in text."""
    if game_type == "dynasties":
        return set(re.findall(r"\b(?:coppe|denari|spade|bastoni)-\d\d\b", text))
    found = set(re.findall(r"\b[Cc]ard (\d+)", text))
    try:
        value = json.loads(text)
    except ValueError:
        return found

    def walk(node, key=None):
        if isinstance(node, dict):
            if key == "faces":  # the printed faces, by card number
                found.update(k for k in node if k.isdigit())
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, int) and not isinstance(node, bool) and key in ("card", "cards", "hand", "court",
                                                                               "discard", "deck", "revealed"):
            found.add(str(node))
    walk(value)
    return found


class LeakCheck:
    """Seat B's hidden cards at each moment must never reach seat A's page.

    Hidden at a moment: for Dynasties, the cards in B's hand and B's face-down Tribute (B's own
    view) that no spectator has seen so far; for Pax Pamir (where a hand holds cards bought in
    public), every card no spectator has seen so far and A's own view does not show (the deck,
    the cards out of the game, a hand seen only by its owner). Also, no view A receives holds
    B's hand."""

    def __init__(self, url, game_type, game_id, seat_a: Seat, seat_b: Seat, b_seat: int):
        self.url, self.type, self.id = url, game_type, game_id
        self.a, self.b, self.b_seat = seat_a, seat_b, b_seat
        self.public: set[str] = set()
        self.a_held: set[str] = set()
        self.after = 0
        self.checked = 0
        self.hidden_seen = 0
        self.payloads_checked = 0

    def check(self, version: int):
        self.public |= _cards_in(requests.get(f"{self.url}/games/{self.id}/state", timeout=10).text, self.type)
        for event in _all_events(requests, self.url, self.id, self.after):
            self.public |= _cards_in(json.dumps(event), self.type)
            self.after = event["version"]
        if self.type == "dynasties":
            view = self.b.http.get(f"{self.url}/games/{self.id}/state", timeout=10).json()["view"] or {}
            hidden = set(view.get("hand") or []) | ({view["my_tribute"]} if view.get("my_tribute") else set())
            # a card A once held itself (drawn into its own hand, before the graveyard went back into
            # the deck) is A's to know: the secrets of A's own draws and Tributes
            for event in _all_events(self.a.http, self.url, self.id):
                if event.get("secret") and event["data"].get("seat") == 1 - self.b_seat:
                    self.a_held |= _cards_in(json.dumps(event["secret"]), self.type)
            hidden -= self.public | self.a_held
        else:
            own = self.a.http.get(f"{self.url}/games/{self.id}/state", timeout=10).text
            hidden = {str(card) for card in range(1, 117)} - self.public - _cards_in(own, self.type)
        fresh = self.a.take_payloads()
        seen_by_a: set[str] = set()
        for payload in self._about_the_game(self.a.payloads):
            seen_by_a |= _cards_in(payload["text"], self.type)
            self._no_hand_of_b(payload["text"])
        seen_by_a |= _cards_in(self.a.page.inner_text("body"), self.type)
        leaked = hidden & seen_by_a
        assert not leaked, (f"seat A's page received seat B's hidden cards {sorted(leaked)} (version {version}), in "
                            + "; ".join(f"{p['url']}: {p['text'][:300]}" for p in self._about_the_game(self.a.payloads)
                                        if leaked & _cards_in(p["text"], self.type))[:3000])
        self.checked += 1
        self.hidden_seen += bool(hidden)
        self.payloads_checked += len(fresh)

    def _about_the_game(self, payloads: list[dict]) -> list[dict]:
        """The answers about this game (its state, prompts, events, stream, commands). Others, such as
        GET /game-types, are documentation: a command argument's description names 'coppe-07' as an
        example of a card id, which is no card of this game."""
        return [p for p in payloads if f"/games/{self.id}" in p["url"]]

    def _no_hand_of_b(self, text: str):
        try:
            value = json.loads(text)
        except ValueError:
            return
        views = []
        if isinstance(value, dict):
            views += [value.get("view")] + [step.get("view") for step in value.get("steps", []) if isinstance(step, dict)]
        for view in views:
            if isinstance(view, dict) and view.get("outcome") is None:
                for player in view.get("players", []):
                    if player.get("seat") == self.b_seat:
                        assert not player.get("hand"), "a view seat A received holds seat B's hand"


def _play(url, browser, artifacts, game_type, options, seed):
    rng = random.Random(seed)
    first = browser.new_page(viewport=SIZES["desktop"])
    first.goto(url + "/")
    first.wait_for_selector("#player-name")
    for viewport in SIZES.values():
        first.set_viewport_size(viewport)
        first.screenshot(path=str(artifacts / f"signup-{viewport['width']}x{viewport['height']}.png"), full_page=True)
    _axe(first, "the sign-up page")
    first.close()
    # Ann plays at 1280 x 800, Bob on a phone at 390 x 844: the whole game is clicked at both sizes
    ann, bob = Seat(browser, url, "Ann"), Seat(browser, url, "Bob", size="phone")
    started = time.monotonic()
    try:
        _axe(ann, "the lobby, signed in")
        ann.page.click("details summary")
        _shot(ann, artifacts, f"lobby-{game_type}")
        rules_checked = _axe(ann, "the lobby")
        page = ann.page
        page.select_option("#new-type", game_type)
        if not page.locator("details[open]").count():
            page.click("details summary")
        for name, value in options.items():
            page.locator(f"#option-{name}").select_option(value) if isinstance(value, str) else None
        page.click("text=Create and take a seat")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        bob.page.goto(f"{url}/#/game/{game_id}")
        bob.page.click("text=Take a seat")
        seats = {p.player["id"]: p for p in (ann, bob)}
        deadline = time.monotonic() + 30
        while (game := _game(url, game_id))["status"] == "waiting":  # Bob's seat is being taken
            assert time.monotonic() < deadline, "Bob's click on 'Take a seat' did not seat him"
            time.sleep(0.05)
        by_seat = {s["seat"]: seats[s["player_id"]] for s in game["seats"]}
        a_seat = next(s["seat"] for s in game["seats"] if s["player_id"] == ann.player["id"])
        check = LeakCheck(url, game_type, game_id, ann, bob, 1 - a_seat)
        moves = bribes = faces = pieces = 0
        shot_mid = zoomed = False
        catalogue = requests.get(f"{url}/game-types/pax_pamir/cards", timeout=10).json()["cards"]
        while game["status"] != "finished":
            assert moves < 1500, "the game did not end"
            seat = rng.choice(game["to_move"])
            player = by_seat[seat]
            legal = player.http.get(f"{url}/games/{game_id}/legal-commands", timeout=10).json()
            in_bribe = any(t in BRIBES for t in (legal["prompt"] or {}).get("choices", {}))
            before = game["version"]
            for attempt in range(3):  # a click that raced a redraw may land on a choice gone stale: again
                if moves < 2 and attempt == 0:
                    _keyboard_move(player, before)
                else:
                    _click_a_move(player, rng, before, lambda before=before: _game(url, game_id)["version"] != before)
                deadline = time.monotonic() + 10
                while _game(url, game_id)["version"] == before and time.monotonic() < deadline:
                    time.sleep(0.05)
                if _game(url, game_id)["version"] != before:
                    break
            else:
                raise AssertionError(f"three clicks at version {before} changed nothing: "
                                     + player.page.inner_text("#prompt"))
            moves += 1
            game = _game(url, game_id)
            if in_bribe or moves % (5 if game_type == "dynasties" else 25) == 0:
                bribes += in_bribe
                check.check(game["version"])
            if moves == 12:  # a cut on A's side: offline for a moment, then the log must resume
                ann.context.set_offline(True)
                ann.page.wait_for_timeout(1500)
                ann.context.set_offline(False)
            if game_type == "pax_pamir" and game["status"] == "active" and moves % 10 == 3:
                faces += _cards_say_what_they_do(player, catalogue)
                pieces = max(pieces, _map_pieces_are_named(player.page, ("Ann", "Bob")))
            if game_type == "pax_pamir" and game["status"] == "active" and not zoomed:
                zoomed = (_zoom_keeps_the_targets(by_seat[game["to_move"][0]].page, game["version"])
                          if game["to_move"] else False)
            if not shot_mid and moves >= 8 and game["status"] == "active":
                shot_mid = True
                for who, name in ((ann, "a"), (bob, "b")):
                    _shot(who, artifacts, f"{game_type}-table-seat-{name}")
                rules_checked += _axe(ann, f"the {game_type} table")
                rules_checked += _axe(bob, f"the {game_type} table on a phone")
        check.check(game["version"])
        assert zoomed or game_type != "pax_pamir", "no map target was offered to zoom with in a whole game"
        if game_type == "pax_pamir":
            pieces = max(pieces, _map_pieces_are_named(ann.page, ("Ann", "Bob")))
            assert pieces > 0, "no piece was ever on the map to check its name"
        for who in (ann, bob):
            who.page.wait_for_function("() => document.getElementById('live-status')?.textContent === 'game over'",
                                       timeout=30000)
        _log_has_every_line_once(url, ann, game_id, game_type)
        for who in (ann, bob):  # the prompt's live region says prompts only: no log line ever overwrote one
            said = who.page.evaluate("window.__promptSaid")
            assert said and all(text.startswith("Your move: ") for text in said), said[:5]
        _shot(ann, artifacts, f"{game_type}-finished")
        rules_checked += _axe(ann, f"the finished {game_type} table")
        streams = ann.page.evaluate("window.__streams")
        assert streams > 2, "the stream was never cut and resumed"
        # one stream at a time: reopened about once per cut (every 2 s) and no more
        assert streams <= 10 + 2 * (time.monotonic() - started), f"{streams} streams opened: reconnects pile up"
        replayed = _replay(url, ann, artifacts, game_id, game["version"], rng)
        rules_checked += _axe(ann, "the replay viewer")
        rules_checked += _signed_out(browser, url, artifacts, game_id, game_type)
        assert not ann.errors and not bob.errors, ann.errors + bob.errors
        return {"moves": moves, "clicks": ann.clicks + bob.clicks, "pages_visited": ann.pages + bob.pages, "checks": check.checked,
                "checks_with_hidden_cards": check.hidden_seen, "payloads_checked": check.payloads_checked,
                "streams_opened_by_a": streams, "bribe_checks": bribes, "replay_versions": replayed,
                "axe_rules": rules_checked, "card_faces_checked": faces, "most_map_pieces_checked": pieces}
    finally:
        ann.close()
        bob.close()


def _signed_out(browser, url, artifacts, game_id, game_type) -> int:
    """The finished game's table and its replay as someone signed out sees them: axe finds nothing
    serious, and both screens are kept at both sizes. Returns the rules checked."""
    page = browser.new_page(viewport=SIZES["desktop"])
    try:
        page.goto(f"{url}/#/game/{game_id}")
        page.wait_for_selector("#main .board section")
        assert "Signed in as" not in page.inner_text("body")
        checked = _axe(page, f"the finished {game_type} table, signed out")
        _shot(types.SimpleNamespace(page=page), artifacts, f"{game_type}-finished-signed-out")
        page.goto(f"{url}/#/replay/{game_id}")
        page.wait_for_selector("#main .board section")
        checked += _axe(page, f"the {game_type} replay, signed out")
        _shot(types.SimpleNamespace(page=page), artifacts, f"replay-{game_type}-signed-out")
        return checked
    finally:
        page.close()


def _said(event: dict) -> bool:
    """Whether the log gives the event a line: Pax Pamir's spent actions (said by what they do) and market
    slides (the refill says enough) have none."""
    if event["type"] == "ActionSpent":
        return False
    data = event["data"]
    return not (event["type"] == "CardMoved" and str(data.get("src")).startswith("market:")
                and str(data.get("dst")).startswith("market:"))


def _cards_say_what_they_do(seat: Seat, catalogue: dict) -> int:
    """Every market and hand card on the seat's page shows what the catalogue says it does (its actions,
    its impact icons, its ability, an event's two sides); a purchase button shows the price. Returns
    the cards checked."""
    page = seat.page
    page.wait_for_selector("#main .board table.market .card")
    cards = page.eval_on_selector_all(
        "#main .board table.market .card, #main .board .hand .card",
        "cards => cards.map(c => ({n: c.dataset.card, actions: c.querySelector('.actions')?.innerText ?? null,"
        " icons: c.querySelector('.icons')?.innerText ?? null, text: c.innerText}))")
    assert cards
    for card in cards:
        face = catalogue[card["n"]]
        if face["kind"] == "court":
            for action in face["actions"]:
                assert action.capitalize() in (card["actions"] or ""), (card, face)
            assert card["icons"] is not None, card
            if face["special_ability"]:
                assert face["special_ability"]["name"] in card["text"], card
        elif face["kind"] == "event":
            assert face["if_purchased"]["name"] in card["text"] and face["if_discarded"]["name"] in card["text"], card
    for label in page.eval_on_selector_all("#prompt button[data-command=Purchase]", "bs => bs.map(b => b.innerText)"):
        assert re.search(r"costs \d+ rupees?", label), label
    return len(cards)


PIECE_NAME = re.compile(r"^(?:(?:\d+ )?(?P<coalition>Afghan|British|Russian) (?:army|armies|road|roads)"
                        r"|(?P<seat>.+)'s tribe|\d+ tribes of (?P<seats>.+)|Ruler's flag: (?P<ruler>.+) rules here)$")


def _map_pieces_are_named(page, players: tuple[str, ...]) -> int:
    """Every piece on the map (each army, road, tribe and ruler's flag, or stack of like pieces) has an
    accessible name that says its kind and its owner: a coalition, or a player by name. Returns the
    pieces checked."""
    page.wait_for_selector("#main .board svg.map")
    names = page.eval_on_selector_all("#main .board svg.map .piece", "ps => ps.map(p => p.getAttribute('aria-label'))")
    roles = page.eval_on_selector_all("#main .board svg.map .piece", "ps => ps.map(p => p.getAttribute('role'))")
    assert set(roles) <= {"img"}, roles
    for name in names:
        found = PIECE_NAME.match(name or "")
        assert found, f"a map piece's name says not its kind and owner: {name!r}"
        owner = found["seat"] or found["seats"] or found["ruler"]
        assert found["coalition"] or owner in (*players, "Wakhan"), f"a map piece's owner is no player: {name!r}"
    return len(names)


def _map_is_legible(page) -> None:
    """At the page's width every text on the map is at least 12 CSS px high, and the legend says what
    the shapes are."""
    smallest = page.evaluate("""() => {
      const svg = document.querySelector('#main .board svg.map'); const k = svg.getScreenCTM().a;
      return Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k)); }""")
    assert smallest >= 12, f"map text {smallest:.1f} px high at {page.viewport_size['width']} px wide"
    legend = page.inner_text("#main .board .map-legend")
    for kind in ("Army", "Road", "Tribe", "Ruler", "Afghan", "British", "Russian"):
        assert kind in legend, legend


def _zoom_keeps_the_targets(page, version: int) -> bool:
    """If the page has drawn the game at `version` (its prompt says so) and the map highlights legal
    targets, zoom in and fit: the same targets stay highlighted. False when there were none to check.
    (Counting before the page has drawn the move just made would count the previous prompt's targets,
    which its refresh then replaces.)"""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector(f'#prompt[data-version="{version}"]', timeout=5000)
    except PlaywrightTimeout:
        return False  # the game moved on again meanwhile (a bot's move): try at a later move
    map_targets = page.locator("#main .board svg.map .target")
    before_zoom = map_targets.count()
    if not before_zoom:
        return False
    page.click("text=Zoom in")
    assert page.locator("#main .board svg.map .target").count() == before_zoom
    page.click("text=Fit")
    assert page.locator("#main .board svg.map .target").count() == before_zoom
    return True


def _log_has_every_line_once(url, seat: Seat, game_id, game_type):
    shown = [int(v) for v in seat.page.eval_on_selector_all("#log li[data-version]",
                                                            "items => items.map(i => i.dataset.version)")]
    assert len(shown) == len(set(shown)), "a log line is shown twice"
    events = _all_events(seat.http, url, game_id)
    expected = [e["version"] for e in events if e["type"] not in QUIET[game_type] and _said(e)]
    assert shown == expected, f"missing log lines: {sorted(set(expected) - set(shown))[:10]}"


def _replay(url, seat: Seat, artifacts, game_id, last_version, rng) -> int:
    page = seat.page
    versions = sorted({5, last_version // 3, last_version // 2, last_version})
    for version in versions:
        page.goto(f"{url}/#/replay/{game_id}/{version}")
        page.wait_for_selector("#replay-at")
        page.wait_for_function("() => document.getElementById('replay-at').textContent.startsWith('Version ')")
        at = int(re.search(r"Version (\d+)", page.inner_text("#replay-at")).group(1))
        assert at >= version and page.locator("#replay-event").inner_text().startswith(f"{at}:")
        assert page.url.endswith(f"/{at}")
    page.click("#replay-first")
    first = page.inner_text("#replay-at")
    page.click("#replay-next")
    assert page.inner_text("#replay-at") != first
    # the fairness check of a finished game: the revealed seed opens the published commitment
    page.wait_for_function("() => ['pass', 'fail'].includes(document.getElementById('fairness-result')?.dataset.result)")
    fair = seat.http.get(f"{url}/games/{game_id}", timeout=10).json()["fairness"]
    assert page.get_attribute("#fairness-result", "data-result") == "pass", page.inner_text("#fairness")
    assert fair["seed_commitment"] in page.inner_text("#fairness-result")
    assert page.inner_text("#fairness-command").strip() == f"python -m service verify-fairness game-{game_id}.jsonl"
    export = seat.http.get(url + page.get_attribute("#fairness-export", "href"), timeout=10)
    assert export.status_code == 200 and '"SeedRevealed"' in export.text
    # the viewer lists the steps without views and asks for the table where it looks (a long game opens fast)
    asked = [u for u in seat.urls if f"/games/{game_id}/replay" in u]
    assert any("view_every=0" in u for u in asked) and not any("view_every=1&" in u and "limit=1000" in u for u in asked)
    if "pax" in page.evaluate("document.title").lower():  # after the end the everyone view shows every hand
        page.goto(f"{url}/#/replay/{game_id}/{last_version}")
        page.wait_for_function("(v) => document.getElementById('replay-at')?.textContent.startsWith(`Version ${v} `)",
                               arg=last_version)
        page.wait_for_selector("#main .board .hand-of h4")
        hands = page.eval_on_selector_all("#main .board .hand-of h4", "hs => hs.map(h => h.innerText)")
        assert len(hands) == len(_game(url, game_id)["seats"]), hands
    page.goto(f"{url}/#/replay/{game_id}/{last_version // 2}")
    page.wait_for_selector("figure svg.chart")
    _shot(seat, artifacts, f"replay-{page.evaluate('document.title').split(' · ')[1].lower().replace(' ', '-')}")
    return len(versions)


def test_dynasties_played_to_the_end_in_the_browser(web_server, browser, artifacts, record_property):
    figures = _play(web_server, browser, artifacts, "dynasties", {}, seed=7)
    record_property("figures", figures)
    (artifacts / "figures-dynasties.json").write_text(json.dumps(figures, indent=1))
    print("dynasties", figures)
    assert figures["checks_with_hidden_cards"] > 0


def test_pax_pamir_played_to_the_end_in_the_browser(web_server, browser, artifacts, record_property):
    figures = _play(web_server, browser, artifacts, "pax_pamir", {"first_chooser": "seat_0"}, seed=3)
    record_property("figures", figures)
    (artifacts / "figures-pax_pamir.json").write_text(json.dumps(figures, indent=1))
    print("pax_pamir", figures)
    assert figures["checks_with_hidden_cards"] > 0 and figures["card_faces_checked"] > 0


def _legal_deal(seats: int) -> dict:
    """A fixed deal the R-SET-1 piles could give (court cards in order, then events and checks), so the
    game below is the same every run: with it, a random player meets a bribe within a few moves."""
    from domain.games.pax_pamir.data.board import pile_size
    from domain.games.pax_pamir.data.cards import COURT_CARDS, DOMINANCE_CHECKS, EVENT_CARDS

    court, events, checks = sorted(COURT_CARDS), sorted(EVENT_CARDS), sorted(DOMINANCE_CHECKS)
    size, deck = pile_size(seats), []
    for pile, (n_events, n_checks) in enumerate(((0, 0), (2, 0), (1, 1), (1, 1), (1, 1), (1, 1))):
        deck += court[pile * size:(pile + 1) * size] + events[:n_events] + checks[:n_checks]
        events, checks = events[n_events:], checks[n_checks:]
    return {"deck": deck, "loyalty_order": list(range(seats))}


def test_a_pax_pamir_bribe_negotiated_in_the_browser_shows_no_hidden_card(web_server, browser, artifacts):
    """Seat 1 must pay seat 0 (Ann, seat A) a bribe: both negotiate by clicking (an offer as a bounded
    amount, a counter-offer), and at every step Ann's page holds none of Bob's hidden cards."""
    url = web_server
    ann, bob = Seat(browser, url, "Ann"), Seat(browser, url, "Bob")
    try:
        game = ann.http.post(f"{url}/games", json={"type": "pax_pamir", "seats": 2,
                                                    "options": {"deal": _legal_deal(2)}}, timeout=10).json()
        for seat in (ann, bob):
            assert seat.http.post(f"{url}/games/{game['id']}/join", json={}, timeout=10).status_code == 200
        rng = random.Random(7)
        by_seat = {0: ann, 1: bob}
        while True:  # random legal moves through the API until a bribe is asked (12 moves with this deal)
            current = _game(url, game["id"])
            seat = rng.choice(current["to_move"])
            legal = by_seat[seat].http.get(f"{url}/games/{game['id']}/legal-commands", timeout=10).json()
            if "OfferBribe" in legal["prompt"]["choices"]:
                break
            by_seat[seat].http.post(f"{url}/games/{game['id']}/commands", json=rng.choice(legal["commands"]),
                                    timeout=10)
        assert seat == 1, "with this deal and seed, Bob is asked for the bribe"
        for who in (ann, bob):
            who.page.goto(f"{url}/#/game/{game['id']}")
        check = LeakCheck(url, "pax_pamir", game["id"], ann, bob, 1)
        page = bob.page
        version = _game(url, game["id"])["version"]
        page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v",
                               arg=version, timeout=30000)
        assert "bribe" in page.inner_text("#prompt-text")
        check.check(version)
        _shot(bob, artifacts, "pax_pamir-bribe-asked")
        page.fill("#amount-OfferBribe", "0")
        page.click("#prompt button.cmd[data-command=OfferBribe]")
        steps = 0
        while True:
            version = _wait_for_a_new_version(url, game["id"], version)
            check.check(version)
            current = _game(url, game["id"])
            seat = current["to_move"][0]
            legal = by_seat[seat].http.get(f"{url}/games/{game['id']}/legal-commands", timeout=10).json()
            choices = legal["prompt"]["choices"] if legal["prompt"] else {}
            if not any(t in BRIBES for t in choices) or steps > 6:
                break
            who = by_seat[seat]
            who.page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v",
                                       arg=version, timeout=30000)
            if "CounterBribeOffer" in choices:
                _shot(ann, artifacts, "pax_pamir-bribe-offered")
                amount = who.page.locator("#amount-CounterBribeOffer")
                amount.fill(amount.get_attribute("max"))
                who.page.click("#prompt button.cmd[data-command=CounterBribeOffer]")
            elif "AcceptBribeCounter" in choices:
                who.page.click("#prompt button.cmd[data-command=AcceptBribeCounter]")
            else:
                who.page.locator("#prompt fieldset.choice button.cmd").first.click()
            steps += 1
        assert steps >= 1 and check.checked >= 3 and check.hidden_seen == check.checked
        assert not ann.errors and not bob.errors, ann.errors + bob.errors
    finally:
        ann.close()
        bob.close()


def _wait_for_a_new_version(url, game_id, version) -> int:
    deadline = time.monotonic() + 15
    while _game(url, game_id)["version"] == version:
        assert time.monotonic() < deadline, f"nothing happened after version {version}"
        time.sleep(0.05)
    time.sleep(0.3)  # let the command's follow-up events land
    return _game(url, game_id)["version"]


def test_dynasties_with_sealed_tributes_played_to_the_end_in_the_browser(web_server, browser, artifacts,
                                                                          record_property):
    """R17a in the browser: each Tribute is sealed with a hash the page computes (crypto.subtle,
    the salt kept in sessionStorage) and revealed from that salt; the game ends."""
    figures = _play(web_server, browser, artifacts, "dynasties", {"commit_reveal_tributes": True}, seed=8)
    record_property("figures", figures)
    print("dynasties (sealed Tributes)", figures)
    assert figures["checks_with_hidden_cards"] > 0


def test_a_person_alone_plays_dynasties_against_bots_chosen_in_the_lobby(web_server, browser, artifacts):
    """The lobby's create form gives the seats but the creator's to computer opponents: the
    game starts as soon as the creator sits, the bots move by themselves, and the person plays
    by clicking to the end."""
    rng = random.Random(11)
    cleo = Seat(browser, web_server, "Cleo")
    try:
        page = cleo.page
        page.select_option("#new-type", "dynasties")
        page.fill("#new-seats", "3")
        assert page.locator(".opponents select").count() == 2  # one choice per other seat
        page.select_option("#opponent-1", "random:default")
        page.select_option("#opponent-2", "greedy:careful")
        page.click("details summary")
        page.fill("#option-starting_gold", "8")
        _shot(cleo, artifacts, "lobby-with-bots")
        _axe(cleo, "the create form with computer opponents")
        page.click("text=Create and take a seat")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        game = _game(web_server, game_id)
        assert game["status"] == "active", game
        bots = {s["seat"]: s["bot"] for s in game["seats"] if s.get("bot")}
        assert bots == {1: {"kind": "random", "level": "default"}, 2: {"kind": "greedy", "level": "careful"}}
        mine = next(s["seat"] for s in game["seats"] if s["player_id"] == cleo.player["id"])
        assert mine == 0
        moves = 0
        deadline = time.monotonic() + 240
        while game["status"] != "finished":
            assert time.monotonic() < deadline and moves < 400, "the game did not end"
            if mine in game["to_move"]:
                before = game["version"]
                _click_a_move(cleo, rng, before, lambda before=before: _game(web_server, game_id)["version"] != before)
                moves += 1
                wait_until = time.monotonic() + 10
                while _game(web_server, game_id)["version"] == before and time.monotonic() < wait_until:
                    time.sleep(0.05)
            else:
                time.sleep(0.1)  # a bot's move
            game = _game(web_server, game_id)
        assert moves > 0
        events = _all_events(cleo.http, web_server, game_id)
        acted = {(e["actor"], e.get("bot")) for e in events if e["source"] == "game" and e["actor"] is not None}
        assert {(1, "random:default"), (2, "greedy:careful"), (0, None)} <= acted
        page.wait_for_function("() => document.getElementById('live-status')?.textContent === 'game over'",
                               timeout=30000)
        _shot(cleo, artifacts, "dynasties-against-bots-finished")
        # the finished game's replay through the random bot's eyes: the page asks for its seat's views
        page.goto(f"{web_server}/#/replay/{game_id}")
        page.wait_for_selector("#replay-perspective")
        page.select_option("#replay-perspective", "1")
        page.wait_for_function("() => document.getElementById('replay-perspective-said')?.textContent.includes('saw it during play')")
        assert any("as_seat=1" in u for u in cleo.urls)
        page.click("#replay-first")
        page.click("#replay-next")
        assert "Version" in page.inner_text("#replay-at")
        _axe(cleo, "the replay seen by one seat")
        assert not cleo.errors, cleo.errors
    finally:
        cleo.close()


def test_a_token_rotation_whose_answer_is_lost_leaves_the_tab_signed_in(web_server, browser):
    """The server rotates the token but its answer never reaches the page (the connection
    drops): the page retries with the same Idempotency-Key and old token, gets the same new
    token, and goes on with it; the old token no longer works."""
    dan = Seat(browser, web_server, "Dan")
    try:
        old = dan.player["token"]
        lost: list[str] = []

        def drop_the_answer(route):
            if not lost:
                answer = route.fetch()  # the server did rotate
                lost.append(answer.json()["token"])
                route.abort("connectionreset")
            else:
                route.continue_()

        dan.page.route("**/players/me/token", drop_the_answer)
        dan.page.click("text=Rotate token")
        dan.page.wait_for_selector("text=A new token is in use")
        saved = json.loads(dan.page.evaluate("sessionStorage.getItem('game-service.player')"))
        assert lost and saved["token"] == lost[0] != old
        assert requests.get(f"{web_server}/players/{saved['id']}/games", timeout=10,
                            headers={"Authorization": f"Bearer {saved['token']}"}).status_code == 200
        refused = requests.post(f"{web_server}/games", json={"type": "dynasties", "seats": 2}, timeout=10,
                                headers={"Authorization": f"Bearer {old}"})
        assert refused.status_code == 401
        assert not dan.errors, dan.errors
    finally:
        dan.close()


def test_a_seat_is_never_lost_and_a_stale_confirm_is_refused(web_server, browser, artifacts):
    """Deliver 5, 6 and 8 of issue 34 in the browser: Ann's tab makes a sign-in link, another browser (a
    second device) opens it and is Ann at her seat, and the first tab stays signed in; a hand-over
    confirmed after the game moved on is refused (409) and the table says so and refreshes; after a
    move the focus is in the prompt; arrow keys move between a group's choices (one Tab stop each)."""
    url = web_server
    ann, bob = Seat(browser, url, "Ann"), Seat(browser, url, "Bob")
    device = browser.new_context(viewport=SIZES["phone"])
    device.add_init_script(CAPTURE)
    try:
        game = ann.http.post(f"{url}/games", json={"type": "pax_pamir", "seats": 2,
                                                    "options": {"first_chooser": "seat_0"}}, timeout=10).json()
        for seat in (ann, bob):
            assert seat.http.post(f"{url}/games/{game['id']}/join", json={}, timeout=10).status_code == 200
        by_seat = {s["seat"]: {ann.player["id"]: ann, bob.player["id"]: bob}[s["player_id"]]
                   for s in _game(url, game["id"])["seats"]}
        page = ann.page
        for seat in (ann, bob):
            seat.page.goto(f"{url}/#/game/{game['id']}")
        # a second device signs in as Ann with a link from her tab
        page.click("#make-sign-in-link")
        link = page.input_value("#sign-in-link-url")
        assert ann.player["token"] not in link and "#/sign-in/" in link
        _shot(ann, artifacts, "sign-in-link")
        _axe(ann, "the table with a sign-in link shown")
        other = device.new_page()
        other.goto(link)
        other.wait_for_selector("text=Signed in as")
        assert other.inner_text("#account").startswith("Signed in as Ann")
        assert "/sign-in/" not in other.url  # the used code leaves the address bar
        assert json.loads(other.evaluate("sessionStorage.getItem('game-service.player')"))["token"] == ann.player["token"]
        other.goto(f"{url}/#/game/{game['id']}")
        other.wait_for_selector("#prompt[data-version]")
        assert "You are Ann" in other.inner_text("#game-status")
        again = device.new_page()  # the link worked once
        again.goto(link)
        again.wait_for_selector("text=This sign-in link did not work")
        assert "used already" in again.inner_text("#main")
        _axe(again, "a used sign-in link")
        # loyalties through the page: a click on a choice leaves the focus in the prompt
        while "ChooseLoyalty" in (legal := by_seat[(current := _game(url, game["id"]))["to_move"][0]].http.get(
                f"{url}/games/{game['id']}/legal-commands", timeout=10).json())["prompt"]["choices"]:
            who = by_seat[current["to_move"][0]]
            who.page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v && "
                                       "document.querySelector('#prompt button[data-command=ChooseLoyalty]') !== null",
                                       arg=current["version"], timeout=30000)
            group = who.page.locator("#prompt fieldset.choice").first
            assert group.locator("button[tabindex='0']").count() == 1  # one Tab stop per group
            group.locator("button").first.focus()
            who.page.keyboard.press("ArrowRight")
            assert who.page.evaluate("document.activeElement === document.querySelectorAll("
                                     "'#prompt fieldset.choice')[0].querySelectorAll('button')[1]")
            who.page.keyboard.press("Enter")
            _wait_for_a_new_version(url, game["id"], current["version"])
            who.page.wait_for_function("() => document.getElementById('prompt').contains(document.activeElement)")
        # the first turn: its player asks to end it, and while the confirm is open the game moves on (the
        # same player's other tab buys a card)
        current = _game(url, game["id"])
        mover = by_seat[current["to_move"][0]]
        page = mover.page
        page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v && "
                               "document.querySelector('#prompt button[data-command=EndTurn]') !== null",
                               arg=current["version"], timeout=30000)
        page.click("#prompt button[data-command=EndTurn]")
        page.wait_for_selector("#confirm-yes")
        legal = mover.http.get(f"{url}/games/{game['id']}/legal-commands", timeout=10).json()
        buy = next(c for c in legal["commands"] if c["type"] == "Purchase")
        assert mover.http.post(f"{url}/games/{game['id']}/commands", json=buy, timeout=10).status_code == 201
        moved = _game(url, game["id"])["version"]
        page.click("#confirm-yes")
        page.wait_for_function("() => document.getElementById('table-notice')?.textContent.includes('moved on')")
        page.wait_for_function("(v) => Number(document.getElementById('prompt')?.dataset.version) >= v", arg=moved)
        assert _game(url, game["id"])["version"] == moved, "the stale End turn was played"
        # the focus goes to the new prompt once it is drawn (it failed once when read at the very moment the
        # version changed, before the focus had moved): waited for, and a timeout fails the test
        page.wait_for_function("() => document.getElementById('prompt').contains(document.activeElement)",
                               timeout=5000)
        _shot(mover, artifacts, "pax_pamir-stale-confirm")
        _axe(mover, "the table with the refresh notice")
        assert ann.http.get(f"{url}/players/{ann.player['id']}/games", timeout=10).status_code == 200  # not revoked
        assert not ann.errors and not bob.errors, ann.errors + bob.errors
    finally:
        device.close()
        ann.close()
        bob.close()


def test_a_person_alone_plays_pax_pamir_against_wakhan_on_a_phone(web_server, browser, artifacts):
    """'Play solo' in the lobby starts Pax Pamir against Wakhan in one click; the person plays it to the
    end by clicking at 390 x 844; Wakhan is named, has her panel (her AI card), and the result is a
    table with names."""
    rng = random.Random(5)
    eve = Seat(browser, web_server, "Eve")
    try:
        page = eve.page
        page.set_viewport_size(SIZES["phone"])
        page.click("button[data-solo=pax_pamir]")
        page.wait_for_url(re.compile(r"#/game/[0-9a-f]{16}$"))
        game_id = page.url.rsplit("/", 1)[1]
        game = _game(web_server, game_id)
        assert game["status"] == "active" and game["options"]["wakhan"] is True, game
        page.wait_for_selector("#main .players .seat >> text=Wakhan")
        moves = pieces = 0
        zoomed = False
        deadline = time.monotonic() + 400
        while game["status"] != "finished":
            assert time.monotonic() < deadline and moves < 600, f"the game did not end ({moves} moves)"
            before = game["version"]
            _click_a_move(eve, rng, before, lambda before=before: _game(web_server, game_id)["version"] != before)
            moves += 1
            wait_until = time.monotonic() + 10
            while _game(web_server, game_id)["version"] == before and time.monotonic() < wait_until:
                time.sleep(0.05)
            game = _game(web_server, game_id)
            zoomed = zoomed or _zoom_keeps_the_targets(page, game["version"])
            if moves % 15 == 1 and game["status"] == "active":
                _map_is_legible(page)
                pieces = max(pieces, _map_pieces_are_named(page, ("Eve",)))
            if moves == 6:
                panel = page.inner_text("#main .players")
                assert "Wakhan" in panel and "AI card" in panel, panel
                _shot(eve, artifacts, "pax_pamir-against-wakhan")
        page.wait_for_function("() => document.getElementById('live-status')?.textContent === 'game over'",
                               timeout=30000)
        page.wait_for_selector("#pax-result")
        result = page.inner_text("section[aria-labelledby=pax-result]")
        assert "Eve" in result and "Wakhan" in result and "Seat" not in result, result
        assert "Seat" not in page.inner_text("#game-status"), page.inner_text("#game-status")
        _shot(eve, artifacts, "pax_pamir-against-wakhan-finished")
        _axe(eve, "the finished game against Wakhan")
        _map_is_legible(page)
        assert max(pieces, _map_pieces_are_named(page, ("Eve",))) > 0, "no piece was ever on the map to check its name"
        # (whether this game ever offers a target on the map is the deal's: the two-person game asserts it)
        assert not eve.errors, eve.errors
    finally:
        eve.close()
