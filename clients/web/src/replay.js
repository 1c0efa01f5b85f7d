// @ts-check
// The replay viewer: a game stepped or scrubbed by version, the table as the reader may see it
// after each event (a seat's own view during play, everything once the game is over), a link
// per step, and a chart of each seat's gold (Dynasties) or victory points and rupees (Pax Pamir).
// For a finished game, a fairness check: the revealed seed opens the commitment published at
// creation (sha256(salt || seed), computed here), a download of the export, and the command
// that recomputes every shuffle from it.
import { api, me } from "./api.js";
import { bytesOfHex, sha256Hex } from "./digest.js";
import { h, s, fill, words, announce } from "./dom.js";
import { layouts, logLine, said, SEAT_SHAPES } from "./games/index.js";

/** @typedef {import("./api.js").ReplayStep} ReplayStep */
/** @typedef {{main: HTMLElement, renderAccount: () => void, reason: (error: unknown) => string}} Context */

/** @param {Context} ctx @param {string} id @param {number | null} wanted @returns {() => void} */
export function replayPage(ctx, id, wanted) {
  const heading = h("h1", null, "Replay");
  const body = h("div.replay", null, h("p", { role: "status" }, "Loading the game…"));
  fill(ctx.main, heading, body);
  let stopped = false;

  (async () => {
    try {
      const game = await api.game(id);
      const layout = layouts[game.type] ?? layouts.generic;
      await layout.prepare?.();
      // A long game opens fast: its steps are listed without views, the table is fetched for the
      // step shown (with a few after it, for stepping on), and the chart's points come after.
      /** @param {number | null} asSeat @returns {Promise<ReplayStep[]>} */
      const load = async (asSeat) => {
        /** @type {ReplayStep[]} */
        const found = [];
        let after = /** @type {number | null} */ (0);
        while (after !== null && !stopped) {
          const page = await api.replay(id, after, asSeat, 0, 1000);
          found.push(...page.steps);
          after = page.next_after ?? null;
        }
        return found;
      };
      /** The views fetched so far, by version (one perspective at a time). @type {Map<number, any>} */
      let views = new Map();
      let viewer = /** @type {number | null} */ (null);
      /** The view after step `i`, fetched with the next few. @param {number} i @returns {Promise<any>} */
      const viewAt = async (i) => {
        const version = steps[i]?.event.version;
        if (version === undefined) return null;
        if (!views.has(version)) {
          const asked = viewer, into = views;
          const page = await api.replay(id, steps[i - 1]?.event.version ?? 0, asked, 1, 12);
          for (const step of page.steps) if ("view" in step) into.set(step.event.version, step.view);
        }
        return views.get(version) ?? null;
      };
      let steps = await load(null);
      if (stopped) return;
      const nameOf = (/** @type {number | null | undefined} */ n) => (n === null || n === undefined ? "—" : game.seats[n]?.name ?? `Seat ${n}`);
      const player = me();
      const mySeat = player ? game.seats.find((x) => x.player_id === player.id)?.seat ?? null : null;
      let seat = mySeat;
      heading.textContent = `Replay: ${layout.title} · ${game.id}`;
      document.title = `Replay · ${layout.title} · Game service`;
      const versions = steps.map((step) => step.event.version);
      const first = versions[0] ?? 1, lastVersion = versions[versions.length - 1] ?? 1;
      let index = wanted === null ? steps.length - 1 : Math.max(0, versions.findIndex((v) => v >= wanted));
      if (index < 0) index = steps.length - 1;

      const slider = /** @type {HTMLInputElement} */ (h("input", { id: "replay-version", type: "range", min: first, max: lastVersion, step: 1 }));
      const number = h("output", { id: "replay-at", for: "replay-version" });
      const eventText = h("p.event", { id: "replay-event" });
      const link = h("a", { id: "replay-link" }, "Link to this step");
      const table = h("div.board");
      const chart = h("div.chart");
      let drawn = 0; // the latest drawing asked for: a slow answer for an earlier step draws nothing
      /** @type {{version: number, values: Record<string, number>[]}[]} */
      let points = [];
      const go = async (/** @type {number} */ i) => {
        index = Math.min(steps.length - 1, Math.max(0, i));
        const step = steps[index];
        if (!step) return;
        const ticket = ++drawn;
        slider.value = String(step.event.version);
        number.textContent = `Version ${step.event.version} of ${lastVersion}`;
        const text = logLine(layout, step.event, nameOf);
        fill(eventText, `${step.event.version}: `, text ?? words(step.event.type));
        link.setAttribute("href", `#/replay/${id}/${step.event.version}`);
        history.replaceState(null, "", `#/replay/${id}/${step.event.version}`);
        announce(eventText.textContent);
        table.setAttribute("aria-busy", "true");
        let view;
        try { view = await viewAt(index); } catch (error) { if (ticket === drawn) fill(table, h("p.error", { role: "alert" }, ctx.reason(error))); return; }
        if (ticket !== drawn || stopped) return;
        table.removeAttribute("aria-busy");
        fill(table, view ? layout.render(view, { seat, nameOf, targets: new Set() })
                         : h("p", null, "The game had not started yet."));
        fill(chart, drawChart(points, step.event.version, nameOf));
      };
      /** The chart's points: the views of about 60 steps spread over the game, fetched after the table is drawn. */
      const chartPoints = async () => {
        const asked = viewer, every = Math.max(1, Math.ceil(lastVersion / 60));
        /** @type {{version: number, values: Record<string, number>[]}[]} */
        const found = [];
        let after = /** @type {number | null} */ (0);
        while (after !== null && !stopped && asked === viewer) {
          const page = await api.replay(id, after, asked, every, every > 1 ? 1000 : 200);
          for (const step of page.steps) if (step.view) found.push({ version: step.event.version, values: layout.series(step.view) });
          after = page.next_after ?? null;
        }
        if (stopped || asked !== viewer) return;
        points = found;
        fill(chart, drawChart(points, steps[index]?.event.version ?? lastVersion, nameOf));
      };
      slider.addEventListener("input", () => {
        const v = Number(slider.value);
        const at = versions.findIndex((x) => x >= v);
        go(at < 0 ? steps.length - 1 : at);
      });
      const button = (/** @type {string} */ text, /** @type {() => number} */ to, /** @type {string} */ idName) =>
        h("button", { type: "button", id: idName, onclick: () => go(to()) }, text);
      const said = h("p", { id: "replay-perspective-said" }, game.status === "finished" ? "The game is over: every seat's cards are shown."
        : seat !== null ? `The game is running: you see it as ${nameOf(seat)} saw it.` : "The game is running: you see what a spectator sees.");
      // a finished game is public: step through it as any seat saw it then
      const perspective = game.status !== "finished" ? null : h("div.field", null,
        h("label", { for: "replay-perspective" }, "Seen by "),
        h("select", { id: "replay-perspective", onchange: async (/** @type {Event} */ e) => {
          const value = /** @type {HTMLSelectElement} */ (e.target).value;
          const asSeat = value === "" ? null : Number(value);
          const at = steps[index]?.event.version ?? lastVersion;
          try {
            steps = await load(asSeat);
            viewer = asSeat;
            views = new Map();
            points = [];
            seat = asSeat ?? mySeat;
            said.textContent = asSeat === null ? "The game is over: every seat's cards are shown."
              : `You see each step as ${nameOf(asSeat)} saw it during play: what that seat could not see is hidden.`;
            const found = steps.findIndex((step) => step.event.version >= at);
            await go(found < 0 ? steps.length - 1 : found);
            chartPoints().catch(() => fill(chart, h("p", null, "The chart could not be loaded.")));
          } catch (error) { said.textContent = ctx.reason(error); }
        } }, h("option", { value: "" }, "Everyone (every card shown)"),
          ...game.seats.map((x) => h("option", { value: String(x.seat) }, `${nameOf(x.seat)}, as they saw it`))));
      fill(body, said, perspective,
        h("div.timeline", { role: "group", "aria-label": "Timeline" },
          button("« First", () => 0, "replay-first"), button("◀ Previous", () => index - 1, "replay-prev"),
          h("label", { for: "replay-version" }, "Version "), slider, number,
          button("Next ▶", () => index + 1, "replay-next"), button("Last »", () => steps.length - 1, "replay-last"),
          link, h("a.button", { href: `#/game/${id}` }, "Back to the table")),
        fairnessCheck(game), eventText, chart, table);
      await go(index);
      chartPoints().catch(() => fill(chart, h("p", null, "The chart could not be loaded.")));
    } catch (error) {
      fill(body, h("p.error", { role: "alert" }, ctx.reason(error)));
    }
  })();
  return () => { stopped = true; };
}

