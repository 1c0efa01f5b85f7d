// @ts-check
// The life of a table around its moves (issue 37), beside the game frame of table.js: invite a
// friend by link, accept an invitation's link, resign, propose to end, abort, rematch, chat; and
// the player's notices, fed by their own stream (GET /players/me/stream, opened with a ticket).
// Everything comes from the API; the page asks again every two seconds while it is open.
import { call, me } from "./api.js";
import { h, fill, announce } from "./dom.js";

/** @typedef {import("./api.js").Game} Game */
/** @typedef {{main: HTMLElement, reason: (error: unknown) => string}} Context */

const path = encodeURIComponent;
const REFRESH_MS = 2000;

/**
 * The table's panel: what may be done around the moves now, and the chat.
 * @param {Context} ctx @param {string} id @returns {() => void}
 */
export function tableLife(ctx, id) {
  const player = me();
  const actions = h("div.life-actions", { id: "table-actions" });
  const said = h("p.status", { id: "table-life-status", role: "status" });
  const invite = h("div.invite", { id: "invite" });
  const messages = h("ol.chat", { id: "chat-messages", "aria-labelledby": "chat-title", tabindex: 0 });
  const text = /** @type {HTMLInputElement} */ (h("input", { id: "chat-text", maxlength: 500, autocomplete: "off",
                                                              "aria-label": "Message" }));
  const form = h("form.chat-form", { onsubmit: async (/** @type {Event} */ event) => {
    event.preventDefault();
    if (!text.value.trim()) return;
    try {
      await call("POST", `/games/${path(id)}/chat`, { text: text.value });
      text.value = "";
      await refresh();
    } catch (error) { said.textContent = ctx.reason(error); }
  } }, text, h("button", { type: "submit", id: "chat-send" }, "Send"));
  const panel = h("section.life", { "aria-label": "Around the table" },
    h("h2", null, "Around the table"), actions, invite, said,
    h("h2", { id: "chat-title" }, "Chat"), messages, player ? form : h("p", null, "Sign in to chat."));
  ctx.main.append(panel);

  let closed = false;
  let timer = 0;
  let lastMessage = 0;
  let drawn = "";

  /** @param {string} label @param {string} name @param {() => Promise<unknown>} act @param {string} [confirm] */
  function button(label, name, act, confirm) {
    return h("button", { type: "button", id: name, onclick: async () => {
      if (confirm && !window.confirm(confirm)) return;
      try {
        await act();
        said.textContent = "";
        await refresh();
      } catch (error) { said.textContent = ctx.reason(error); }
    } }, label);
  }

  /** @param {Game} game */
  function drawActions(game) {
    const mine = player ? game.seats.find((s) => s.player_id === player.id)?.seat ?? null : null;
    const left = player ? game.seats.find((s) => s.stand_in_for === player.id)?.seat ?? null : null;
    const endings = game.endings ?? { end_votes: [], rematch_votes: [], rematch_declined: false, rematch: null };
    const key = JSON.stringify([game.status, game.version, endings, mine, left]);
    if (key === drawn) return;
    drawn = key;
    /** @type {(HTMLElement | string)[]} */
    const items = [];
    const post = (/** @type {string} */ what) => () => call("POST", `/games/${path(id)}/${what}`);
    const remove = (/** @type {string} */ what) => () => call("DELETE", `/games/${path(id)}/${what}`);
    if (game.status !== "waiting") fill(invite);
    if (game.status === "waiting" && player && (mine !== null || game.private)) {
      items.push(button("Invite a friend by link", "invite-link", async () => {
        const made = /** @type {any} */ (await call("POST", `/games/${path(id)}/invitations`, {}));
        const url = new URL(made.link, location.href).href;
        fill(invite, h("label", { for: "invite-url" }, "Send this link (it works once, until ",
          new Date(made.expires_at).toLocaleString(), "): "),
          h("input", { id: "invite-url", readonly: true, value: url, size: 60 }));
      }));
    }
    if (mine !== null && game.status !== "finished") {
      items.push(button("Abort (before the first move)", "abort", post("abort"), "Call the game off?"));
    }
    if (left !== null && game.status === "active") {
      items.push(`A computer opponent plays your seat ${left} since you left. `,
        button("Take your seat back", "reclaim", post("reclaim")));
    }
    if (mine !== null && game.status === "active") {
      const others = game.seats.filter((s) => s.seat !== mine && !s.bot).length;
      const goesOn = game.stand_in && game.seats.length >= 3 && others > 0;
      items.push(button("Resign", "resign", post("resign"), goesOn
        ? "Resign this game? A computer opponent takes your seat and the others play on; it counts as a loss."
        : "Resign this game? It ends now for everyone."));
      if (endings.end_votes.includes(mine)) {
        items.push(`You proposed to end the game (agreed: seats ${endings.end_votes.join(", ")}). `,
          button("Withdraw", "decline-end", remove("end-proposal")));
      } else if (endings.end_votes.length) {
        items.push(`Seats ${endings.end_votes.join(", ")} propose to end the game as a draw. `,
          button("Agree", "agree-end", post("end-proposal")), button("Decline", "decline-end", remove("end-proposal")));
      } else {
        items.push(button("Propose to end as a draw", "propose-end", post("end-proposal")));
      }
    }
    if (game.status === "finished" && game.outcome) {
      const reasonText = /** @type {any} */ (game.outcome.details)?.reason;
      if (reasonText) items.push(h("span", { id: "ended-how" }, `Ended: ${reasonText}. `));
      if (endings.rematch) {
        items.push(h("a", { id: "rematch-link", href: `#/game/${endings.rematch}` }, "Go to the rematch"));
      } else if (mine !== null) {
        if (endings.rematch_votes.includes(mine)) items.push("You offered a rematch; waiting for the others. ");
        else if (endings.rematch_votes.length) {
          items.push("A rematch is offered. ", button("Accept the rematch", "accept-rematch", post("rematch")),
            button("Decline", "decline-rematch", remove("rematch")));
        } else items.push(button("Offer a rematch", "offer-rematch", post("rematch")));
      }
    }
    fill(actions, ...items);
  }

  async function refresh() {
    if (closed) return;
    try {
      const game = /** @type {Game} */ (await call("GET", `/games/${path(id)}`));
      drawActions(game);
      const page = /** @type {any} */ (await call("GET", `/games/${path(id)}/chat?after=${lastMessage}&limit=100`));
      for (const message of page.messages) {
        if (message.id <= lastMessage) continue;  // two refreshes at once (a send and the timer) read the same page
        lastMessage = message.id;
        messages.append(h("li", { "data-id": message.id }, h("strong", null, message.name),
          message.room === "spectators" ? " (watching)" : "", ": ", message.text));
        announce(`${message.name} says: ${message.text}`);
      }
      if (page.messages.length) messages.scrollTop = messages.scrollHeight;
      lastMessage = Math.max(lastMessage, page.last_id);
    } catch (error) { said.textContent = ctx.reason(error); }
  }

  async function loop() {
    await refresh();
    if (!closed) timer = window.setTimeout(loop, REFRESH_MS);
  }
  loop();
  return () => { closed = true; window.clearTimeout(timer); panel.remove(); };
}

