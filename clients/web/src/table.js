// @ts-check
// The game table: one generic frame for every game (the prompt and its choices, the players,
// the log, undo) around the game's own layout (src/games/). No rule is written here: what may
// be done comes from GET /games/{id}/legal-commands, what is seen from GET /games/{id}/state,
// the log from the events, live from the stream (opened with a stream ticket).
import { api, allEvents, me, ProblemError } from "./api.js";
import { h, fill, words, announce } from "./dom.js";
import { layouts, seatMark, logLine, said } from "./games/index.js";

/** @typedef {import("./api.js").Game} Game */
/** @typedef {import("./api.js").State} State */
/** @typedef {import("./api.js").LegalCommands} LegalCommands */
/** @typedef {import("./api.js").GameCommand} GameCommand */
/** @typedef {import("./api.js").GameEvent} GameEvent */
/** @typedef {{main: HTMLElement, renderAccount: () => void, reason: (error: unknown) => string}} Context */

/** @param {Context} ctx @param {string} id @returns {() => void} */
export function tablePage(ctx, id) {
  const player = me();
  const title = h("h1", null, "Game");
  const status = h("p.status", { id: "game-status" });
  const live = h("span.live", { id: "live-status" }, "connecting…");
  const promptBox = h("section.prompt", { id: "prompt", "aria-labelledby": "prompt-title" });
  const board = h("section.board", { "aria-label": "The table" });
  const players = h("section.players", { "aria-labelledby": "players-title" });
  const logList = h("ol.log", { id: "log", tabindex: 0, "aria-labelledby": "log-title" });
  const logBox = h("section.logbox", { "aria-labelledby": "log-title" }, h("h2", { id: "log-title" }, "Log"), logList);
  const tools = h("div.tools");
  const notice = h("p.notice", { id: "table-notice", role: "status" });
  fill(ctx.main, h("div.tablehead", null, title, status, live, tools, notice),
    h("div.table", null, h("div.left", null, promptBox, board), h("div.right", null, players, logBox)));

  // a layout that draws part of the table again (a zoom) asks for its targets to be wired again
  board.addEventListener("layout-redrawn", () => wireTargets(targetsOf(legal)));
  /** @type {Game | null} */ let game = null;
  /** @type {State | null} */ let state = null;
  /** @type {LegalCommands | null} */ let legal = null;
  /** @type {EventSource | null} */ let source = null;
  let last = 0;
  let closed = false;
  let refreshing = /** @type {Promise<void> | null} */ (null);
  let again = false;
  let lastPrompt = "";
  let wasMyTurn = false;
  let drawn = "";
  let confirming = false;
  const seen = new Set();
  /** @type {string[]} */ const pendingLines = [];
  let logTimer = 0;

  const layout = () => layouts[game?.type ?? ""] ?? layouts.generic;
  const seat = () => (game && player ? game.seats.find((s) => s.player_id === player.id)?.seat ?? null : null);
  /** @param {number | null | undefined} n */
  const nameOf = (n) => (n === null || n === undefined ? "—"
    : game?.seats[n]?.name ?? layout().seatName?.(state?.view, n) ?? `Seat ${n + 1}`);

  function addEvents(/** @type {GameEvent[]} */ events) {
    const lines = [];
    for (const event of events) {
      if (event.version <= last || seen.has(event.version)) continue; // a resumed stream may repeat
      seen.add(event.version);
      last = event.version;
      const text = logLine(layout(), event, nameOf);
      if (text === null) continue;
      logList.append(h("li", { "data-version": event.version }, h("span.v", null, `${event.version}`), " ", text));
      lines.push(said(text));
    }
    if (lines.length) {
      logList.scrollTop = logList.scrollHeight;
      pendingLines.push(...lines);
      // log lines are told in batches, in their own live region: never over the prompt's
      window.clearTimeout(logTimer);
      logTimer = window.setTimeout(() => {
        const batch = pendingLines.splice(0);
        announce(`${batch.length > 3 ? `${batch.length} new log lines, the last: ` : ""}${batch.slice(-3).join(". ")}`, "log-announcer");
      }, 1200);
    }
  }

  /** After a move: the focus goes to the prompt (its first choice, else its question). */
  function focusPrompt() {
    const target = promptBox.querySelector("fieldset.choice button:not([disabled])") ?? promptBox.querySelector("#prompt-text, p");
    if (target instanceof HTMLElement) {
      if (!target.matches("button")) target.setAttribute("tabindex", "-1");
      target.focus();
    }
  }

  let retry = 0;
  let generation = 0;
  /** One stream at a time: a later (re)open wins, and a superseded one is closed. @param {number} ms */
  function openLater(ms) { window.clearTimeout(retry); retry = window.setTimeout(openStream, ms); }

  async function openStream() {
    if (closed) return;
    window.clearTimeout(retry);
    const mine = ++generation;
    source?.close(); source = null;
    try {
      let url = `/games/${encodeURIComponent(id)}/stream?after=${last}`;
      if (seat() !== null) url = `${(await api.streamTicket(id)).stream_url}&after=${last}`;
      if (closed || mine !== generation) return; // closed, or opened again meanwhile
      const opened = new EventSource(url);
      source = opened;
      opened.onopen = () => { live.textContent = "live"; live.className = "live on"; };
      opened.onmessage = (message) => { addEvents([JSON.parse(message.data)]); scheduleRefresh(); };
      opened.addEventListener("end", () => {
        opened.close();
        if (source === opened) source = null;
        live.textContent = "game over"; live.className = "live";
        scheduleRefresh();
      });
      opened.onerror = () => {
        // the server ended the stream, the network dropped or the ticket expired: reopen with a new
        // ticket after the last event received (duplicates are ignored by version)
        opened.close();
        if (source !== opened) return;
        source = null;
        live.textContent = "reconnecting…"; live.className = "live off";
        openLater(1000);
      };
    } catch (error) {
      if (mine !== generation) return;
      live.textContent = `reconnecting… (${ctx.reason(error)})`; live.className = "live off";
      openLater(2000);
    }
  }

  function scheduleRefresh() {
    if (refreshing) { again = true; return; }
    refreshing = refresh().finally(() => {
      refreshing = null;
      if (again) { again = false; scheduleRefresh(); }
    });
  }

  async function refresh() {
    try {
      game = await api.game(id);
      await layout().prepare?.(); // the game's public data (a card catalogue), once
      const mySeat = seat();
      [state, legal] = await Promise.all([
        api.state(id),
        mySeat !== null && game.status === "active" ? api.legal(id) : Promise.resolve(null),
      ]);
      // the game moved on between the reads: read again, so whose move and the prompt agree
      if (state.version !== game.version || (legal && legal.version !== game.version)) again = true;
      // draw only what changed: a redraw would move the focus and drop a half-made choice
      const now = `${game.version}/${game.status}/${state?.version}/${legal?.version ?? "-"}`;
      if (now !== drawn) { draw(); drawn = now; }
    } catch (error) {
      fill(status, h("span.error", { role: "alert" }, ctx.reason(error)));
      // the network or the server failed: try again shortly (the stream may have moved on meanwhile)
      if (!closed) window.setTimeout(() => { drawn = ""; scheduleRefresh(); }, 1500);
    }
  }

  function draw() {
    if (!game || !state) return;
    const kind = layout();
    const mySeat = seat();
    title.textContent = `${kind.title} · ${game.id}`;
    const whose = game.to_move.map(nameOf).join(", ");
    status.textContent = game.status === "waiting"
      ? `Waiting for players: ${game.seats.filter((s) => s.player_id === null).length} seat(s) open.`
      : game.status === "finished" ? finishedText(game, nameOf)
      : `Version ${game.version}. To move: ${whose || "nobody"}. ${mySeat === null ? "You are watching as a spectator." : `You are ${nameOf(mySeat)}, seat ${mySeat}.`}`;
    drawTools(mySeat);
    drawPlayers(mySeat);
    drawPrompt(mySeat);
    const targets = targetsOf(legal);
    fill(board, state.view ? kind.render(state.view, { seat: mySeat, nameOf, targets: new Set(targets.keys()) })
                            : h("p", null, "The game starts when every seat is taken."));
    wireTargets(targets);
    const myTurn = Boolean(legal?.prompt);
    document.title = `${myTurn ? "● Your turn · " : ""}${kind.title} · Game service`;
    if (myTurn && !wasMyTurn && document.visibilityState !== "visible" && "Notification" in window
        && Notification.permission === "granted") {
      new Notification(`${kind.title}: your turn`, { body: legal?.prompt?.text ?? "" });
    }
    wasMyTurn = myTurn;
  }

  function drawTools(/** @type {number | null} */ mySeat) {
    if (!game) return;
    const note = h("span.status", { role: "status" });
    fill(tools,
      game.status === "waiting" && player && mySeat === null
        ? h("button", { type: "button", onclick: async () => {
            try { await api.join(id); await refresh(); reopen(); } catch (error) { note.textContent = ctx.reason(error); }
          } }, "Take a seat") : null,
      mySeat !== null && game.status === "active"
        ? h("button", { type: "button", id: "undo", onclick: async () => {
            try { await api.undo(id); note.textContent = "Your last move was taken back."; scheduleRefresh(); }
            catch (error) { note.textContent = `Undo refused: ${ctx.reason(error)}`; }
          } }, "Undo my last move") : null,
      "Notification" in window && Notification.permission === "default" && mySeat !== null && game.status !== "finished"
        ? h("button", { type: "button", onclick: () => Notification.requestPermission().then(draw) }, "Notify me on my turn")
        : null,
      game.status !== "waiting" ? h("a.button", { href: `#/replay/${id}` }, "Replay") : null,
      h("a.button", { href: "#/" }, "Lobby"),
      note);
  }

  function drawPlayers(/** @type {number | null} */ mySeat) {
    if (!game || !state) return;
    const kind = layout();
    const view = state.view;
    fill(players, h("h2", { id: "players-title" }, "Players"),
      h("ul.seats", null, ...seatsAtTable(game, view).map((s) => h("li", { class: game?.to_move.includes(s.seat) ? "seat to-move" : "seat" },
        h("div.seatname", null, seatMark(s.seat), " ", h("strong", null, s.name ?? kind.seatName?.(view, s.seat) ?? "(open seat)"),
          s.seat === mySeat ? " (you)" : "", s.bot ? ` (computer: ${s.bot.kind}, ${s.bot.level})` : "",
          game?.to_move.includes(s.seat) ? h("span.badge", null, " ▶ to move") : null),
        view ? h("dl.facts", null, ...kind.seatFacts(view, s.seat).flatMap(([label, value]) => [h("dt", null, label), h("dd", null, value)])) : null))));
  }

  function drawPrompt(/** @type {number | null} */ mySeat) {
    if (confirming) return; // the player is answering a confirm: it stays until answered
    const heading = h("h2", { id: "prompt-title" }, mySeat === null ? "Watching" : legal?.prompt ? "Your move" : "Waiting");
    if (!legal?.prompt) {
      const text = game?.status === "finished" ? "The game is over." : mySeat === null ? "You are watching this game."
        : game?.status === "waiting" ? "Waiting for players." : `Waiting for ${game?.to_move.map(nameOf).join(", ")}.`;
      fill(promptBox, heading, h("p", null, text));
      promptBox.setAttribute("data-version", String(state?.version ?? 0));
      lastPrompt = "";
      return;
    }
    const prompt = legal.prompt;
    const hadFocus = promptBox.contains(document.activeElement);
    const error = h("p.error", { role: "alert", id: "command-error" });
    const groups = Object.entries(prompt.choices).map(([type, choice]) => choiceGroup(type, choice, error));
    fill(promptBox, heading, h("p.question", { id: "prompt-text" }, prompt.text), ...groups, error);
    for (const group of groups) roving(group);
    promptBox.setAttribute("data-version", String(legal.version));
    if (hadFocus) { // keyboard play: the focus stays in the prompt, on its first choice
      const first = promptBox.querySelector("fieldset.choice button");
      if (first instanceof HTMLElement) first.focus();
    }
    const said = `${prompt.text}`;
    if (said !== lastPrompt) { announce(`Your move: ${said}`, "prompt-announcer"); lastPrompt = said; }
  }

  /** @param {string} type @param {import("./api.js").PromptChoice} choice @param {HTMLElement} error */
  function choiceGroup(type, choice, error) {
    const commands = (legal?.commands ?? []).filter((c) => c.type === type);
    const at = legal?.version; // the version these choices were offered at: the command says so
    const legend = h("legend", null, words(type));
    const kind = layout();
    const argName = Object.keys(commands[0]?.args ?? {})[0] ?? "value";
    // a seat is named by its player; anything else as the game's layout names it
    const label = (/** @type {unknown} */ value) => (argName === "seat" ? nameOf(Number(value)) : kind.label(value, argName, state?.view, type));
    if (choice.allows === "free") { // a value the server cannot list (a seal): the layout computes it
      const own = kind.free?.(type, choice, state?.view, (command) => send(command, error, at), (reason) => { error.textContent = reason; });
      return own ?? h("fieldset.choice", null, legend, h("p", null, `${words(type)} needs ${choice.description ?? "a value"}; this client cannot compute it.`));
    }
    if (choice.allows === "nothing") {
      return h("fieldset.choice", null, legend,
        h("button", { type: "button", class: "cmd", "data-command": type, onclick: () => send(commands[0], error, at) }, words(type)));
    }
    if (choice.allows === "one_of") {
      return h("fieldset.choice", null, legend, ...commands.map((command) => {
        const value = Object.values(command.args ?? {})[0];
        return h("button", { type: "button", class: "cmd", "data-command": type, "data-value": String(value),
                             onclick: () => send(command, error, at) }, label(value));
      }));
    }
    if (choice.allows === "subset_of") {
      const options = choice.options ?? [];
      const picked = new Set();
      const min = choice.min ?? 0, max = choice.max ?? options.length;
      const confirm = h("button", { type: "button", class: "cmd confirm", "data-command": type }, "");
      const update = () => {
        confirm.textContent = `${words(type)}: ${picked.size ? [...picked].map((v) => label(v)).join(", ") : "none"}`;
        /** @type {HTMLButtonElement} */ (confirm).disabled = picked.size < min || picked.size > max;
      };
      confirm.addEventListener("click", () => send(matching(commands, options.filter((o) => picked.has(o))), error, at));
      update();
      return h("fieldset.choice", null, h("legend", null, `${words(type)}: choose ${min} to ${max}`),
        ...options.map((option) => h("button", { type: "button", class: "toggle", "aria-pressed": "false", "data-value": String(option),
          onclick: (/** @type {Event} */ e) => {
            const button = /** @type {HTMLElement} */ (e.currentTarget);
            if (picked.has(option)) picked.delete(option); else picked.add(option);
            button.setAttribute("aria-pressed", String(picked.has(option)));
            update();
          } }, label(option))), confirm);
    }
    // between: a number in min..max
    const inputId = `amount-${type}`;
    const input = /** @type {HTMLInputElement} */ (h("input", { id: inputId, type: "number", min: choice.min, max: choice.max,
                                                                 value: choice.min, step: 1, required: true }));
    return h("fieldset.choice", null, legend,
      h("label", { for: inputId }, `${words(argName)} (${choice.min} to ${choice.max}) `), input,
      h("button", { type: "button", class: "cmd", "data-command": type, onclick: () => {
        const amount = Number(input.value);
        if (!Number.isInteger(amount) || amount < (choice.min ?? 0) || amount > (choice.max ?? amount)) {
          error.textContent = `${words(argName)} must be a whole number from ${choice.min} to ${choice.max}`;
          return;
        }
        send(matching(commands, amount), error, at);
      } }, words(type)));
  }

  /** @param {LegalCommands | null} found @returns {Map<string, GameCommand[]>} */
  function targetsOf(found) {
    /** @type {Map<string, GameCommand[]>} */
    const targets = new Map();
    if (!found?.prompt) return targets;
    for (const command of found.commands) {
      if (found.prompt.choices[command.type]?.allows !== "one_of") continue;
      const value = String(Object.values(command.args ?? {})[0]);
      targets.set(value, [...(targets.get(value) ?? []), command]);
    }
    return targets;
  }

  /** The legal targets where they are drawn (a region, a border, a card): click or Enter to choose. @param {Map<string, GameCommand[]>} targets */
  function wireTargets(targets) {
    const at = legal?.version;
    for (const element of board.querySelectorAll("[data-target]")) {
      const commands = targets.get(element.getAttribute("data-target") ?? "");
      if (!commands || element.classList.contains("target")) continue; // not a target, or wired already
      element.classList.add("target");
      element.setAttribute("tabindex", "0");
      element.setAttribute("role", "button");
      const doing = commands.map((c) => words(c.type)).join(" or ");
      const label = element.getAttribute("aria-label");
      // the name says what choosing it does; drawn text stays part of the name (no label replaces it)
      if (label !== null) element.setAttribute("aria-label", `${label}: ${doing}`);
      else element.append(h("span.visually-hidden", null, `: ${doing}`));
      const choose = () => {
        const error = /** @type {HTMLElement} */ (document.getElementById("command-error") ?? h("p"));
        if (commands.length === 1 && commands[0]) { send(commands[0], error, at); return; }
        const first = promptBox.querySelector(`button[data-value="${CSS.escape(element.getAttribute("data-target") ?? "")}"]`);
        if (first instanceof HTMLElement) first.focus();
        announce(`Choose: ${commands.map((c) => words(c.type)).join(" or ")}`);
      };
      element.addEventListener("click", choose);
      element.addEventListener("keydown", (/** @type {Event} */ e) => {
        const key = /** @type {KeyboardEvent} */ (e).key;
        if (key === "Enter" || key === " ") { e.preventDefault(); choose(); }
      });
    }
  }

  /** The legal command whose one argument is `value` (a list compared as a set). @param {GameCommand[]} commands @param {unknown} value */
  function matching(commands, value) {
    const key = (/** @type {unknown} */ v) => JSON.stringify(Array.isArray(v) ? [...v].map(String).sort() : v);
    return commands.find((c) => key(Object.values(c.args ?? {})[0]) === key(value));
  }

  /** A command chosen at version `at` carries it (`expected_version`): if the game moved on meanwhile
   * (a stale confirm, a slow click), the server refuses it with 409 and the table is drawn afresh.
   * @param {GameCommand | undefined} command @param {HTMLElement} error @param {number | undefined} at */
  async function send(command, error, at) {
    if (!command) { error.textContent = "That choice is not among the moves allowed now."; return; }
    const kind = layout();
    if (kind.handsOver.has(command.type) && !(await confirmHandOver(command))) return;
    for (const button of promptBox.querySelectorAll("button")) /** @type {HTMLButtonElement} */ (button).disabled = true;
    try {
      await api.submit(id, at === undefined ? command : { ...command, expected_version: at });
      error.textContent = "";
      notice.textContent = "";
      await refresh();
      focusPrompt();
    } catch (failure) {
      if (failure instanceof ProblemError && failure.problem.status === 409) {
        notice.textContent = "The game moved on before your move arrived, so it was not played: the table is up to date, choose again.";
        drawn = "";
        await refresh();
        focusPrompt();
        return;
      }
      error.textContent = ctx.reason(failure);
      drawn = ""; // draw the prompt again (its buttons were disabled while sending)
      await refresh();
      const shown = document.getElementById("command-error");
      if (shown) shown.textContent = ctx.reason(failure);
    }
  }

  /** A confirm before a move that hands the turn over. @param {GameCommand} command @returns {Promise<boolean>} */
  function confirmHandOver(command) {
    return new Promise((resolve) => {
      const box = h("div.confirm", { role: "alertdialog", "aria-labelledby": "confirm-text" });
      confirming = true;
      const done = (/** @type {boolean} */ answer) => {
        confirming = false; box.remove(); resolve(answer);
        if (!answer) { drawn = ""; scheduleRefresh(); }
      };
      const yes = h("button", { type: "button", id: "confirm-yes", onclick: () => done(true) }, `Yes: ${words(command.type)}`);
      fill(box, h("p", { id: "confirm-text" }, `${words(command.type)} hands the turn over. Send it?`),
        yes, h("button", { type: "button", id: "confirm-no", onclick: () => done(false) }, "Not yet"));
      box.addEventListener("keydown", (e) => { if (/** @type {KeyboardEvent} */ (e).key === "Escape") done(false); });
      promptBox.append(box);
      yes.focus();
    });
  }

  function reopen() {
    openStream();
  }

  (async () => {
    await refresh();
    try { addEvents(await allEvents(id, 0)); } catch (error) { logList.append(h("li.error", null, ctx.reason(error))); }
    openStream();
  })();
  const online = () => { drawn = ""; scheduleRefresh(); reopen(); };
  window.addEventListener("online", online);
  return () => {
    closed = true; window.clearTimeout(retry); window.clearTimeout(logTimer); source?.close();
    window.removeEventListener("online", online);
  };
}