/**
 * What the browser can check of a game's randomness with no rule: the revealed seed and salt
 * open the commitment the game published when it was created. Every shuffle is recomputed
 * from the export by the command it shows. @param {import("./api.js").Game} game
 */
function fairnessCheck(game) {
  const fair = /** @type {{seed_commitment?: string | null, seed?: string | null, salt?: string | null} | undefined} */ (
    /** @type {any} */ (game).fairness);
  const result = h("p.fairness-result", { id: "fairness-result", role: "status", "data-result": "pending" }, "Checking…");
  const file = `game-${game.id}.jsonl`;
  const box = h("section.fairness", { id: "fairness", "aria-labelledby": "fairness-title" },
    h("h2", { id: "fairness-title" }, "Fair play"), result);
  const say = (/** @type {string} */ outcome, /** @type {string} */ text) => {
    result.setAttribute("data-result", outcome);
    result.textContent = text;
  };
  if (!fair?.seed_commitment) { say("none", "This game published no seed commitment."); return box; }
  if (game.status !== "finished" || !fair.seed || !fair.salt) {
    say("pending", `The game committed to its seed: ${fair.seed_commitment}. The seed is revealed when it ends.`);
    return box;
  }
  const { seed, salt, seed_commitment: commitment } = fair;
  box.append(
    h("p", null, "Every shuffle, deal and draw can be recomputed from the export with ",
      h("a", { id: "fairness-export", href: `/games/${encodeURIComponent(game.id)}/export`, download: file }, "the game's export"), ":"),
    h("pre.raw", { id: "fairness-command", tabindex: 0 }, `python -m service verify-fairness ${file}`));
  (async () => {
    try {
      const opened = await sha256Hex(bytesOfHex(salt), bytesOfHex(seed));
      if (opened === commitment) say("pass", `Pass: sha256(salt || seed) of the revealed seed is ${opened}, the commitment published at creation.`);
      else say("fail", `Fail: sha256(salt || seed) of the revealed seed is ${opened}, but the game committed to ${commitment}.`);
    } catch (error) {
      say("fail", `Fail: the revealed seed or salt cannot be read (${String(error)}).`);
    }
  })();
  return box;
}

