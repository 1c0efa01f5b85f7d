// @ts-check
// Pax Pamir's table: an SVG map of the six regions and nine borders (armies, roads, tribes,
// rulers), every court with its spies, the market (2 x 6) with its rupees, your hand, and the
// public facts of every seat. Drawn from the seat's view only; the map's geometry is the
// printed board's, and the map is also given in words.
import { h, s, fill, words } from "../dom.js";
import { api } from "../api.js";
import { SEAT_SHAPES, seatMark } from "./seats.js";

/** The six regions as shapes on a 600 x 440 board, north up, in the printed board's positions:
 * neighbours share an edge, and only the nine borders of the game are shared. Each region also has
 * where its name goes and where its pieces start (left, top) and how wide they may spread. */
const REGIONS = /** @type {Record<string, {shape: [number, number][], name: [number, number], pieces: [number, number, number]}>} */ ({
  transcaspia: { shape: [[0, 0], [440, 0], [440, 110], [290, 130], [150, 130], [0, 140]], name: [215, 30], pieces: [30, 44, 370] },
  persia: { shape: [[0, 140], [150, 130], [170, 280], [140, 440], [0, 440]], name: [72, 172], pieces: [8, 186, 136] },
  herat: { shape: [[150, 130], [290, 130], [300, 270], [250, 440], [140, 440], [170, 280]], name: [228, 172], pieces: [170, 186, 122] },
  kabul: { shape: [[290, 130], [440, 110], [440, 0], [600, 0], [600, 90], [490, 150], [480, 260], [300, 270]], name: [392, 160], pieces: [304, 174, 172] },
  kandahar: { shape: [[300, 270], [480, 260], [450, 440], [250, 440]], name: [372, 302], pieces: [300, 316, 140] },
  punjab: { shape: [[600, 90], [600, 440], [450, 440], [480, 260], [490, 150]], name: [540, 196], pieces: [492, 212, 104] },
});
/** The nine borders: the edge the two regions share, and where its roads are drawn. */
const BORDER_LINES = /** @type {Record<string, {edge: [number, number][], roads: [number, number]}>} */ ({
  herat_kabul: { edge: [[290, 130], [300, 270]], roads: [295, 215] },
  herat_kandahar: { edge: [[300, 270], [250, 440]], roads: [275, 355] },
  herat_persia: { edge: [[150, 130], [170, 280], [140, 440]], roads: [152, 385] },
  herat_transcaspia: { edge: [[150, 130], [290, 130]], roads: [220, 130] },
  kabul_kandahar: { edge: [[300, 270], [480, 260]], roads: [392, 265] },
  kabul_punjab: { edge: [[600, 90], [490, 150], [480, 260]], roads: [545, 120] },
  kabul_transcaspia: { edge: [[290, 130], [440, 110], [440, 0]], roads: [440, 60] },
  kandahar_punjab: { edge: [[480, 260], [450, 440]], roads: [465, 350] },
  persia_transcaspia: { edge: [[0, 140], [150, 130]], roads: [75, 135] },
});
const BORDERS = Object.keys(BORDER_LINES);
/** Coalitions have a shape as well as a colour. */
export const COALITIONS = /** @type {Record<string, {shape: string, name: string}>} */ ({
  afghan: { shape: "▲", name: "Afghan" }, british: { shape: "■", name: "British" }, russian: { shape: "●", name: "Russian" },
});
/** Suits have a mark as well as a colour. */
const SUIT_MARKS = /** @type {Record<string, string>} */ ({ economic: "¤", military: "⚔", political: "♛", intelligence: "◉" });
let zoom = 1;

/** "1 rupee", "3 rupees" @param {number} n */
const rupees = (n) => `${n} rupee${n === 1 ? "" : "s"}`;

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

const PIECE = 32, GAP = 4, ROW = 36;


/** One map piece, or a stack of like pieces ("×3"), named by its kind and owner: an army is a
 * square and a road a bar, in the coalition's colour with its letter; a tribe is a circle and a
 * ruler's flag a pennant, in the seat's colour with its mark.
 * @param {"army" | "road" | "tribe" | "ruler"} kind @param {string | number} owner @param {number} n
 * @param {number} x @param {number} y @param {import("./index.js").DrawContext} ctx */
