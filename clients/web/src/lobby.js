// @ts-check
// The lobby: sign up, the games waiting for me, a new game with every option the server
// lists (its defaults and limits) and computer opponents in the seats the creator chooses,
// and the open, running and finished games with filters.
import { api, me, setMe } from "./api.js";
import { h, fill, words, announce } from "./dom.js";

/** @typedef {import("./api.js").GameType} GameType */
/** @typedef {import("./api.js").LobbyGame} LobbyGame */
/** @typedef {{main: HTMLElement, renderAccount: () => void, reason: (error: unknown) => string}} Context */

/** @param {Context} ctx @returns {() => void} */
export function lobbyPage(ctx) {
  document.title = "Lobby · Game service";
  const player = me();
  const waiting = h("section", { "aria-labelledby": "mine-title" });
  const create = h("section", { "aria-labelledby": "create-title" });
  const list = h("section", { "aria-labelledby": "games-title" });
  fill(ctx.main, h("h1", null, "Lobby"), player ? null : signUp(ctx), waiting, create, list);
  /** @type {GameType[]} */
  let types = [];
  let stopped = false;

  const filters = { type: "", status: "" };
  const rows = h("div.games");
  const typeFilter = h("select", { id: "filter-type", onchange: (/** @type {Event} */ e) => {
    filters.type = /** @type {HTMLSelectElement} */ (e.target).value; refresh();
  } }, h("option", { value: "" }, "Every game"));
  const statusFilter = h("select", { id: "filter-status", onchange: (/** @type {Event} */ e) => {
    filters.status = /** @type {HTMLSelectElement} */ (e.target).value; refresh();
  } }, ...[["", "Every status"], ["waiting", "Open (waiting for players)"], ["active", "Running"],
          ["finished", "Finished"]].map(([value, text]) => h("option", { value }, text)));
  fill(list, h("h2", { id: "games-title" }, "Games"),
    h("div.filters", null,
      h("label", { for: "filter-type" }, "Game "), typeFilter,
      h("label", { for: "filter-status" }, "Status "), statusFilter,
      h("button", { type: "button", onclick: () => refresh() }, "Refresh")),
    rows);

  let shown = "";
  async function refresh() {
    try {
      const found = await api.lobby({ type: filters.type, status: filters.status, limit: 100 });
      const active = player ? await api.lobby({ status: "active", limit: 500 }) : null;
      const open = player ? await api.lobby({ status: "waiting", limit: 500 }) : null;
      // redraw only when something changed: a redraw would take the keyboard focus away
      const now = JSON.stringify([found, active, open, filters]);
      if (now === shown) return;
      shown = now;
      fill(rows, gameTable(found.games, types, player?.id ?? null, ctx));
      if (player && active && open) {
        const mine = active.games.filter((g) => g.seats.some((seat) => seat.player_id === player.id
                                                              && g.to_move.includes(seat.seat)));
        const seatedWaiting = open.games.filter((g) => g.seats.some((seat) => seat.player_id === player.id));
        fill(waiting, h("h2", { id: "mine-title" }, "Games waiting for me"),
          mine.length ? gameTable(mine, types, player.id, ctx)
                      : h("p", null, "No game is waiting for your move."),
          seatedWaiting.length ? h("div", null, h("h3", null, "My games waiting for players"),
                                   gameTable(seatedWaiting, types, player.id, ctx)) : null);
      }
    } catch (error) {
      fill(rows, h("p.error", { role: "alert" }, ctx.reason(error)));
    }
  }

  api.gameTypes().then((found) => {
    types = found;
    for (const type of types) typeFilter.append(h("option", { value: type.type }, type.title));
    if (player) fill(create, h("h2", { id: "create-title" }, "Create a game"), soloChoices(types, ctx), createForm(types, ctx));
    refresh();
  }).catch((error) => fill(create, h("p.error", { role: "alert" }, ctx.reason(error))));
  const timer = window.setInterval(() => { if (!stopped && document.visibilityState === "visible") refresh(); }, 4000);
  return () => { stopped = true; window.clearInterval(timer); };
}

