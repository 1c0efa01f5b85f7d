// @ts-check
// Dynasties' table: your hand, each Family with its Nobles, the Tributes (face down, then
// revealed), the Stakes, each Treasury, the Current Dynasty and Coronation, the deck and the
// Graveyard. Drawn from the seat's view only.
import { h, words } from "../dom.js";
import { bytesOfHex, bytesOfText, randomHex, sha256Hex } from "../digest.js";

/** Where this tab keeps the salt of a seal until its reveal (sessionStorage: this tab only). @param {string} hash */
const saltKey = (hash) => `dynasties-seal:${hash}`;

/** A commit-reveal Tribute (R17a): seal sha256(salt || card id) with a fresh 128-bit salt,
 * kept in sessionStorage; reveal it with that salt. @type {NonNullable<import("./index.js").Layout["free"]>} */
function sealedTribute(type, choice, view, submit, fail) {
  if (type === "CommitTribute") {
    return h("fieldset.choice", null, h("legend", null, "Seal your Tribute"),
      ...(view.hand ?? []).map((/** @type {string} */ card) => h("button", { type: "button", class: "cmd", "data-command": type,
        "data-value": card, onclick: async () => {
          const salt = randomHex(16);
          const hash = await sha256Hex(bytesOfHex(salt), bytesOfText(card));
          if (choice.pattern && !new RegExp(`^(?:${choice.pattern})$`).test(hash)) { fail(`the seal is not ${choice.description}`); return; }
          sessionStorage.setItem(saltKey(hash), JSON.stringify({ salt, card }));
          submit({ type, args: { hash } });
        } }, cardName(card))));
  }
  if (type === "RevealTribute") {
    const mine = (view.players ?? []).find((/** @type {any} */ p) => p.seat === view.viewer);
    const kept = mine?.tribute_hash ? sessionStorage.getItem(saltKey(mine.tribute_hash)) : null;
    const sealed = kept ? JSON.parse(kept) : null;
    return h("fieldset.choice", null, h("legend", null, "Reveal your Tribute"),
      sealed ? h("button", { type: "button", class: "cmd", "data-command": type, "data-value": sealed.card,
                             onclick: () => submit({ type, args: { salt: sealed.salt } }) }, `Reveal ${cardName(sealed.card)}`)
             : h("p", null, "The salt of your seal is not kept in this browser tab, so it cannot be revealed from here."));
  }
  return null;
}

/** "coppe-09" -> "9 of Coppe". A card name is data; nothing here is a rule. @param {unknown} card */
export function cardName(card) {
  const [lineage, rank] = String(card).split("-");
  if (!rank) return String(card);
  return `${Number(rank)} of ${words(lineage ?? "")}`;
}

const SUIT_MARK = { coppe: "♥", denari: "♦", spade: "♠", bastoni: "♣" };

/** @param {unknown} card @param {string} [where] */
function cardEl(card, where = "") {
  const name = String(card);
  const lineage = name.split("-")[0] ?? "";
  return h("span", { class: `card lineage-${lineage}`, "data-target": name, "aria-label": `${cardName(name)}${where}` },
    h("span.pip", { "aria-hidden": "true" }, /** @type {Record<string, string>} */ (SUIT_MARK)[lineage] ?? "•"), " ", cardName(name));
}

/** @param {any} entry a Family's Noble: a card, or an object holding one */
function nobleOf(entry) {
  return typeof entry === "object" && entry !== null ? entry.card ?? JSON.stringify(entry) : entry;
}

/** The result as a table: each player's Treasury, share of the Legacy and payout, winners first.
 * @param {any} view @param {import("./index.js").DrawContext} ctx */