function piece(kind, owner, n, x, y, ctx) {
  const plural = { army: "armies", road: "roads", tribe: "tribes", ruler: "rulers" }[kind];
  const coalition = COALITIONS[String(owner)];
  const label = kind === "ruler" ? `Ruler's flag: ${ctx.nameOf(Number(owner))} rules here`
    : coalition ? `${n === 1 ? "" : `${n} `}${coalition.name} ${n === 1 ? kind : plural}`
    : n === 1 ? `${ctx.nameOf(Number(owner))}'s ${kind}` : `${n} ${plural} of ${ctx.nameOf(Number(owner))}`;
  const cls = coalition ? `coalition-${owner}` : `seat-${owner}`;
  const mark = coalition ? coalition.name.charAt(0) : SEAT_SHAPES[Number(owner)] ?? "?";
  const c = PIECE / 2;
  const body = {
    army: () => s("rect", { x, y, width: PIECE, height: PIECE, rx: 3, class: "body" }),
    road: () => s("rect", { x: x - 6, y: y + 6, width: PIECE + 12, height: PIECE - 12, rx: 6, class: "body" }),
    tribe: () => s("circle", { cx: x + c, cy: y + c, r: c - 1, class: "body" }),
    ruler: () => s("path", { d: `M${x} ${y}h${PIECE}l-8 ${c}l8 ${c}h-${PIECE}z`, class: "body" }),
  }[kind]();
  return s("g", { class: `piece ${kind} ${cls}`, role: "img", "aria-label": label },
    s("title", null, label), body,
    s("text", { x: x + c - (kind === "ruler" ? 4 : 0), y: y + c + 1, class: "mark", "aria-hidden": "true" }, mark),
    n > 1 ? s("text", { x: x + PIECE + 2, y: y + c + 1, class: "count", "aria-hidden": "true" }, `×${n}`) : null);
}

/** Lays pieces out in rows from (left, top) within a width: each returns the width it takes.
 * @param {[string, string | number, number][]} wanted kind, owner, count @param {number} left @param {number} top
 * @param {number} width @param {import("./index.js").DrawContext} ctx @param {boolean} [centred] */
function pieces(wanted, left, top, width, ctx, centred = false) {
  const drawn = [];
  // a road's bar is wider than its place by 6 on each side
  const size = (/** @type {string} */ kind, /** @type {number} */ n) => PIECE + (n > 1 ? 34 : 0) + GAP + (kind === "road" ? 12 : 0);
  let x = centred ? left - wanted.reduce((sum, [kind, , n]) => sum + size(kind, n), 0) / 2 + 6 : left, y = top;
  for (const [kind, owner, n] of wanted) {
    if (!centred && x + size(kind, n) - GAP > left + width && x > left) { x = left; y += ROW; }
    drawn.push(piece(/** @type {any} */ (kind), owner, n, x, y, ctx));
    x += size(kind, n);
  }
  return drawn;
}

/** @param {Record<string, number>} counts @returns {[string, number][]} */
const present = (counts) => Object.entries(counts ?? {}).filter(([, n]) => n > 0);

/** @param {any} view @param {import("./index.js").DrawContext} ctx */
function mapSvg(view, ctx) {
  const points = (/** @type {[number, number][]} */ p) => p.map(([x, y]) => `${x},${y}`).join(" ");
  const regions = Object.entries(REGIONS).map(([region, where]) => {
    const spot = view.map?.[region] ?? {};
    const ruled = spot.ruler !== null && spot.ruler !== undefined;
    const [left, top, width] = where.pieces;
    /** @type {[string, string | number, number][]} */
    const wanted = [...(ruled ? [/** @type {[string, string | number, number]} */ (["ruler", spot.ruler, 1])] : []),
      ...present(spot.armies).map(([c, n]) => /** @type {[string, string | number, number]} */ (["army", c, n])),
      ...present(spot.tribes).map(([seat, n]) => /** @type {[string, string | number, number]} */ (["tribe", seat, n]))];
    return s("g", { class: `region region-${region}${ruled ? " ruled" : ""}`, "data-target": region, "aria-label": regionText(view, region, ctx) },
      s("title", null, regionText(view, region, ctx)),
      s("polygon", { points: points(where.shape), class: "land" }),
      s("text", { x: where.name[0], y: where.name[1], class: "name", "aria-hidden": "true" }, regionName(region)),
      ...pieces(wanted, left, top, width, ctx));
  });
  const borders = Object.entries(BORDER_LINES).map(([border, where]) => {
    const roads = present(view.roads?.[border] ?? {});
    const label = `${borderName(border)} border: ${coalitionCounts(view.roads?.[border] ?? {}, "road")}`;
    // a border is chosen at its spot, where its roads are (the spot is the middle of what is drawn of it)
    return s("g", { class: "border", "data-target": border, "aria-label": label },
      s("title", null, label),
      s("circle", { cx: where.roads[0], cy: where.roads[1], r: 20, class: "spot" }),
      ...pieces(roads.map(([c, n]) => /** @type {[string, string | number, number]} */ (["road", c, n])),
                where.roads[0], where.roads[1] - PIECE / 2, 0, ctx, true));
  });
  const edges = s("g", { class: "edges", "aria-hidden": "true" },
    ...Object.values(BORDER_LINES).map((where) => s("polyline", { points: points(where.edge), class: "edge" })));
  return s("svg", { viewBox: "0 0 600 440", class: "map", role: "group", "aria-labelledby": "pax-map-title",
                    width: `${Math.round(zoom * 100)}%` },
    s("title", { id: "pax-map-title" }, "The map: six regions and nine borders"), ...regions, edges, ...borders);
}

