// Drives server.js at saturation for bench/bench_side_by_side.py, as wrk drives the project.
//   node driver.js --url http://127.0.0.1:8200 --lanes 16 --matches 12 --seconds 10
//
// Each lane plays its matches one after the other, as fast as the server answers: three
// boardgame.io clients per match (one per seat, each on its own socket.io connection,
// with the credentials the lobby gave on join), the seat to move plays a random card of
// its hand. A move's latency runs from the move sent to the mover's client receiving the
// state that follows it. The matches are created, joined and connected before the
// timed part: this script prints "ready", waits for a line on stdin, plays for --seconds,
// then prints one JSON line (moves, latencies in seconds, errors) and exits.
const readline = require("readline");
const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const { SecretHands } = require("./game");

const args = Object.fromEntries(
  process.argv.slice(2).join(" ").split("--").filter(Boolean).map((p) => p.trim().split(/\s+/))
);
const url = args.url || "http://127.0.0.1:8200";
const lanes = Number(args.lanes || 16);
const perLane = Number(args.matches || 12);
const seconds = Number(args.seconds || 10);
const SEATS = 3;

async function lobby(path, body) {
  const answer = await fetch(`${url}/games/${SecretHands.name}${path}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return answer.json();
}

function until(client, check) {
  const now = client.getState();
  if (now && check(now)) return Promise.resolve(now);
  return new Promise((resolve) => {
    const stop = client.subscribe((state) => {
      if (state && check(state)) {
        stop();
        resolve(state);
      }
    });
  });
}

async function prepareMatch() {
  const { matchID } = await lobby("/create", { numPlayers: SEATS });
  const clients = [];
  for (let seat = 0; seat < SEATS; seat++) {
    const { playerCredentials } = await lobby(`/${matchID}/join`, { playerID: String(seat), playerName: `p${seat}` });
    const client = Client({ game: SecretHands, multiplayer: SocketIO({ server: url }), matchID,
                            playerID: String(seat), credentials: playerCredentials, debug: false });
    client.start();
    clients.push(client);
  }
  await Promise.all(clients.map((c) => until(c, (s) => s.isConnected && s._stateID >= 0 && s.G && s.G.hands)));
  return clients;
}

const latencies = [];
let moves = 0, errors = 0, finished = 0, exhausted = 0, stopAt = Infinity;

async function playLane(matches) {
  for (const clients of matches) {
    let state = clients[0].getState();
    while (Date.now() < stopAt) {
      if (state.ctx.gameover) { finished++; break; }
      const mover = clients[Number(state.ctx.currentPlayer)];
      const mine = await until(mover, (s) => s._stateID >= state._stateID);
      const hand = mine.G.hands[mover.playerID];
      const sent = process.hrtime.bigint();
      mover.moves.play(Math.floor(Math.random() * hand.length));
      const next = await Promise.race([
        until(mover, (s) => s._stateID > mine._stateID),
        new Promise((resolve) => setTimeout(resolve, 10000, null)),
      ]);
      if (next === null) { errors++; break; }
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e9);
      moves++;
      state = next;
    }
    if (Date.now() >= stopAt) return;
  }
  exhausted++;
}

async function main() {
  const all = await Promise.all(Array.from({ length: lanes }, async () => {
    const matches = [];
    for (let k = 0; k < perLane; k++) matches.push(await prepareMatch());
    return matches;
  }));
  process.stdout.write("ready\n");
  const input = readline.createInterface({ input: process.stdin });
  await new Promise((resolve) => input.once("line", resolve));
  const started = Date.now();
  stopAt = started + seconds * 1000;
  await Promise.all(all.map(playLane));
  const elapsed = (Date.now() - started) / 1000;
  for (const matches of all) for (const clients of matches) for (const c of clients) c.stop();
  input.close();
  // exit once the line is written: a pipe takes 64 KB at once, and exiting earlier cut a
  // long round's latencies off there
  process.stdout.write(JSON.stringify({ moves, elapsed, errors, finished, exhausted, latencies }) + "\n",
                       () => process.exit(0));
}

main().catch((error) => { console.error(error); process.exit(1); });
