// boardgame.io's server (Koa + socket.io) hosting game.js, for bench/bench_side_by_side.py.
//   node server.js --port 8200 [--store flatfile|flatfile-queued|memory] [--dir DIR]
//
// flatfile (the default): boardgame.io's FlatFile storage writing each move's files before
// the move is answered, as the project commits each move. FlatFile hands node-persist only
// its directory, so node-persist 3.1's write queue (files written once a second, each
// write's promise held until then) would hold every move up to a second; "flatfile-queued"
// keeps that default. "memory": boardgame.io's in-memory storage, nothing on disk.
const { Server, FlatFile } = require("boardgame.io/server");
const { SecretHands } = require("./game");

const args = Object.fromEntries(
  process.argv.slice(2).join(" ").split("--").filter(Boolean).map((p) => p.trim().split(/\s+/))
);
const port = Number(args.port || 8200);
const store = args.store || "flatfile";
const dir = args.dir || "./peer-data";

class WriteThroughFlatFile extends FlatFile {
  async connect() {
    await this.games.init({ dir: this.dir, logging: this.logging, ttl: this.ttl, writeQueue: false });
  }
}

const options = { games: [SecretHands], origins: ["*"] };
if (store === "flatfile") options.db = new WriteThroughFlatFile({ dir, logging: false });
else if (store === "flatfile-queued") options.db = new FlatFile({ dir, logging: false });
else if (store !== "memory") throw new Error(`unknown --store ${store}`);

Server(options).run({ port, callback: () => console.log(`listening on ${port} (${store})`) });