/** Play alone in one click: Pax Pamir against Wakhan, Dynasties against computer opponents.
 * @param {GameType[]} types @param {Context} ctx */
function soloChoices(types, ctx) {
  const error = h("p.error", { role: "alert" });
  /** @type {[string, string, () => Promise<import("./api.js").Game>][]} */
  const choices = [
    ["pax_pamir", "Play Pax Pamir alone, against Wakhan", () => api.createGame("pax_pamir", 1, { wakhan: true })],
    ["dynasties", "Play Dynasties alone, against two computer opponents",
     () => api.createGame("dynasties", 3, {}, [{ kind: "greedy" }, { kind: "random" }])],
  ];
  const offered = choices.filter(([type]) => types.some((t) => t.type === type));
  if (!offered.length) return null;
  return h("div.solo", { role: "group", "aria-labelledby": "solo-title" }, h("h3", { id: "solo-title" }, "Play solo"),
    ...offered.map(([type, text, make]) => h("button", { type: "button", class: "cmd", "data-solo": type, onclick: async () => {
      try {
        const game = await make();
        await api.join(game.id);
        location.hash = `#/game/${game.id}`;
      } catch (failure) { error.textContent = ctx.reason(failure); }
    } }, text)), error);
}

/** @param {Context} ctx */
function signUp(ctx) {
  const name = h("input", { id: "player-name", name: "name", required: true, maxlength: 64, autocomplete: "nickname" });
  const remember = h("input", { id: "remember", type: "checkbox" });
  const error = h("p.error", { role: "alert" });
  return h("section", { "aria-labelledby": "signup-title" },
    h("h2", { id: "signup-title" }, "Play"),
    h("form", { onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      try {
        const player = await api.createPlayer(/** @type {HTMLInputElement} */ (name).value.trim());
        setMe(player, /** @type {HTMLInputElement} */ (remember).checked);
        ctx.renderAccount();
        announce(`Signed in as ${player.name}`);
        window.dispatchEvent(new HashChangeEvent("hashchange"));
      } catch (failure) { error.textContent = ctx.reason(failure); }
    } },
      h("label", { for: "player-name" }, "Your name"), name,
      h("div", null, remember, h("label", { for: "remember" }, " Remember me in this browser (else: this tab only)")),
      h("button", { type: "submit" }, "Register and play"), error));
}

/**
 * A form built from the game type's options (each with its default and limits), and the
 * seats: how many, and for each seat but the creator's, a person (left open for someone to
 * join) or one of the game's computer opponents at one of its levels.
 * @param {GameType[]} types @param {Context} ctx
 */
