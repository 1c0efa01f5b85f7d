// @ts-check
// The API, as the web client calls it: fetch with the player's token in the Authorization
// header (never in a URL), JSON in and out, every error a Problem (application/problem+json).
// The types are the ones openapi-typescript generates from openapi.yaml (clients/typescript).

/** @typedef {import("../../typescript/src/generated/api").components["schemas"]} Schemas */
/** @typedef {Schemas["Game"]} Game */
/** @typedef {Schemas["LobbyGame"]} LobbyGame */
/** @typedef {Schemas["GameList"]} GameList */
/** @typedef {Schemas["GameType"]} GameType */
/** @typedef {Schemas["Option"]} Option */
/** @typedef {Schemas["CardCatalogue"]} CardCatalogue */
/** @typedef {Schemas["State"]} State */
/** @typedef {Schemas["LegalCommands"]} LegalCommands */
/** @typedef {Schemas["GameCommand"]} GameCommand */
/** @typedef {Schemas["Event"]} GameEvent */
/** @typedef {Schemas["EventPage"]} EventPage */
/** @typedef {Schemas["Replay"]} Replay */
/** @typedef {Schemas["ReplayStep"]} ReplayStep */
/** @typedef {Schemas["Problem"]} Problem */
/** @typedef {Schemas["PlayerWithToken"]} PlayerWithToken */
/** @typedef {Schemas["SignInLink"]} SignInLink */
/** @typedef {Schemas["PlayerGames"]} PlayerGames */
/** @typedef {Schemas["Joined"]} Joined */
/** @typedef {Schemas["CommandResult"]} CommandResult */
/** @typedef {Schemas["StreamTicket"]} StreamTicket */
/** @typedef {Schemas["Prompt"]} Prompt */
/** @typedef {Schemas["PromptChoice"]} PromptChoice */

const KEY = "game-service.player";
/** set in a tab signed out of a remembered player: that tab no longer falls back to localStorage */
const OUT = "game-service.signed-out-here";

/** An error answer, with the server's readable reason. */
export class ProblemError extends Error {
  /** @param {Problem} problem */
  constructor(problem) {
    super(problem.detail || problem.title);
    this.problem = problem;
  }
}

/**
 * The signed-in player of this tab. The token lives in sessionStorage (each tab may be
 * another player), or also in localStorage when the player asked to be remembered.
 * @returns {PlayerWithToken | null}
 */
export function me() {
  const saved = sessionStorage.getItem(KEY) ?? (sessionStorage.getItem(OUT) ? null : localStorage.getItem(KEY));
  if (!saved) return null;
  try { return JSON.parse(saved); } catch { return null; }
}

/** @param {PlayerWithToken | null} player @param {boolean} [remember] */
export function setMe(player, remember = localStorage.getItem(KEY) !== null) {
  if (player === null) {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
    return;
  }
  const text = JSON.stringify(player);
  sessionStorage.removeItem(OUT);
  sessionStorage.setItem(KEY, text);
  if (remember) localStorage.setItem(KEY, text); else localStorage.removeItem(KEY);
}

/** This tab forgets its player (the token stays valid: other tabs and devices keep it). */
export function leaveThisTab() {
  const player = me();
  sessionStorage.removeItem(KEY);
  sessionStorage.setItem(OUT, "1");
  // the browser's remembered player was this one: another tab already holding it keeps it in its own storage
  if (player && localStorage.getItem(KEY) && JSON.parse(localStorage.getItem(KEY) ?? "{}").id === player.id) localStorage.removeItem(KEY);
}

/**
 * @template T
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [extra]
 * @returns {Promise<T>}
 */
export async function call(method, path, body, extra = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", ...extra };
  const player = me();
  if (player) headers.Authorization = `Bearer ${player.token}`;
  /** @type {RequestInit} */
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ProblemError({ type: "about:blank", title: "Offline", status: 0, code: "offline",
                             detail: "the server cannot be reached; check the connection and try again" });
  }
  if (response.status === 204) return /** @type {T} */ (/** @type {unknown} */ (null));
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ProblemError(data ?? { type: "about:blank", title: response.statusText, status: response.status,
                                     code: "http_error", detail: `${response.status} ${response.statusText}` });
  }
  return data;
}

const path = encodeURIComponent;