function resultTable(view, ctx) {
  const o = view.outcome ?? {};
  const winners = new Set(o.winners ?? []);
  const seats = (o.treasuries ?? []).map((/** @type {number} */ _, /** @type {number} */ seat) => seat)
    .sort((/** @type {number} */ a, /** @type {number} */ b) => Number(winners.has(b)) - Number(winners.has(a)) || (o.treasuries[b] ?? 0) - (o.treasuries[a] ?? 0));
  return h("section", { "aria-labelledby": "dyn-result" }, h("h2", { id: "dyn-result" }, "Result"),
    h("p", null, `${[...winners].map((n) => ctx.nameOf(n)).join(" and ")} win${winners.size === 1 ? "s" : ""}.`),
    h("table.list", null, h("thead", null, h("tr", null, ...["Player", "Treasury", "Share of the Legacy", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", null, ...seats.map((/** @type {number} */ seat) => h("tr", null,
        h("th", { scope: "row" }, ctx.nameOf(seat)), h("td", null, `${o.treasuries?.[seat] ?? ""} gold`),
        h("td", null, `${o.legacy_shares?.[seat] ?? 0} gold`), h("td", null, winners.has(seat) ? "winner" : ""))))),
    o.legacy_remainder ? h("p", null, `Left of the Legacy after the shares: ${o.legacy_remainder} gold.`) : null);
}

