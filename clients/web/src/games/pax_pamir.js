// @ts-check
// Pax Pamir's table: an SVG map of the six regions and nine borders (armies, roads, tribes,
// rulers), every court with its spies, the market (2 x 6) with its rupees, your hand, and the
// public facts of every seat. Drawn from the seat's view only; the map's geometry is the
// printed board's, and the map is also given in words.
import { h, s, fill, words } from "../dom.js";
import { SEAT_SHAPES, seatMark } from "./seats.js";

const REGIONS = /** @type {Record<string, [number, number]>} */ ({
  persia: [95, 265], transcaspia: [215, 85], herat: [230, 240], kabul: [385, 160], kandahar: [375, 320], punjab: [520, 255],
});
const BORDERS = ["herat_kabul", "herat_kandahar", "herat_persia", "herat_transcaspia", "kabul_kandahar",
                 "kabul_punjab", "kabul_transcaspia", "kandahar_punjab", "persia_transcaspia"];
/** Coalitions have a shape as well as a colour. */
export const COALITIONS = /** @type {Record<string, {shape: string, name: string}>} */ ({
  afghan: { shape: "▲", name: "Afghan" }, british: { shape: "■", name: "British" }, russian: { shape: "●", name: "Russian" },
});
/** Suits have a mark as well as a colour. */
const SUIT_MARKS = /** @type {Record<string, string>} */ ({ economic: "¤", military: "⚔", political: "♛", intelligence: "◉" });
let zoom = 1;

/** @param {string} coalition */
function coalitionMark(coalition) {
  const known = COALITIONS[coalition];
  return h("span", { class: `mark coalition-${coalition}` }, h("span", { "aria-hidden": "true" }, known?.shape ?? "?"), ` ${known?.name ?? coalition}`);
}

/** @param {Record<string, number>} counts @param {string} what */
function coalitionCounts(counts, what) {
  const found = Object.entries(counts ?? {}).filter(([, n]) => n > 0);
  return found.length ? found.map(([c, n]) => `${n} ${COALITIONS[c]?.name ?? c} ${what}${n === 1 ? "" : "s"}`).join(", ") : `no ${what}s`;
}

/** @param {Record<string, number>} bySeat @param {(n: number) => string} nameOf */
function seatCounts(bySeat, nameOf) {
  const found = Object.entries(bySeat ?? {}).filter(([, n]) => n > 0);
  return found.length ? found.map(([seat, n]) => `${nameOf(Number(seat))} ${n}`).join(", ") : "none";
}

/** @param {string} region */
const regionName = (region) => words(region);
/** @param {string} border */
const borderName = (border) => border.split("_").map(words).join("–");

/** @param {any} view @param {import("./index.js").DrawContext} ctx */
function regionText(view, region, ctx) {
  const spot = view.map?.[region] ?? {};
  const ruler = spot.ruler === null || spot.ruler === undefined ? "no ruler" : `ruled by ${ctx.nameOf(spot.ruler)}`;
  return `${regionName(region)}: ${ruler}; ${coalitionCounts(spot.armies, "army").replace(/armys/g, "armies")}; tribes: ${seatCounts(spot.tribes, ctx.nameOf)}`;
}