function createForm(types, ctx) {
  const typeSelect = h("select", { id: "new-type", name: "type" },
    ...types.map((t) => h("option", { value: t.type }, t.title)));
  const seatFields = h("div.seats");
  const opponents = h("div.opponents");
  const fields = h("div.options");
  const error = h("p.error", { role: "alert" });
  const privately = /** @type {HTMLInputElement} */ (h("input", { id: "new-private", type: "checkbox",
    "aria-describedby": "new-private-help" }));
  const standIn = h("div.stand-in");
  /** @type {HTMLSelectElement} */
  let standInSelect = /** @type {HTMLSelectElement} */ (h("select"));
  /** @type {Record<string, () => unknown>} */
  let readers = {};
  let seats = /** @type {HTMLInputElement} */ (h("input"));
  /** @type {string[]} each other seat: "" (a person) or "kind:level" (a bot) */
  let picks = [];

  /** @param {GameType} type */
  function drawOpponents(type) {
    const count = Math.max(type.min_seats, Math.min(type.max_seats, Math.trunc(Number(seats.value)) || type.default_seats)) - 1;
    picks = Array.from({ length: count }, (_, i) => picks[i] ?? "");
    const choices = [["", "A person (the seat stays open)"],
      ...(type.bots ?? []).flatMap((bot) => bot.levels.map((level) =>
        [`${bot.kind}:${level}`, `${words(bot.kind)} bot${bot.levels.length > 1 ? ` (${level})` : ""}`]))];
    fill(opponents, ...picks.map((pick, i) => {
      const id = `opponent-${i + 1}`;
      const select = h("select", { id, "aria-describedby": "opponents-help", onchange: (/** @type {Event} */ e) => {
        picks[i] = /** @type {HTMLSelectElement} */ (e.target).value;
      } }, ...choices.map(([value, text]) => h("option", { value, selected: value === pick }, text)));
      return h("div.field", null, h("label", { for: id }, `Seat ${i + 2}`), select);
    }));
  }

  function build() {
    const type = types.find((t) => t.type === /** @type {HTMLSelectElement} */ (typeSelect).value) ?? types[0];
    if (!type) return;
    readers = {};
    picks = [];
    seats = /** @type {HTMLInputElement} */ (h("input", { id: "new-seats", name: "seats", type: "number", required: true,
      min: type.min_seats, max: type.max_seats, value: type.default_seats, oninput: () => drawOpponents(type) }));
    fill(seatFields, h("div.field", null, h("label", { for: "new-seats" }, `Seats (${type.min_seats} to ${type.max_seats})`), seats),
      h("p", { id: "opponents-help" }, "You take the first seat. Leave the others open for people to join, or give them to computer opponents, who play at once."),
      opponents);
    drawOpponents(type);
    // who plays a seat its player leaves (a resignation, a clock run out) at three seats or more
    standInSelect = /** @type {HTMLSelectElement} */ (h("select", { id: "new-stand-in", "aria-describedby": "new-stand-in-help" },
      ...(type.bots ?? []).flatMap((bot) => bot.levels.map((level) => h("option", {
        value: `${bot.kind}:${level}`, selected: bot.kind === "greedy" && level === bot.default_level },
        `${words(bot.kind)} bot${bot.levels.length > 1 ? ` (${level})` : ""}`))),
      h("option", { value: "" }, "Nobody: the game ends")));
    fill(standIn, h("label", { for: "new-stand-in" }, "If a player leaves"), standInSelect,
      h("small", { id: "new-stand-in-help" }, "At three seats or more, a computer opponent takes the seat of a player "
        + "who resigns or runs out of time, and the others play on; the player may take it back."));
    const controls = [];
    for (const option of type.options) {
      const id = `option-${option.name}`;
      const help = h("small", { id: `${id}-help` }, option.description);
      /** @type {HTMLElement} */
      let input;
      if (option.type === "bool") {
        input = h("input", { id, type: "checkbox", checked: option.default === true, "aria-describedby": `${id}-help` });
        readers[option.name] = () => /** @type {HTMLInputElement} */ (input).checked;
      } else if (option.type === "choice") {
        input = h("select", { id, "aria-describedby": `${id}-help` },
          ...(option.choices ?? []).map((c) => h("option", { value: c, selected: c === option.default }, words(c))));
        readers[option.name] = () => /** @type {HTMLSelectElement} */ (input).value;
      } else if (option.type === "int") {
        input = h("input", { id, type: "number", min: option.minimum, max: option.maximum, step: 1,
          value: option.default ?? "", placeholder: option.nullable ? "none" : undefined, "aria-describedby": `${id}-help` });
        readers[option.name] = () => {
          const text = /** @type {HTMLInputElement} */ (input).value.trim();
          return text === "" && option.nullable ? null : Number(text);
        };
      } else {
        input = h("textarea", { id, rows: 2, placeholder: option.nullable ? "empty: none" : "", "aria-describedby": `${id}-help` },
          option.default === null || option.default === undefined ? "" : JSON.stringify(option.default));
        readers[option.name] = () => {
          const text = /** @type {HTMLTextAreaElement} */ (input).value.trim();
          if (text === "") return null;
          try { return JSON.parse(text); } catch { throw new Error(`${words(option.name)} must be JSON (or left empty)`); }
        };
      }
      const limits = option.minimum !== undefined ? ` (${option.minimum} to ${option.maximum})` : "";
      controls.push(option.type === "bool"
        ? h("div.field.check", null, input, h("label", { for: id }, ` ${words(option.name)}`), help)
        : h("div.field", null, h("label", { for: id }, `${words(option.name)}${limits}`), input, help));
    }
    fill(fields, ...controls);
  }
  typeSelect.addEventListener("change", build);
  build();
  return h("form", { class: "create", onsubmit: async (/** @type {Event} */ event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      /** @type {Record<string, unknown>} */
      const options = {};
      for (const [name, read] of Object.entries(readers)) options[name] = read();
      const bots = picks.map((pick, i) => ({ pick, seat: i + 1 })).filter(({ pick }) => pick !== "")
        .map(({ pick, seat }) => ({ kind: pick.split(":")[0] ?? "", level: pick.split(":")[1] ?? "", seat }));
      const [kind, level] = standInSelect.value.split(":");
      const game = await api.createGame(/** @type {HTMLSelectElement} */ (typeSelect).value, Number(seats.value), options, bots,
        { private: privately.checked, stand_in: kind ? { kind, level } : null });
      await api.join(game.id);
      location.hash = `#/game/${game.id}`;
    } catch (failure) { error.textContent = ctx.reason(failure); }
  } },
    h("div.field", null, h("label", { for: "new-type" }, "Game"), typeSelect),
    h("fieldset", null, h("legend", null, "Seats"), seatFields),
    h("div.field.check", null, privately, h("label", { for: "new-private" }, " Private table"),
      h("small", { id: "new-private-help" }, "Left out of the lobby: friends take its seats by your invitation link.")),
    h("div.field", null, standIn),
    h("details", null, h("summary", null, "Options"), fields),
    h("button", { type: "submit" }, "Create and take a seat"), error);
}

