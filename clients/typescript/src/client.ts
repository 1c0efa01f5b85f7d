// A small client written against the types openapi-typescript generates from openapi.yaml
// (`npm run check` regenerates them and runs `tsc --noEmit`). If the contract loses a type,
// an operation id or a field this client relies on, the check fails.
import type { components, operations } from "./generated/api";

type Schemas = components["schemas"];
export type Game = Schemas["Game"];
export type GameCommand = Schemas["GameCommand"];
export type GameView = Schemas["GameView"];
export type LegalCommands = Schemas["LegalCommands"];
export type Problem = Schemas["Problem"];

type Json<Op extends keyof operations, Status extends number> =
  operations[Op]["responses"] extends Record<Status, { content: { "application/json": infer Body } }> ? Body : never;

/** An error answer: application/problem+json, with a stable `code` and `type` /problems/{code}. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
  }
}

export class GameClient {
  constructor(private readonly baseUrl: string, private readonly token?: string) {}

  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}):
      Promise<{ status: number; body: T | undefined; etag: string | null }> {
    const init: RequestInit = { method, headers: { ...headers } };
    const sent = init.headers as Record<string, string>;
    if (this.token !== undefined) sent["Authorization"] = `Bearer ${this.token}`;
    if (body !== undefined) {
      sent["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(this.baseUrl + path, init);
    if (response.status >= 400) throw new ProblemError((await response.json()) as Problem);
    const parsed = response.status === 304 ? undefined : ((await response.json()) as T);
    return { status: response.status, body: parsed, etag: response.headers.get("ETag") };
  }

  async createPlayer(name: string): Promise<Json<"createPlayer", 201>> {
    const body: Schemas["NewPlayer"] = { name };
    return (await this.call<Json<"createPlayer", 201>>("POST", "/players", body)).body!;
  }

  async createGame(type: Schemas["NewGame"]["type"], seats: number, options: Schemas["NewGame"]["options"] = {}): Promise<Game> {
    const body: Schemas["NewGame"] = { type, seats, options };
    return (await this.call<Json<"createGame", 201>>("POST", "/games", body)).body!;
  }

  async joinGame(gameId: string, seat?: number): Promise<Json<"joinGame", 200>> {
    const body: Schemas["Join"] = seat === undefined ? {} : { seat };
    return (await this.call<Json<"joinGame", 200>>("POST", `/games/${gameId}/join`, body)).body!;
  }

  async getLegalCommands(gameId: string): Promise<LegalCommands> {
    return (await this.call<Json<"getLegalCommands", 200>>("GET", `/games/${gameId}/legal-commands`)).body!;
  }

  async submitCommand(gameId: string, command: GameCommand): Promise<Json<"submitCommand", 201>> {
    return (await this.call<Json<"submitCommand", 201>>("POST", `/games/${gameId}/commands`, command)).body!;
  }

  /** The caller's view; with the ETag of an earlier answer, null while nothing changed (304). */
  async getState(gameId: string, etag?: string): Promise<{ state: Json<"getState", 200>; etag: string } | null> {
    const headers: Record<string, string> = etag === undefined ? {} : { "If-None-Match": etag };
    const answer = await this.call<Json<"getState", 200>>("GET", `/games/${gameId}/state`, undefined, headers);
    if (answer.status === 304 || answer.body === undefined) return null;
    return { state: answer.body, etag: answer.etag ?? "" };
  }

  async listGames(query: NonNullable<operations["listGames"]["parameters"]["query"]> = {}):
      Promise<Json<"listGames", 200>> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    return (await this.call<Json<"listGames", 200>>("GET", `/games?${params}`)).body!;
  }
}

/** The commands a game waits for come typed: each can be posted as it is. */
export async function playFirstLegalCommand(client: GameClient, gameId: string): Promise<number> {
  const legal = await client.getLegalCommands(gameId);
  const first: GameCommand | undefined = legal.commands[0];
  if (first === undefined) return legal.version;
  switch (first.type) {  // the union narrows on `type`
    case "SubmitTribute":
    case "PlaceNoble":
      console.log(`${first.type} ${first.args.card}`);
      break;
    case "ChooseConclaveCards":
    case "RetireNobles":
      console.log(first.type, first.args);
      break;
  }
  return (await client.submitCommand(gameId, first)).version;
}

/** A view names its game; the outcome is a typed object, not a map. */
export function describe(game: Game, view: GameView | null): string {
  const winners = game.outcome === null ? "no winner yet" : `winners ${game.outcome.winners.join(", ")}`;
  const kind: GameView["game"] | undefined = view?.game;
  return `${game.type} (${kind ?? "not started"}), version ${game.version}: ${winners}`;
}

export function problemPage(problem: Problem, server: string): string {
  return new URL(problem.type, server).toString();  // /problems/{code}, relative to the server
}