/**
 * The page an invitation's link opens (`#/invitation/GAME/INVITATION/CODE`; no code for an
 * invitation naming the player): accept it, and go to the table.
 * @param {Context} ctx @param {string} game @param {string} invitation @param {string | null} code
 * @returns {() => void}
 */
export function invitationPage(ctx, game, invitation, code) {
  const said = h("p.status", { role: "status", id: "invitation-status" });
  const accept = h("button", { type: "button", id: "accept-invitation", onclick: async () => {
    try {
      const joined = /** @type {any} */ (await call("POST",
        `/games/${path(game)}/invitations/${path(invitation)}/accept`, code ? { code } : {}));
      location.hash = `#/game/${joined.game.id}`;
    } catch (error) { said.textContent = ctx.reason(error); }
  } }, "Accept and take the seat");
  fill(ctx.main, h("h1", null, "An invitation to a game"),
    me() ? accept : h("p", null, "Register in the lobby first, then open the link again."), said);
  return () => {};
}

/** @type {EventSource | null} */
let feed = null;
let feedOf = "";
let lastNotice = 0;
let following = 0;  // one loop follows the feed: a newer one (another player, a sign-out) ends the older

/** The player's notices in the header, fed by their own stream (resumed after the last id).
 *  Called on every route: it starts following once per signed-in player. */
export function mountNotices() {
  const player = me();
  const header = document.querySelector("header.top");
  if (!header) return;
  let list = /** @type {HTMLElement | null} */ (document.getElementById("notices"));
  if (player && feedOf === player.id) return;  // already followed (or reopening)
  const mine = ++following;
  feed?.close();
  feed = null;
  feedOf = player?.id ?? "";
  lastNotice = 0;
  if (!player) {
    list?.remove();
    return;
  }
  if (!list) {
    list = h("ol.notices", { id: "notices", "aria-label": "Notifications", "aria-live": "polite" });
    header.append(list);
  }
  const target = list;
  target.replaceChildren();
  const open = async () => {
    if (mine !== following) return;
    try {
      const ticket = /** @type {any} */ (await call("POST", "/players/me/stream-ticket"));
      if (mine !== following) return;
      const source = new EventSource(`${ticket.stream_url}&after=${lastNotice}`);
      feed = source;
      source.onmessage = (event) => {
        const notice = JSON.parse(event.data);
        if (notice.id <= lastNotice) return;  // a resumed stream never repeats; this is a second guard
        lastNotice = notice.id;
        target.prepend(h("li", { "data-type": notice.type },
          h("a", { href: `#/game/${notice.data.game_id}` }, noticeText(notice))));
        while (target.children.length > 8) target.lastElementChild?.remove();
      };
      // the stream ended (the server's limit, a network cut): reopen with a new ticket, after the last notice
      source.onerror = () => {
        source.close();
        if (feed === source) feed = null;
        if (mine === following) window.setTimeout(open, 1000);
      };
    } catch { if (mine === following) window.setTimeout(open, 5000); }
  };
  open();
}

/** @param {{type: string, data: Record<string, any>}} notice */
function noticeText(notice) {
  const data = notice.data;
  switch (notice.type) {
    case "invitation_received": return `${data.by} invites you to a game`;
    case "invitation_declined": return `${data.invitee} declined your invitation`;
    case "invitation_cancelled": return "An invitation to you was cancelled";
    case "seated": return `You sit at seat ${data.seat}`;
    case "game_started": return "A game of yours started";
    case "your_turn": return `Your turn: ${data.prompt ?? "you are asked to move"}`;
    case "game_over": return "A game of yours is over";
    case "end_proposed": return "A player proposes to end a game as a draw";
    case "rematch_offered": return "A rematch is offered";
    case "rematch_started": return "The rematch started";
    case "chat_mention": return `${data.by} mentioned you: ${data.text}`;
    case "clock_warning": return `Your clock runs out at ${new Date(data.deadline).toLocaleString()}`;
    case "seat_taken_over": return `A computer opponent took your seat ${data.seat}: take it back from the game`;
    default: return notice.type;
  }
}