/** @param {any} view @param {import("./index.js").DrawContext} ctx */
function mapSvg(view, ctx) {
  const borders = BORDERS.map((border) => {
    const [a, b] = border.split("_");
    const [x1, y1] = REGIONS[a ?? ""] ?? [0, 0], [x2, y2] = REGIONS[b ?? ""] ?? [0, 0];
    const roads = view.roads?.[border] ?? {};
    const label = `${borderName(border)} border: ${coalitionCounts(roads, "road")}`;
    const marks = Object.entries(roads).filter(([, n]) => n > 0).map(([c, n]) => `${COALITIONS[c]?.shape ?? "?"}${n}`).join(" ");
    return s("g", { class: "border", "data-target": border, "aria-label": label },
      s("title", null, label),
      s("line", { x1, y1, x2, y2 }),
      s("line", { class: "hit", x1, y1, x2, y2 }),
      marks ? s("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4, class: "roads" }, marks) : null);
  });
  const regions = Object.entries(REGIONS).map(([region, [x, y]]) => {
    const spot = view.map?.[region] ?? {};
    const armies = Object.entries(spot.armies ?? {}).filter(([, n]) => n > 0).map(([c, n]) => `${COALITIONS[c]?.shape ?? "?"}${n}`).join(" ");
    const tribes = Object.entries(spot.tribes ?? {}).filter(([, n]) => n > 0).map(([seat, n]) => `${SEAT_SHAPES[Number(seat)] ?? "?"}${n}`).join(" ");
    const label = regionText(view, region, ctx);
    return s("g", { class: `region${spot.ruler !== null && spot.ruler !== undefined ? " ruled" : ""}`, "data-target": region, "aria-label": label },
      s("title", null, label),
      s("rect", { x: x - 58, y: y - 36, width: 116, height: 72, rx: 14 }),
      s("text", { x, y: y - 16, class: "name" }, regionName(region)),
      s("text", { x, y: y + 2, class: "pieces" }, armies || " "),
      s("text", { x, y: y + 20, class: "pieces" }, tribes || " "),
      spot.ruler !== null && spot.ruler !== undefined ? s("text", { x, y: y + 33, class: "ruler" }, `rules: ${SEAT_SHAPES[spot.ruler] ?? ""}`) : null);
  });
  return s("svg", { viewBox: "0 0 620 380", class: "map", role: "group", "aria-labelledby": "pax-map-title",
                    width: `${Math.round(zoom * 100)}%` },
    s("title", { id: "pax-map-title" }, "The map: six regions and nine borders"), ...borders, ...regions);
}

const STARS = ["", "★", "★★", "★★★"];

/** A card's printed face, as the view gives it: "Mohan Lal (card 1)". @param {unknown} card @param {any} view */
function cardName(card, view) {
  const face = view?.faces?.[String(card)];
  return face ? `${face.name} (card ${card})` : `Card ${card}`;
}

/** Suit, region, stars, patriot and prize, in words. @param {any} face */
function faceText(face) {
  if (!face) return "";
  if (face.kind === "event") return `event: ${face.purchase} if bought, ${face.discard} if discarded`;
  if (face.kind === "dominance_check") return "Dominance Check";
  return [words(face.suit), regionName(face.region), `${face.rank} star${face.rank === 1 ? "" : "s"}`,
          face.patriot ? `${COALITIONS[face.patriot]?.name} patriot` : null,
          face.prize ? `${COALITIONS[face.prize]?.name} prize` : null].filter(Boolean).join(", ");
}

/** A card as drawn: its name and printed face, where it lies, its rupees and spies. Its text is its
 * accessible name (marks and stars are decoration). @param {unknown} card @param {any} view
 * @param {string} [where] @param {string | null} [extra] */
function cardEl(card, view, where = "", extra = null) {
  const spies = Object.entries(view.spies?.[String(card)] ?? {});
  const face = view.faces?.[String(card)];
  const details = faceText(face);
  return h("span", { class: `card pax${face?.suit ? ` suit-${face.suit}` : ""}`, "data-target": String(card) },
    h("strong", null, cardName(card, view)),
    details ? h("small", null, h("span", { "aria-hidden": "true" }, face?.suit ? `${SUIT_MARKS[face.suit] ?? ""} ` : ""), details,
                h("span", { "aria-hidden": "true" }, face?.rank ? ` ${STARS[face.rank] ?? ""}` : "")) : null,
    where ? h("span.visually-hidden", null, where) : null,
    extra ? h("small", null, ` ${extra}`) : null,
    spies.length ? h("small.spies", null, "spies: ", ...spies.map(([seat, n]) =>
      h("span", null, h("span", { "aria-hidden": "true" }, SEAT_SHAPES[Number(seat)] ?? "?"), ` seat ${seat}: ${n} `))) : null);
}

/** @type {import("./index.js").Layout} */
export const paxPamir = {
  title: "Pax Pamir",
  render(view, ctx) {
    const mapBox = h("div.mapbox", { tabindex: 0, role: "region", "aria-label": "Map (scrolls when zoomed)" });
    const redraw = () => fill(mapBox, mapSvg(view, ctx));
    redraw();
    const zoomBy = (/** @type {number} */ f) => { zoom = Math.min(3, Math.max(1, f === 0 ? 1 : zoom * f)); redraw(); };
    const me = (view.players ?? []).find((/** @type {any} */ p) => p.seat === view.viewer);
    const effects = Object.entries(view.effects ?? {});
    return h("div.pax", null,
      h("section", { "aria-labelledby": "pax-facts" }, h("h2", { id: "pax-facts" }, "The table"),
        h("dl.facts.wide", null, ...[
          ["Favored suit", words(view.favored_suit ?? "")], ["Dominance Checks left", view.dominance_checks_left],
          ["Checks resolved", view.checks_resolved], ["Deck", `${view.deck_count} cards`], ["Discard pile", `${view.discard?.length ?? 0} cards`],
          ["Events in force", effects.length ? effects.map(([k, v]) => `${words(k)}${v === true ? "" : ` (${JSON.stringify(v)})`}`).join(", ") : "none"],
          ["Actions left", view.actions_left],
        ].flatMap(([label, value]) => [h("dt", null, String(label)), h("dd", null, String(value))]))),
      h("section", { "aria-labelledby": "pax-map" }, h("h2", { id: "pax-map" }, "Map"),
        h("div.zoom", { role: "group", "aria-label": "Map zoom" },
          h("button", { type: "button", onclick: () => zoomBy(1.25) }, "Zoom in"),
          h("button", { type: "button", onclick: () => zoomBy(0.8) }, "Zoom out"),
          h("button", { type: "button", onclick: () => zoomBy(0) }, "Fit")),
        mapBox,
        h("details.words", null, h("summary", null, "The map in words"),
          h("ul", null, ...Object.keys(REGIONS).map((r) => h("li", null, regionText(view, r, ctx))),
            ...BORDERS.map((b) => h("li", null, `${borderName(b)} border: ${coalitionCounts(view.roads?.[b] ?? {}, "road")}`))))),
      h("section", { "aria-labelledby": "pax-market" }, h("h2", { id: "pax-market" }, "Market"),
        h("div.scroll", { tabindex: 0, role: "region", "aria-labelledby": "pax-market" }, h("table.market", null,
          h("thead", null, h("tr", null, h("th", { scope: "col" }, "Row"), ...[0, 1, 2, 3, 4, 5].map((c) => h("th", { scope: "col" }, `Cost ${c}`)))),
          h("tbody", null, ...(view.market ?? []).map((/** @type {any[]} */ row, /** @type {number} */ r) => h("tr", null,
            h("th", { scope: "row" }, r === 0 ? "Top" : "Bottom"),
            ...row.map((slot, c) => h("td", null, slot?.card === null || slot?.card === undefined ? "empty"
              : cardEl(slot.card, view, `, market ${r === 0 ? "top" : "bottom"} row, cost ${c}`,
                       slot.rupees ? `${slot.rupees} rupee${slot.rupees === 1 ? "" : "s"} on it` : null))))))))),
      me && Array.isArray(me.hand) ? h("section", { "aria-labelledby": "pax-hand" }, h("h2", { id: "pax-hand" }, "Your hand"),
        me.hand.length ? h("div.cards.hand", null, ...me.hand.map((/** @type {unknown} */ c) => cardEl(c, view, ", in your hand")))
                       : h("p", null, "empty")) : null,
      h("section", { "aria-labelledby": "pax-courts" }, h("h2", { id: "pax-courts" }, "Courts"),
        ...(view.players ?? []).map((/** @type {any} */ p) => h("div.court", null,
          h("h3", null, seatMark(p.seat), ` ${ctx.nameOf(p.seat)}'s court`),
          p.court?.length ? h("div.cards", null, ...p.court.map((/** @type {unknown} */ c) => cardEl(c, view, `, in ${ctx.nameOf(p.seat)}'s court`)))
                          : h("p", null, "empty")))),
      view.outcome ? h("section", null, h("h2", null, "Result"), h("pre.raw", { tabindex: 0 }, JSON.stringify(view.outcome.details ?? view.outcome, null, 1))) : null);
  },
  seatFacts(view, seat) {
    const p = (view.players ?? []).find((/** @type {any} */ x) => x.seat === seat);
    if (!p) return [];
    return [["Loyalty", p.loyalty ? coalitionMark(p.loyalty) : "not chosen"], ["Victory points", String(p.vp)],
            ["Rupees", String(p.rupees)], ["Influence", String(p.influence)], ["Cylinders in supply", String(p.cylinders_in_supply)],
            ["Gifts", p.gifts?.length ? p.gifts.join(", ") : "none"], ["Prizes", String(p.prizes?.length ?? 0)],
            ["Hand", `${p.hand_count} cards`], ["Court", `${p.court?.length ?? 0} cards`],
            ...(p.stars ? [/** @type {[string, string]} */ (["Stars", Object.entries(p.stars).map(([k, v]) => `${SUIT_MARKS[k] ?? ""} ${words(k)} ${v}`).join(", ")])] : []),
            ...(p.hand_limit !== undefined ? [/** @type {[string, string]} */ (["Limits", `hand ${p.hand_limit}, court ${p.court_limit}`])] : [])];
  },
  label(value, argName, view) {
    const text = String(value);
    if (argName === "card") return cardName(value, view);
    if (argName === "value") return `Gift space ${text}`;
    if (REGIONS[text]) return regionName(text);
    if (BORDERS.includes(text)) return `${borderName(text)} border`;
    if (COALITIONS[text]) return `${COALITIONS[text]?.shape} ${COALITIONS[text]?.name}`;
    if (text.includes(":")) return text.split(":").map((part) => (BORDERS.includes(part) ? borderName(part) : REGIONS[part] ? regionName(part) : /^[0-9]+$/.test(part) && argName === "piece" ? part : words(part))).join(" ");
    return words(text);
  },
  describe(event, nameOf) {
    const d = /** @type {any} */ (event.data);
    switch (event.type) {
      case "LoyaltyChosen": return `${nameOf(d.seat)} is loyal to the ${COALITIONS[d.coalition]?.name ?? d.coalition} coalition`;
      case "LoyaltyChanged": return `${nameOf(d.seat)} changed loyalty to ${COALITIONS[d.coalition]?.name ?? d.coalition}`;
      case "TurnStarted": return `${nameOf(d.seat)}'s turn (${d.actions} actions)`;
      case "CardDealt": return `Card ${d.card} dealt to the market (row ${d.row + 1}, column ${d.column + 1})`;
      case "CardMoved": return `Card ${d.card}${d.card === undefined ? " (hidden)" : ""}: ${place(d.src, nameOf)} → ${place(d.dst, nameOf)}`;
      case "RupeesMoved": return `${d.amount} rupee${d.amount === 1 ? "" : "s"}: ${place(d.src, nameOf)} → ${place(d.dst, nameOf)}${d.reason ? ` (${words(d.reason).toLowerCase()})` : ""}`;
      case "PieceMoved": return `${words(d.kind ?? "piece")}${d.owner !== undefined ? ` (${COALITIONS[d.owner]?.name ?? nameOf(Number(d.owner))})` : ""}: ${place(d.src, nameOf)} → ${place(d.dst, nameOf)}`;
      default: return undefined;
    }
  },
  quiet: new Set(["StepEntered", "StepLeft", "StepUpdated", "MarketSlotMarked", "SetupStarted"]),
  handsOver: new Set(["EndTurn"]),
  series: (view) => (view.players ?? []).map((/** @type {any} */ p) => ({ "victory points": p.vp, rupees: p.rupees })),
};

/** "hand:0" -> "Ann's hand", "market:1:4" -> "market", "seat:0" -> "Ann". @param {unknown} where @param {(n: number) => string} nameOf */
function place(where, nameOf) {
  const [kind = "", first, ...rest] = String(where ?? "?").split(":");
  if (kind === "seat" && first !== undefined) return nameOf(Number(first));
  if ((kind === "hand" || kind === "court") && first !== undefined) return `${nameOf(Number(first))}'s ${kind}`;
  if (kind === "market") return `market (row ${Number(first) + 1}, column ${Number(rest[0]) + 1})`;
  return [kind, first, ...rest].filter((x) => x !== undefined).map((x) => (REGIONS[String(x)] ? regionName(String(x)) : words(String(x)))).join(" ");
}