/** A choice group is one Tab stop: arrow keys (and Home, End) move between its choices, and Tab
 * leaves it (a roving tabindex); a subset's confirm stays a stop of its own. @param {Element} group */
function roving(group) {
  const items = /** @type {HTMLElement[]} */ ([...group.querySelectorAll("button:not(.confirm)")]);
  if (items.length < 2) return;
  items.forEach((item, i) => item.setAttribute("tabindex", i === 0 ? "0" : "-1"));
  group.addEventListener("keydown", (/** @type {Event} */ e) => {
    const key = /** @type {KeyboardEvent} */ (e).key;
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (at < 0) return;
    const next = key === "ArrowRight" || key === "ArrowDown" ? (at + 1) % items.length
      : key === "ArrowLeft" || key === "ArrowUp" ? (at - 1 + items.length) % items.length
      : key === "Home" ? 0 : key === "End" ? items.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    items[at]?.setAttribute("tabindex", "-1");
    items[next]?.setAttribute("tabindex", "0");
    items[next]?.focus();
  });
}

/** Every seat at the table: the game's seats, and the seats only the view has (Wakhan's).
 * @param {Game} game @param {any} view @returns {{seat: number, name?: string | null, bot?: any}[]} */
function seatsAtTable(game, view) {
  const extra = (view?.players ?? []).map((/** @type {any} */ p) => p.seat)
    .filter((/** @type {number} */ n) => !game.seats.some((s) => s.seat === n));
  return [...game.seats, ...extra.map((/** @type {number} */ seat) => ({ seat }))];
}

/** @param {Game} game @param {(n: number) => string} nameOf */
function finishedText(game, nameOf) {
  const outcome = game.outcome;
  if (!outcome) return "The game is over.";
  const scores = Object.entries(outcome.scores).map(([s, score]) => `${nameOf(Number(s))} ${score}`).join(", ");
  return `The game is over. Winner${outcome.winners.length === 1 ? "" : "s"}: ${outcome.winners.map(nameOf).join(", ")}. Scores: ${scores}.`;
}