/**
 * Each seat's series over the game (the layout says which: gold, or victory points and rupees),
 * as a line chart with a table for those who do not see it.
 * @param {{version: number, values: Record<string, number>[]}[]} points
 * each seat's values at some versions @param {number} current the version shown @param {(n: number) => string} nameOf
 */
function drawChart(points, current, nameOf) {
  const keys = [...new Set(points.flatMap((p) => p.values.flatMap((v) => Object.keys(v))))];
  if (!points.length || !keys.length) return h("p", null, points.length ? "No chart for this game." : "Loading the chart…");
  const seats = Math.max(...points.map((p) => p.values.length));
  const width = 600, height = 160, pad = 30;
  const v0 = points[0]?.version ?? 0, v1 = points[points.length - 1]?.version ?? 1;
  const x = (/** @type {number} */ v) => pad + ((v - v0) / Math.max(1, v1 - v0)) * (width - 2 * pad);
  const charts = keys.map((key) => {
    const max = Math.max(1, ...points.flatMap((p) => p.values.map((v) => v[key] ?? 0)));
    const y = (/** @type {number} */ n) => height - pad - (n / max) * (height - 2 * pad);
    const lines = [];
    for (let seat = 0; seat < seats; seat++) {
      const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.version).toFixed(1)},${y(p.values[seat]?.[key] ?? 0).toFixed(1)}`).join(" ");
      lines.push(s("path", { d, class: `line seat-${seat}`, "stroke-dasharray": ["", "6 3", "2 3", "8 2 2 2", "1 1", "10 4"][seat] ?? "" }));
    }
    const now = points.filter((p) => p.version <= current).pop() ?? points[0];
    const summary = `${words(key)} at version ${current}: ` + Array.from({ length: seats }, (_, seat) => `${nameOf(seat)} ${now?.values[seat]?.[key] ?? 0}`).join(", ");
    return h("figure", null,
      s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": summary, class: "chart" },
        s("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }),
        s("text", { x: 2, y: pad, class: "tick" }, String(max)), s("text", { x: 2, y: height - pad, class: "tick" }, "0"),
        ...lines,
        s("line", { x1: x(current), y1: pad / 2, x2: x(current), y2: height - pad, class: "now" })),
      h("figcaption", null, `${words(key)} over the game. `,
        ...Array.from({ length: seats }, (_, seat) => h("span", { class: `legend seat-${seat}` }, `${SEAT_SHAPES[seat]} ${nameOf(seat)} `)),
        h("span.visually-hidden", null, summary)));
  });
  return h("div", null, ...charts);
}