export const api = {
  /** @param {string} name @returns {Promise<PlayerWithToken>} */
  createPlayer: (name) => call("POST", "/players", { name }),
  /** @returns {Promise<PlayerWithToken>} */
  rotateToken: async () => {
    // an answer lost on the way would leave this tab holding a dead token: the retry, with the
    // same key and the old token, is answered with the same new token (docs/api.md, Tokens)
    const key = { "Idempotency-Key": crypto.randomUUID() };
    try {
      return await call("POST", "/players/me/token", undefined, key);
    } catch (error) {
      if (!(error instanceof ProblemError) || error.problem.code !== "offline") throw error;
      return await call("POST", "/players/me/token", undefined, key);
    }
  },
  /** @returns {Promise<SignInLink>} a one-time code signing another tab or device in as me */
  createSignInLink: () => call("POST", "/players/me/sign-in-links"),
  /** @param {string} code @returns {Promise<PlayerWithToken>} */
  signIn: (code) => call("POST", "/sign-in", { code }),
  /** @returns {Promise<null>} */
  revokeToken: () => call("DELETE", "/players/me/token"),
  /** @returns {Promise<GameType[]>} */
  gameTypes: () => call("GET", "/game-types"),
  /** @param {string} type @returns {Promise<CardCatalogue>} what every card of the game says */
  cardCatalogue: (type) => call("GET", `/game-types/${path(type)}/cards`),
  /** @param {{type?: string, status?: string, limit?: number, offset?: number}} query @returns {Promise<GameList>} */
  lobby: (query) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(key, String(value));
    return call("GET", `/games?${params}`);
  },
  /** @param {string} playerId @returns {Promise<PlayerGames>} */
  playerGames: (playerId) => call("GET", `/players/${path(playerId)}/games`),
  /** @param {string} type @param {number} seats @param {Record<string, unknown>} options
   *  @param {{kind: string, level?: string, seat?: number}[]} [bots] computer opponents' seats
   *  @param {{private?: boolean, stand_in?: {kind: string, level?: string} | null}} [table] a private
   *  table; the stand-in for a player who leaves (null: none) @returns {Promise<Game>} */
  createGame: (type, seats, options, bots = [], table = {}) => call("POST", "/games", { type, seats, options, bots, ...table }),
  /** @param {string} id @returns {Promise<Game>} */
  game: (id) => call("GET", `/games/${path(id)}`),
  /** @param {string} id @returns {Promise<Joined>} */
  join: (id) => call("POST", `/games/${path(id)}/join`, {}),
  /** @param {string} id @param {number} [at] @returns {Promise<State>} */
  state: (id, at) => call("GET", `/games/${path(id)}/state${at === undefined ? "" : `?at=${at}`}`),
  /** @param {string} id @returns {Promise<LegalCommands>} */
  legal: (id) => call("GET", `/games/${path(id)}/legal-commands`),
  /** @param {string} id @param {GameCommand} command @returns {Promise<CommandResult>} */
  submit: (id, command) => call("POST", `/games/${path(id)}/commands`, command,
                                { "Idempotency-Key": crypto.randomUUID() }),
  /** @param {string} id @returns {Promise<CommandResult>} */
  undo: (id) => call("POST", `/games/${path(id)}/undo`, undefined, { "Idempotency-Key": crypto.randomUUID() }),
  /** @param {string} id @param {number} after @returns {Promise<EventPage>} */
  events: (id, after) => call("GET", `/games/${path(id)}/events?after=${after}&limit=500`),
  /** @param {string} id @param {number} after @param {number | null} [asSeat] each step as this seat saw it
   *  @param {number} [viewEvery] which steps carry their view (0: none) @param {number} [limit]
   *  @returns {Promise<Replay>} */
  replay: (id, after, asSeat = null, viewEvery = 1, limit = 200) =>
    call("GET", `/games/${path(id)}/replay?after=${after}&limit=${limit}&view_every=${viewEvery}${asSeat === null ? "" : `&as_seat=${asSeat}`}`),
  /** @param {string} id @returns {Promise<StreamTicket>} */
  streamTicket: (id) => call("POST", `/games/${path(id)}/stream-ticket`),
};

/** Every event of a game after `after`, page by page. @param {string} id @param {number} after */
export async function allEvents(id, after = 0) {
  /** @type {GameEvent[]} */
  const events = [];
  let next = /** @type {number | null} */ (after);
  while (next !== null) {
    const page = await api.events(id, next);
    events.push(...page.events);
    next = page.next_after ?? null;
  }
  return events;
}