/** What the map's shapes and colours mean, in words with the marks beside them.
 * @param {any} view @param {import("./index.js").DrawContext} ctx */
function mapLegend(view, ctx) {
  const icon = (/** @type {"army" | "road" | "tribe" | "ruler"} */ kind, /** @type {string | number} */ owner) => {
    const drawn = piece(kind, owner, 1, 6, 4, ctx);
    drawn.removeAttribute("role");
    drawn.removeAttribute("aria-label");
    drawn.querySelector("title")?.remove();
    return s("svg", { viewBox: "0 0 44 40", class: "legend-icon", "aria-hidden": "true" }, drawn);
  };
  const seats = (view.players ?? []).map((/** @type {any} */ p) => p.seat);
  return h("div.map-legend", { role: "group", "aria-label": "Map legend" },
    h("ul", null,
      h("li", null, icon("army", "russian"), "Army: a square in its coalition's colour, with its letter"),
      h("li", null, icon("road", "british"), "Road: a bar on a border, in its coalition's colour"),
      h("li", null, icon("tribe", seats[0] ?? 0), "Tribe: a circle in its player's colour, with the player's mark"),
      h("li", null, icon("ruler", seats[0] ?? 0), "Ruler: a pennant in the colour of the player who rules the region")),
    h("ul", null,
      ...Object.keys(COALITIONS).map((c) => h("li", null, icon("army", c), `${COALITIONS[c]?.name} coalition (${COALITIONS[c]?.name.charAt(0)})`)),
      ...seats.map((/** @type {number} */ seat) => h("li", null, icon("tribe", seat), ctx.nameOf(seat)))));
}

const STARS = ["", "★", "★★", "★★★"];

/** The card catalogue (GET /game-types/pax_pamir/cards): what every card says, fetched once per page
 * (the browser revalidates it with its ETag). @type {any} */
let catalogue = null;
/** @type {Promise<void> | null} */
let loading = null;

/** Fetch the catalogue if this page has not yet. */
export function loadCatalogue() {
  if (catalogue) return Promise.resolve();
  loading ??= api.cardCatalogue("pax_pamir").then((found) => { catalogue = found; })
    .catch(() => { loading = null; }); // drawn from the view's short faces meanwhile; tried again next time
  return loading;
}

/** The card's face: the catalogue's, else the view's short one. @param {unknown} card @param {any} view */
function faceOf(card, view) {
  return catalogue?.cards?.[String(card)] ?? view?.faces?.[String(card)];
}

/** A card's name: "Mohan Lal (card 1)". @param {unknown} card @param {any} view */
function cardName(card, view) {
  const face = faceOf(card, view);
  return face ? `${face.name} (card ${card})` : `Card ${card}`;
}

/** Suit, region, stars, patriot and prize, in words. @param {any} face */
function faceText(face) {
  if (!face) return "";
  if (face.kind === "event") return "Event";
  if (face.kind === "dominance_check") return "Dominance Check";
  return [words(face.suit), regionName(face.region), `${face.rank} star${face.rank === 1 ? "" : "s"}`,
          face.patriot ? `${COALITIONS[face.patriot]?.name} patriot` : null,
          face.prize ? `${COALITIONS[face.prize]?.name} prize` : null].filter(Boolean).join(", ");
}

