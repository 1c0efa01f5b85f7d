// A 3-seat card game with secret hands, for the peer of bench/bench_side_by_side.py.
//
// A shuffled deck of DECK cards (values 1..DECK); each seat is dealt HAND cards. On its
// turn a seat plays one card of its hand face up: it scores the card's value when the
// card is higher than the top of the pile, and draws the deck's next card. The game ends
// when every hand is empty; the highest score wins. A seat sees its own hand only, and
// nobody sees the deck (playerView). Moves run on the server only (client: false), as a
// move that draws a hidden card must.
const { INVALID_MOVE } = require("boardgame.io/core");

const DECK = Number(process.env.PEER_DECK || 60);
const HAND = 5;

function setup({ random, ctx }) {
  const deck = random.Shuffle(Array.from({ length: DECK }, (_, i) => i + 1));
  const hands = {};
  const score = {};
  for (let seat = 0; seat < ctx.numPlayers; seat++) {
    hands[seat] = deck.splice(0, HAND);
    score[seat] = 0;
  }
  return { deck, hands, score, pile: [] };
}

function play({ G, ctx, playerID, events }, index) {
  const hand = G.hands[playerID];
  if (!Number.isInteger(index) || index < 0 || index >= hand.length) return INVALID_MOVE;
  const [card] = hand.splice(index, 1);
  const top = G.pile.length ? G.pile[G.pile.length - 1] : 0;
  if (card > top) G.score[playerID] += card;
  G.pile.push(card);
  if (G.deck.length) hand.push(G.deck.shift());
  events.endTurn();
}

function playerView({ G, playerID }) {
  const hands = {};
  for (const seat of Object.keys(G.hands)) {
    hands[seat] = seat === String(playerID) ? G.hands[seat] : G.hands[seat].length;
  }
  return { hands, score: G.score, pile: G.pile, deck: G.deck.length };
}

const SecretHands = {
  name: "secret-hands",
  minPlayers: 3,
  maxPlayers: 3,
  setup,
  playerView,
  moves: { play: { move: play, client: false } },
  endIf: ({ G }) => {
    if (Object.values(G.hands).some((hand) => hand.length)) return undefined;
    const best = Object.entries(G.score).sort((a, b) => b[1] - a[1])[0];
    return { winner: best[0] };
  },
};

module.exports = { SecretHands };
