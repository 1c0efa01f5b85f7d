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
      view.outcome ? h("section", null, h("h2", null, "Result"), h("pre.raw", { tabindex: 0 }, JSON.stringify(view.outcome.details ?? view.outcome, null, 1))) : null);
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
    switch (event.type) {
      case "CardDrawn": return `${nameOf(d.seat)} drew a card${secret?.card ? `: ${cardName(secret.card)}` : ""} (${words(d.reason ?? "")})`;
      case "TributeCommitted": return `${nameOf(d.seat)} gave a Tribute face down${secret?.card ? ` (yours: ${cardName(secret.card)})` : ""}`;
      case "TributeSealed": return `${nameOf(d.seat)} sealed a Tribute (${String(d.hash).slice(0, 10)}…)`;
      case "TributesRevealed": return `Tributes revealed: ${d.tributes.map((/** @type {any} */ t) => `${nameOf(t.seat)} ${cardName(t.card)}`).join(", ")}`;
      case "NoblePlaced": return `${nameOf(d.seat)} placed ${cardName(d.card)}${d.activated ? " (activated)" : ""}`;
      case "StakesPaid": return `${nameOf(d.seat)} paid ${d.paid} gold into the Stakes`;
      case "StakesWon": return `${nameOf(d.seat)} won the Stakes: ${d.amount} gold`;
      case "DynastyChanged": return `The Current Dynasty is now ${words(d.lineage)} (${cardName(d.crowned_card)} crowned)`;
      case "RoundStarted": return `Round ${d.round} started`;
      case "PhaseStarted": return `Phase: ${words(d.phase)}`;
      case "TurnStarted": return `Turn ${d.turn}: ${nameOf(d.leader)} leads`;
      default: return undefined;
    }
  },
  quiet: new Set(["SetupStarted", "DeckShuffled"]),
  handsOver: new Set(["PlaceNoble"]),
  series: (view) => (view.players ?? []).map((/** @type {any} */ p) => ({ gold: p.treasury })),
  free: sealedTribute,
};