/** "spy, spy, army" -> "Spy ×2, Army" (printed order kept). @param {string[]} icons */
function iconWords(icons) {
  /** @type {[string, number][]} */
  const runs = [];
  for (const icon of icons) {
    const last = runs[runs.length - 1];
    if (last && last[0] === icon) last[1] += 1; else runs.push([icon, 1]);
  }
  return runs.map(([icon, n]) => `${catalogue?.impact_icons?.[icon]?.name ?? words(icon)}${n > 1 ? ` ×${n}` : ""}`).join(", ");
}

/** What the card does: its actions, impact icons and special ability, or an event's two sides. @param {any} face */
function faceDoes(face) {
  if (!face) return [];
  if (face.kind === "court" && face.actions) {
    const actions = face.actions.length
      ? face.actions.map((/** @type {string} */ a) => h("span.act", { title: catalogue?.actions?.[a]?.text ?? "" }, words(a)))
      : [h("span", null, "none")];
    return [
      h("span.actions", null, h("span.label", null, "Actions: "), ...actions),
      h("span.icons", null, h("span.label", null, "When played: "), face.impact_icons?.length ? iconWords(face.impact_icons) : "nothing"),
      face.special_ability ? h("span.ability", null, h("strong", null, `${face.special_ability.name}: `), face.special_ability.text) : null,
    ];
  }
  if (face.kind === "event" && face.if_purchased) {
    return [
      h("span.ability", null, h("strong", null, `If bought — ${face.if_purchased.name}: `),
        face.purchasable === false ? "cannot be bought. " : "", face.if_purchased.text),
      h("span.ability", null, h("strong", null, `If discarded — ${face.if_discarded.name}: `), face.if_discarded.text),
    ];
  }
  if (face.kind === "dominance_check" && face.text) return [h("span.ability", null, face.text)];
  return [];
}

/** A card as drawn: its name and printed face (actions, impact icons, ability, or an event's sides),
 * where it lies, its rupees and spies. Its text is its accessible name (marks and stars are
 * decoration). @param {unknown} card @param {any} view @param {string} [where] @param {string | null} [extra] */
function cardEl(card, view, where = "", extra = null, /** @type {(n: number | null | undefined) => string} */ nameOf = (n) => `seat ${n}`) {
  const spies = Object.entries(view.spies?.[String(card)] ?? {});
  const face = faceOf(card, view);
  const details = faceText(face);
  return h("span", { class: `card pax${face?.suit ? ` suit-${face.suit}` : ""} kind-${face?.kind ?? "unknown"}`, "data-target": String(card),
                     "data-card": String(card) },
    h("strong", null, cardName(card, view)),
    details ? h("small", null, h("span", { "aria-hidden": "true" }, face?.suit ? `${SUIT_MARKS[face.suit] ?? ""} ` : ""), details,
                h("span", { "aria-hidden": "true" }, face?.rank ? ` ${STARS[face.rank] ?? ""}` : "")) : null,
    ...faceDoes(face),
    where ? h("span.visually-hidden", null, where) : null,
    extra ? h("small.extra", null, ` ${extra}`) : null,
    spies.length ? h("small.spies", null, "spies: ", ...spies.map(([seat, n]) =>
      h("span", null, h("span", { "aria-hidden": "true" }, SEAT_SHAPES[Number(seat)] ?? "?"), ` ${nameOf(Number(seat))}: ${n} `))) : null);
}

/** A card named in the log: its name, and its face on hover or focus. @param {unknown} card @param {any} view */
export function cardRef(card, view = null) {
  const face = faceOf(card, view);
  if (!face) return h("span", null, `card ${card}`);
  return h("span.cardref", { tabindex: 0, "data-card": String(card) }, face.name,
    h("span.tip", { role: "tooltip" }, h("strong", null, cardName(card, view)), " ", faceText(face), ...faceDoes(face)));
}

