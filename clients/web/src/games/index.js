// @ts-check
// Each game's layout: how its view is drawn and named. A layout draws what the seat's view
// holds and labels values; it decides nothing (the server's legal commands do).
import { h, words } from "../dom.js";
import { dynasties } from "./dynasties.js";
import { paxPamir } from "./pax_pamir.js";

/**
 * @typedef {{seat: number | null, nameOf: (n: number | null | undefined) => string, targets: Set<string>}} DrawContext
 * A choice the server cannot list (`allows: "free"`, such as a seal's hash) is the layout's
 * to build (`free`): it computes the value the choice describes, never a rule.
 * @typedef {{
 *   title: string,
 *   render: (view: any, ctx: DrawContext) => Element,
 *   seatFacts: (view: any, seat: number) => [string, string | Node][],
 *   label: (value: unknown, argName: string, view: any, type?: string) => string,
 *   describe: (event: import("../api.js").GameEvent, nameOf: (n: number | null | undefined) => string) => string | HTMLElement | null | undefined,
 *   quiet: Set<string>,
 *   handsOver: Set<string>,
 *   series: (view: any) => Record<string, number>[],
 *   prepare?: () => Promise<void>,
 *   seatName?: (view: any, seat: number) => string | undefined,
 *   free?: (type: string, choice: import("../api.js").PromptChoice, view: any, submit: (command: import("../api.js").GameCommand) => void,
 *           fail: (reason: string) => void) => Element | null,
 * }} Layout
 */

import { SEAT_NAMES } from "./seats.js";
export { SEAT_SHAPES, SEAT_NAMES, seatMark } from "./seats.js";

/** @type {Layout} */
const generic = {
  title: "Game",
  render: (view) => h("pre.raw", null, JSON.stringify(view, null, 1)),
  seatFacts: () => [],
  label: (value) => String(value),
  describe: () => undefined,
  quiet: new Set(),
  handsOver: new Set(),
  series: () => [],
};

/** @type {Record<string, Layout>} */
export const layouts = { generic, dynasties, pax_pamir: paxPamir };

const PLATFORM = {
  GameCreated: (/** @type {any} */ d) => `Game created for ${d.seats} seats`,
  SeatTaken: (/** @type {any} */ d, /** @type {any} */ name) => `${d.name} took seat ${d.seat} (${SEAT_NAMES[d.seat] ?? ""})`,
  GameStarted: () => "The game started",
  MovesUndone: (/** @type {any} */ d, /** @type {any} */ nameOf) => `${nameOf(d.seat)} took back versions ${d.first_version} to ${d.last_version}`,
};

/**
 * A log line for an event, as the seat may see it: the game's own wording, else a generic one
 * built from its public data. null: not worth a line (bookkeeping events).
 * @param {Layout} layout @param {import("../api.js").GameEvent} event @param {(n: number | null | undefined) => string} nameOf
 */
export function logLine(layout, event, nameOf) {
  if (layout.quiet.has(event.type)) return null;
  const actor = event.actor === null ? "" : nameOf(event.actor);
  const platform = /** @type {Record<string, Function>} */ (PLATFORM)[event.type];
  if (event.source === "platform" && platform) return platform(event.data, nameOf, actor);
  const own = layout.describe(event, nameOf);
  if (own !== undefined) return own;
  const facts = Object.entries(event.data ?? {})
    .filter(([, value]) => value !== null && typeof value !== "object")
    .map(([key, value]) => `${words(key).toLowerCase()} ${key === "seat" || key === "from" || key === "to" ? nameOf(Number(value)) : value}`);
  const secret = event.secret ? Object.entries(event.secret).map(([k, v]) => `${words(k).toLowerCase()} ${JSON.stringify(v)}`) : [];
  return `${words(event.type)}${facts.length ? `: ${facts.join(", ")}` : ""}${secret.length ? ` (you see: ${secret.join(", ")})` : ""}${event.redacted && !secret.length ? " (hidden)" : ""}`;
}

/** The plain words of a log line (a line with card names is an element). @param {string | HTMLElement} text */
export function said(text) {
  return typeof text === "string" ? text : text.dataset.said ?? text.textContent ?? "";
}