/** @type {import("./index.js").Layout} */
export const dynasties = {
  title: "Dynasties",
  render(view, ctx) {
    const facts = [
      ["Round", view.round], ["Phase", words(view.phase ?? "")], ["Turn", view.turn],
      ["Stakes", `${view.stakes} gold${view.stakes_carried ? " (carried)" : ""}`],
      ["Current Dynasty", view.current_dynasty ? words(view.current_dynasty) : "none"],
      ["Coronation", view.crowned_card ? cardName(view.crowned_card) : "none"],
      ["Enshrined", view.enshrined ? cardName(view.enshrined) : "none"],
      ["Deck", `${view.deck_count} cards`], ["Graveyard", `${view.graveyard_count} cards`],
      ["Legacy", view.legacy],
    ];
    const tributes = (view.players ?? []).map((/** @type {any} */ p) => {
      const mine = p.seat === view.viewer && view.my_tribute;
      return h("li", null, `${ctx.nameOf(p.seat)}: `,
        p.tribute_committed ? (mine ? h("span", null, "face down (yours: ", cardEl(view.my_tribute, ", your face-down Tribute"), ")")
                                    : h("span.facedown", { "aria-label": "a face-down Tribute" }, "▮ face down"))
                            : p.tribute_hash ? h("span.sealed", { title: p.tribute_hash }, `sealed (${p.tribute_hash.slice(0, 10)}…)`)
                            : "no Tribute yet");
    });
    return h("div.dynasties", null,
      h("section", { "aria-labelledby": "dyn-table" }, h("h2", { id: "dyn-table" }, "The table"),
        h("dl.facts.wide", null, ...facts.flatMap(([label, value]) => [h("dt", null, String(label)), h("dd", null, String(value))]))),
      h("section", { "aria-labelledby": "dyn-tributes" }, h("h2", { id: "dyn-tributes" }, "Tributes"),
        h("ul.plain", null, ...tributes),
        h("h3", null, "Tribute Zone (revealed)"),
        view.tribute_zone?.length ? h("div.cards", null, ...view.tribute_zone.map((/** @type {unknown} */ c) => cardEl(c, ", in the Tribute Zone")))
                                  : h("p", null, "empty")),
      Array.isArray(view.hand) ? h("section", { "aria-labelledby": "dyn-hand" }, h("h2", { id: "dyn-hand" }, "Your hand"),
        view.hand.length ? h("div.cards.hand", null, ...view.hand.map((/** @type {unknown} */ c) => cardEl(c, ", in your hand")))
                         : h("p", null, "empty")) : null,
      h("section", { "aria-labelledby": "dyn-families" }, h("h2", { id: "dyn-families" }, "Families"),
        ...(view.players ?? []).map((/** @type {any} */ p) => h("div.family", null,
          h("h3", null, `${ctx.nameOf(p.seat)}'s Family`),
          p.family?.length ? h("div.cards", null, ...p.family.map((/** @type {any} */ n) => cardEl(nobleOf(n), `, in ${ctx.nameOf(p.seat)}'s Family`)))
                           : h("p", null, "no Nobles")))),
      view.revealed ? h("section", { "aria-labelledby": "dyn-revealed" }, h("h2", { id: "dyn-revealed" }, "Revealed"),
        ...(view.revealed.hands ?? []).map((/** @type {unknown[]} */ hand, /** @type {number} */ seat) => h("div", null,
          h("h3", null, `${ctx.nameOf(seat)}'s hand`),
          hand.length ? h("div.cards", null, ...hand.map((c) => cardEl(c, `, in ${ctx.nameOf(seat)}'s hand`))) : h("p", null, "empty"))),
        h("p", null, `Deck: ${(view.revealed.deck ?? []).map(cardName).join(", ") || "empty"}`),
        h("p", null, `Graveyard: ${(view.revealed.graveyard ?? []).map(cardName).join(", ") || "empty"}`)) : null,
      view.outcome ? resultTable(view, ctx) : null);
  },
  seatFacts(view, seat) {
    const p = (view.players ?? []).find((/** @type {any} */ x) => x.seat === seat);
    if (!p) return [];
    return [["Treasury", `${p.treasury} gold`], ["Hand", `${p.hand_count} cards`],
            ["Tribute", p.tribute_committed ? "given (face down)" : "—"], ["Family", `${p.family?.length ?? 0} Nobles`],
            ...(p.debt ? [/** @type {[string, string]} */ (["Debt", String(p.debt)])] : [])];
  },
  label: (value, argName) => (argName === "card" || argName === "cards" ? cardName(value) : words(String(value))),
  describe(event, nameOf) {
    const d = /** @type {any} */ (event.data);
    const secret = /** @type {any} */ (event.secret);
    const who = (/** @type {unknown} */ n) => nameOf(Number(n));
    const gold = (/** @type {number} */ n) => `${n} gold`;
    const short = (/** @type {number} */ n) => (n > 0 ? ` (${gold(n)} short)` : "");
    const and = (/** @type {string[]} */ names) => (names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0] ?? "nobody");
    switch (event.type) {
      case "CardDrawn": return `${who(d.seat)} draws a card${secret?.card ? `: the ${cardName(secret.card)}` : ""} (${words(d.reason ?? "").toLowerCase()})`;
      case "GraveyardReshuffled": return `The Graveyard is shuffled into a new deck of ${d.count} cards`;
      case "DrawFailed": return `${who(d.seat)} cannot draw: the deck and the Graveyard are empty`;
      case "RoundStarted": return `Round ${d.round} begins`;
      case "PhaseStarted": return `${words(d.phase)} phase`;
      case "ProspectsEnquired": return `${who(d.seat)} pays ${gold(d.paid)} to enquire about prospects${short(d.shortfall)}: the ${cardName(d.revealed_card)} is turned up${d.kept_revealed ? " and stays face up" : ""}`;
      case "TributeCommitted": return `${who(d.seat)} gives a Tribute face down${secret?.card ? ` (yours: the ${cardName(secret.card)})` : ""}`;
      case "TributeSealed": return `${who(d.seat)} seals a Tribute (${String(d.hash).slice(0, 10)}…)`;
      case "TributesRevealed": return `Tributes turned up: ${d.tributes.map((/** @type {any} */ x) => `${who(x.seat)} the ${cardName(x.card)}`).join(", ")}`;
      case "TributeStalemate": return `The Tributes tie (${(d.cards ?? []).map(cardName).join(", ")}): a stalemate`;
      case "FirstPlayerChosen": return `${who(d.seat)} plays first (${words(d.by ?? "").toLowerCase()}, ${d.value})`;
      case "StakesPaid": return `${who(d.seat)} pays ${gold(d.paid)} into the Stakes${short(d.shortfall)}`;
      case "DebtRecorded": return `${who(d.seat)} now owes ${gold(d.amount)}`;
      case "TurnStarted": return `Turn ${d.turn}: ${who(d.leader)} leads${d.tie_break ? " (after a tie-break)" : ""}`;
      case "NoblePlaced": return `${who(d.seat)} places the ${cardName(d.card)} in their Family${d.activated ? ", activated" : ""}`;
      case "PlacementSkipped": return `${who(d.seat)} places no Noble (${words(d.reason ?? "").toLowerCase()})`;
      case "KingsDeposed": return `Kings deposed (${words(d.by ?? "").toLowerCase()}): ${(d.removed ?? []).map((/** @type {any} */ x) => `${who(x.seat)}'s ${cardName(x.card)}`).join(", ") || "none"}`;
      case "DynastyChanged": return d.lineage ? `${words(d.lineage)} is now the Current Dynasty (the ${cardName(d.crowned_card)} is crowned)`
                                              : `There is no Current Dynasty any more (${words(d.cause ?? "").toLowerCase()})`;
      case "ConclaveFormed": return `${who(d.seat)} forms a Conclave worth ${d.value} and takes ${gold(d.gold_taken)} from the Stakes`;
      case "StakesEmptied": return `${who(d.seat)} empties the Stakes`;
      case "ConclaveCardsTaken": return `${who(d.seat)} takes ${and((d.cards ?? []).map((/** @type {string} */ c) => `the ${cardName(c)}`))} for the Conclave`;
      case "PurebloodFormed": return `${who(d.seat)}'s Family is a Pureblood of ${words(d.lineage)}: ${gold(d.amount)} from each other player`;
      case "PurebloodPaid": return `${who(d.from)} pays ${who(d.to)} ${gold(d.paid)} for the Pureblood${short(d.shortfall)}`;
      case "TurnEnded": return `Turn ${d.turn} ends; ${who(d.next_leader)} leads the next`;
      case "FamiliesTallied": return `Families counted: ${(d.rows ?? []).map((/** @type {any} */ r) => `${who(r.seat)} ${r.total}`).join(", ")}`;
      case "ConclusionTied": return `${and((d.seats ?? []).map(who))} tie at ${d.total}`;
      case "StakesWon": return `${who(d.seat)} wins the Stakes: ${gold(d.amount)}`;
      case "StakesCarried": return `Nobody wins the Stakes (${and((d.tied ?? []).map(who))} tie): ${gold(d.amount)} stay for the next round`;
      case "StakesSplit": return `The Stakes are split: ${(d.shares ?? []).map((/** @type {any} */ x) => `${who(x.seat)} ${gold(x.amount)}`).join(", ")}`;
      case "DebtSettled": return `${who(d.seat)} pays ${gold(d.paid)} of a ${gold(d.debt)} debt`;
      case "PlayerBroke": return `${who(d.seat)} is broke`;
      case "GameEnded": return `The game ends: ${and((d.winners ?? []).map(who))} win${(d.winners ?? []).length === 1 ? "s" : ""} (${(d.treasuries ?? []).map((/** @type {number} */ g, /** @type {number} */ i) => `${who(i)} ${gold(g)}`).join(", ")})`;
      case "CoronationBuried": return `The Coronation card, the ${cardName(d.card)}, goes to the Graveyard`;
      case "CoronationEnshrined": return `The ${cardName(d.card)} is enshrined`;
      case "FamiliesBuried": return `The Families go to the Graveyard (${d.count} cards)`;
      case "DrawOrderChosen": return `Drawing order: ${(d.order ?? []).map(who).join(", ")}`;
      case "HandLimitChecked": return d.must_retire ? `${who(d.seat)} holds ${d.size} cards, over the limit of ${d.limit}: ${d.must_retire} must be retired`
                                                    : `${who(d.seat)} holds ${d.size} cards (limit ${d.limit})`;
      case "NoblesRetired": return `${who(d.seat)} retires ${d.count} Noble${d.count === 1 ? "" : "s"}${secret?.cards ? ` (yours: ${secret.cards.map(cardName).join(", ")})` : ""}`;
      default: return undefined;
    }
  },
  quiet: new Set(["SetupStarted", "DeckShuffled"]),
  handsOver: new Set(), // a placement is the turn's one move: a click on a card in hand places it (a stale click is refused, 409)
  series: (view) => (view.players ?? []).map((/** @type {any} */ p) => ({ gold: p.treasury })),
  free: sealedTribute,
};