/** @param {LobbyGame[]} games @param {GameType[]} types @param {string | null} playerId @param {Context} ctx */
function gameTable(games, types, playerId, ctx) {
  if (!games.length) return h("p", null, "No games.");
  const title = (/** @type {string} */ type) => types.find((t) => t.type === type)?.title ?? type;
  return h("table.list", null,
    h("thead", null, h("tr", null, ...["Game", "Status", "Players", "Version", "Actions"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, ...games.map((game) => {
      const seated = game.seats.some((seat) => seat.player_id === playerId);
      const open = game.seats.filter((seat) => seat.player_id === null).length;
      const error = h("span.error", { role: "alert" });
      return h("tr", { "data-game": game.id },
        h("td", null, title(game.type)),
        h("td", null, game.status === "waiting" ? `open: ${open} seat${open === 1 ? "" : "s"} free` : words(game.status)),
        h("td", null, game.seats.map((seat) => seat.name ?? "(open)").join(", ")),
        h("td", null, String(game.version)),
        h("td.actions", null,
          game.status === "waiting" && playerId && !seated
            ? h("button", { type: "button", onclick: async () => {
                try { await api.join(game.id); location.hash = `#/game/${game.id}`; }
                catch (failure) { error.textContent = ctx.reason(failure); }
              } }, "Join") : null,
          seated ? h("a.button", { href: `#/game/${game.id}` }, "Open") : null,
          !seated && game.status !== "waiting" ? h("a.button", { href: `#/game/${game.id}` }, "Watch") : null,
          game.status !== "waiting" ? h("a.button", { href: `#/replay/${game.id}` }, "Replay") : null,
          error));
    })));
}