/** @type {import("./index.js").Layout} */
export const paxPamir = {
  title: "Pax Pamir",
  render(view, ctx) {
    const mapBox = h("div.mapbox", { tabindex: 0, role: "region", "aria-label": "Map (scrolls when zoomed)" });
    // a zoom draws the map again: the table wires the legal targets on the new drawing too
    const redraw = () => {
      fill(mapBox, mapSvg(view, ctx));
      mapBox.dispatchEvent(new CustomEvent("layout-redrawn", { bubbles: true }));
    };
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
      vpTrack(view, ctx),
      h("section", { "aria-labelledby": "pax-map" }, h("h2", { id: "pax-map" }, "Map"),
        h("div.zoom", { role: "group", "aria-label": "Map zoom" },
          h("button", { type: "button", onclick: () => zoomBy(1.25) }, "Zoom in"),
          h("button", { type: "button", onclick: () => zoomBy(0.8) }, "Zoom out"),
          h("button", { type: "button", onclick: () => zoomBy(0) }, "Fit")),
        mapBox, mapLegend(view, ctx),
        h("details.words", null, h("summary", null, "The map in words"),
          h("ul", null, ...Object.keys(REGIONS).map((r) => h("li", null, regionText(view, r, ctx))),
            ...BORDERS.map((b) => h("li", null, `${borderName(b)} border: ${coalitionCounts(view.roads?.[b] ?? {}, "road")}`))))),
      h("section", { "aria-labelledby": "pax-market" }, h("h2", { id: "pax-market" }, "Market"),
        h("div.scroll", { tabindex: 0, role: "region", "aria-labelledby": "pax-market" }, h("table.market", null,
          h("thead", null, h("tr", null, h("th", { scope: "col" }, "Row"), ...[0, 1, 2, 3, 4, 5].map((c) => h("th", { scope: "col" }, `Column ${c + 1}`)))),
          h("tbody", null, ...(view.market ?? []).map((/** @type {any[]} */ row, /** @type {number} */ r) => h("tr", null,
            h("th", { scope: "row" }, r === 0 ? "Top" : "Bottom"),
            ...row.map((slot, c) => h("td", null, slot?.card === null || slot?.card === undefined ? "empty"
              : cardEl(slot.card, view, `, market ${r === 0 ? "top" : "bottom"} row, column ${c + 1}`,
                       [`costs ${rupees(slot.cost ?? c)}`, slot.rupees ? `${rupees(slot.rupees)} on it` : null].filter(Boolean).join("; "),
                       ctx.nameOf))))))))),
      me && Array.isArray(me.hand) ? h("section", { "aria-labelledby": "pax-hand" }, h("h2", { id: "pax-hand" }, "Your hand"),
        me.hand.length ? h("div.cards.hand", null, ...me.hand.map((/** @type {unknown} */ c) => cardEl(c, view, ", in your hand", null, ctx.nameOf)))
                       : h("p", null, "empty")) : null,
      h("section", { "aria-labelledby": "pax-courts" }, h("h2", { id: "pax-courts" }, "Courts"),
        ...(view.players ?? []).map((/** @type {any} */ p) => h("div.court", null,
          h("h3", null, seatMark(p.seat), ` ${ctx.nameOf(p.seat)}'s court`),
          p.court?.length ? h("div.cards", null, ...p.court.map((/** @type {unknown} */ c) => cardEl(c, view, `, in ${ctx.nameOf(p.seat)}'s court`, null, ctx.nameOf)))
                          : h("p", null, "empty"),
          // another seat's hand, where the view shows it (the game is over, or hands are open)
          p.seat !== view.viewer && Array.isArray(p.hand) ? h("div.hand-of", null, h("h4", null, `${ctx.nameOf(p.seat)}'s hand`),
            p.hand.length ? h("div.cards.hand", null, ...p.hand.map((/** @type {unknown} */ c) => cardEl(c, view, `, in ${ctx.nameOf(p.seat)}'s hand`, null, ctx.nameOf)))
                          : h("p", null, "empty")) : null))),
      view.outcome ? resultTable(view, ctx) : null);
  },
  seatFacts(view, seat) {
    const p = (view.players ?? []).find((/** @type {any} */ x) => x.seat === seat);
    if (!p) return [];
    const wakhan = view.wakhan?.seat === seat ? /** @type {[string, string][]} */ ([
      ["AI card", view.wakhan.ai_card ? `card ${view.wakhan.ai_card} of her deck (${view.wakhan.ai_deck_count} left)` : "none drawn yet"],
      ...(view.wakhan.next_back ? [/** @type {[string, string]} */ (["Next card's back", JSON.stringify(view.wakhan.next_back)
        .replace(/[{}"]/g, "").replace(/,/g, ", ").replace(/:/g, ": ")])] : []),
    ]) : [];
    return [...wakhan, ["Loyalty", p.loyalty ? coalitionMark(p.loyalty) : "not chosen"], ["Victory points", String(p.vp)],
            ["Rupees", String(p.rupees)], ["Influence", String(p.influence)], ["Cylinders in supply", String(p.cylinders_in_supply)],
            ["Gifts", p.gifts?.length ? p.gifts.join(", ") : "none"], ["Prizes", String(p.prizes?.length ?? 0)],
            ["Hand", `${p.hand_count} cards`], ["Court", `${p.court?.length ?? 0} cards`],
            ...(p.stars ? [/** @type {[string, string]} */ (["Stars", Object.entries(p.stars).map(([k, v]) => `${SUIT_MARKS[k] ?? ""} ${words(k)} ${v}`).join(", ")])] : []),
            ...(p.hand_limit !== undefined ? [/** @type {[string, string]} */ (["Limits", `hand ${p.hand_limit}, court ${p.court_limit}`])] : [])];
  },
  label(value, argName, view, type) {
    const text = String(value);
    if (argName === "card" && type === "Purchase") {
      const slot = (view?.market ?? []).flat().find((/** @type {any} */ x) => x?.card === value);
      return slot?.cost === undefined ? cardName(value, view) : `${cardName(value, view)} — costs ${rupees(slot.cost)}`;
    }
    if (argName === "card") return cardName(value, view);
    if (argName === "value") return `Gift space ${text}`;
    if (REGIONS[text]) return regionName(text);
    if (BORDERS.includes(text)) return `${borderName(text)} border`;
    if (COALITIONS[text]) return `${COALITIONS[text]?.shape} ${COALITIONS[text]?.name}`;
    if (text.includes(":")) return text.split(":").map((part) => (BORDERS.includes(part) ? borderName(part) : REGIONS[part] ? regionName(part) : /^[0-9]+$/.test(part) && argName === "piece" ? part : words(part))).join(" ");
    return words(text);
  },
  describe(event, nameOf) {
    const d = /** @type {any} */ ({ ...(event.secret ?? {}), ...event.data }); // a card of one's own hand is a secret of one's own
    const who = (/** @type {unknown} */ n) => nameOf(Number(n));
    const coalition = (/** @type {string} */ c) => COALITIONS[c]?.name ?? words(String(c));
    const card = (/** @type {unknown} */ n) => (n === undefined ? "a hidden card" : cardRef(n));
    switch (event.type) {
      case "LoyaltyChosen": return `${who(d.seat)} is loyal to the ${coalition(d.coalition)} coalition`;
      case "LoyaltyChanged": return `${who(d.seat)} changed loyalty to ${coalition(d.coalition)}`;
      case "LoyaltyOrderChosen": return `Loyalty is chosen in this order: ${(d.order ?? []).map(who).join(", ")}`;
      case "TurnStarted": return `${who(d.seat)}'s turn begins (${d.actions} actions)`;
      case "TurnEnded": return d.seat === undefined ? "The turn ends" : `${who(d.seat)} ends the turn`;
      case "DeckBuilt": return `The deck is built (${d.deck_count} cards)`;
      case "CardDealt": return line("New in the market: ", card(d.card), ` (${d.row === 0 ? "top" : "bottom"} row, column ${d.column + 1})`);
      case "CardMoved": {
        const src = String(d.src), dst = String(d.dst);
        const hidden = d.card === undefined;
        if (src.startsWith("market:") && dst.startsWith("market:")) return null; // a market slide: the refill says enough
        if (src.startsWith("market:") && dst.startsWith("hand:")) return line(`${who(dst.split(":")[1])} buys `, card(d.card));
        if (src.startsWith("hand:") && dst.startsWith("court:")) return line(`${who(dst.split(":")[1])} plays `, card(d.card), ` to the ${d.side ?? ""} of their court`.replace("the  of", "their").replace("their their", "their"));
        if (src.startsWith("market:") && dst === "discard") return line(card(d.card), " leaves the market");
        if (dst === "discard") return line(card(d.card), ` is discarded from ${place(src, nameOf)}`);
        if (dst.startsWith("prizes:")) return line(`${who(dst.split(":")[1])} takes `, card(d.card), " as a prize");
        return line(hidden ? "A hidden card" : card(d.card), ` goes from ${place(src, nameOf)} to ${place(dst, nameOf)}`);
      }
      case "CardUsed": return line(`${who(d.seat)} uses `, card(d.card), ` to ${words(d.action).toLowerCase()}`);
      case "ActionSpent": return null; // the action itself is said by what it does
      case "RupeesMoved": {
        const amount = rupees(d.amount), why = d.reason ? ` (${words(d.reason).toLowerCase()})` : "";
        if (String(d.src).startsWith("seat:") && String(d.dst).startsWith("market:")) return `${place(d.src, nameOf)} pays ${amount} onto the market${why}`;
        if (String(d.src).startsWith("seat:")) return `${place(d.src, nameOf)} pays ${amount} to ${place(d.dst, nameOf)}${why}`;
        if (String(d.dst).startsWith("seat:")) return `${place(d.dst, nameOf)} takes ${amount} from ${place(d.src, nameOf)}${why}`;
        return `${amount} go from ${place(d.src, nameOf)} to ${place(d.dst, nameOf)}${why}`;
      }
      case "PieceMoved": {
        const owner = typeof d.owner === "number" || /^[0-9]+$/.test(String(d.owner)) ? `${who(d.owner)}'s` : coalition(d.owner);
        const piece = `${owner} ${words(d.kind ?? "piece").toLowerCase()}`;
        if (d.src === "supply") return line(`${piece} placed ${onPlace(d.dst, nameOf)}`);
        if (d.dst === "supply") return line(`${piece} removed ${fromPlace(d.src, nameOf)}`);
        return line(`${piece} moves ${fromPlace(d.src, nameOf)} ${onPlace(d.dst, nameOf).replace(/^(in|on)/, "to")}`);
      }
      case "FavoredSuitChanged": return `${words(d.suit)} is now the favored suit`;
      case "EffectStarted": return `${words(d.effect)} is in force${d.seat === null || d.seat === undefined ? "" : ` for ${who(d.seat)}`}`;
      case "EffectsCleared": return "The events in force end";
      case "VictoryPointsScored": return `${who(d.seat)} scores ${d.points} victory point${d.points === 1 ? "" : "s"}`;
      case "DominanceCheckResolved": return d.dominant ? `Dominance Check: the ${coalition(d.dominant)} coalition is dominant` : "Dominance Check: no coalition is dominant; influence scores";
      case "GameEnded": return `The game ends: ${(d.winners ?? []).map(who).join(" and ")} win${(d.winners ?? []).length === 1 ? "s" : ""} (${(d.vp ?? []).map((/** @type {number} */ vp, /** @type {number} */ i) => `${who(i)} ${vp}`).join(", ")})`;
      case "BribeDeclined": return `${who(d.recipient)} declines ${who(d.payer)}'s bribe of ${rupees(d.offer)}`;
      case "BribeAbandoned": return line(`${who(d.payer)} gives up `, d.purpose === "play" ? "playing " : "using ", card(d.card), ` rather than pay ${who(d.recipient)}`);
      case "WakhanCardDrawn": return `Wakhan draws AI card ${d.card}`;
      case "WakhanLoyaltySet": return `Wakhan turns ${coalition(d.coalition)}`;
      case "WakhanDecided": return `Wakhan decides: ${words(d.command?.type ?? d.step ?? "")}${d.rule ? ` (${String(d.rule).replace(/_/g, " ")})` : ""}`;
      case "WakhanDeckShuffled": return "Wakhan's AI deck is shuffled";
      default: return undefined;
    }
  },
  prepare: loadCatalogue,
  seatName: (view, seat) => (view?.wakhan?.seat === seat ? "Wakhan" : undefined),
  quiet: new Set(["StepsChanged", "StepEntered", "StepLeft", "StepUpdated", "MarketSlotMarked", "SetupStarted"]),
  handsOver: new Set(["EndTurn"]),
  series: (view) => (view.players ?? []).map((/** @type {any} */ p) => ({ "victory points": p.vp, rupees: p.rupees })),
};

/** The victory point track: a space per point, each player's mark on the space of their score
 * (said in words for a screen reader). @param {any} view @param {import("./index.js").DrawContext} ctx */
function vpTrack(view, ctx) {
  const players = view.players ?? [];
  const top = Math.max(23, ...players.map((/** @type {any} */ p) => p.vp ?? 0));
  const said = players.map((/** @type {any} */ p) => `${ctx.nameOf(p.seat)} ${p.vp}`).join(", ");
  return h("section", { "aria-labelledby": "pax-vp" }, h("h2", { id: "pax-vp" }, "Victory points"),
    h("p.visually-hidden", null, said),
    h("ol.vp-track", { "aria-hidden": "true" }, ...Array.from({ length: top + 1 }, (_, n) => h("li", null,
      h("span.n", null, String(n)),
      ...players.filter((/** @type {any} */ p) => p.vp === n).map((/** @type {any} */ p) =>
        h("span", { class: `mark seat-${p.seat}`, title: `${ctx.nameOf(p.seat)}: ${n}` }, SEAT_SHAPES[p.seat] ?? "?"))))));
}

/** The result as a table: each player's victory points, rupees and military stars (the tie-breaks), winners first.
 * @param {any} view @param {import("./index.js").DrawContext} ctx */
function resultTable(view, ctx) {
  const outcome = view.outcome ?? {};
  const winners = new Set(outcome.winners ?? []);
  const seats = (view.players ?? []).map((/** @type {any} */ p) => p.seat)
    .sort((/** @type {number} */ a, /** @type {number} */ b) => Number(winners.has(b)) - Number(winners.has(a)) || (outcome.vp?.[b] ?? 0) - (outcome.vp?.[a] ?? 0));
  return h("section", { "aria-labelledby": "pax-result" }, h("h2", { id: "pax-result" }, "Result"),
    h("p", null, `${[...winners].map((n) => ctx.nameOf(n)).join(" and ")} win${winners.size === 1 ? "s" : ""}`,
      outcome.reason ? ` (${words(outcome.reason).toLowerCase()})` : "", "."),
    h("table.list", null, h("thead", null, h("tr", null, ...["Player", "Victory points", "Rupees", "Military stars", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, ...seats.map((/** @type {number} */ seat) => {
        const p = (view.players ?? []).find((/** @type {any} */ x) => x.seat === seat);
        return h("tr", null, h("th", { scope: "row" }, seatMark(seat), ` ${ctx.nameOf(seat)}`), h("td", null, String(outcome.vp?.[seat] ?? p?.vp ?? "")),
          h("td", null, String(p?.rupees ?? "")), h("td", null, String(p?.stars?.military ?? "")), h("td", null, winners.has(seat) ? "winner" : ""));
      }))));
}

/** A log line with card names in it: an element that also keeps its plain words (for announcements).
 * @param {...(string | Node)} parts */
function line(...parts) {
  const element = h("span", null, ...parts);
  element.dataset.said = parts.map((p) => (typeof p === "string" ? p : p instanceof HTMLElement && p.dataset.card
    ? (p.firstChild?.textContent ?? "") : p.textContent ?? "")).join("");
  return element;
}

/** "in Kabul", "on the Herat–Kabul border", "on Mohan Lal" @param {unknown} where @param {(n: number) => string} nameOf */
function onPlace(where, nameOf) {
  const text = String(where);
  if (REGIONS[text]) return `in ${regionName(text)}`;
  if (BORDERS.includes(text)) return `on the ${borderName(text)} border`;
  if (/^[0-9]+$/.test(text)) return `on ${catalogue?.cards?.[text]?.name ?? `card ${text}`}`;
  return `to ${place(text, nameOf)}`;
}

/** @param {unknown} where @param {(n: number) => string} nameOf */
function fromPlace(where, nameOf) {
  return onPlace(where, nameOf).replace(/^(in|on|to) /, "from ");
}

/** "hand:0" -> "Ann's hand", "market:1:4" -> "market", "seat:0" -> "Ann". @param {unknown} where @param {(n: number) => string} nameOf */
function place(where, nameOf) {
  const [kind = "", first, ...rest] = String(where ?? "?").split(":");
  if (kind === "seat" && first !== undefined) return nameOf(Number(first));
  if ((kind === "hand" || kind === "court") && first !== undefined) return `${nameOf(Number(first))}'s ${kind}`;
  if (kind === "market") return "the market";
  if (kind === "prizes" && first !== undefined) return `${nameOf(Number(first))}'s prizes`;
  if (kind === "bank" || kind === "deck" || kind === "discard") return `the ${kind}`;
  if (kind === "removed") return "out of the game";
  return [kind, first, ...rest].filter((x) => x !== undefined).map((x) => (REGIONS[String(x)] ? regionName(String(x)) : words(String(x)))).join(" ");
}
