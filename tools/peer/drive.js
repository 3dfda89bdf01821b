'use strict';
// The peer's load: --games concurrent two-player Pico games on the peer server, each player its
// own boardgame.io client (its own socket.io connection, websocket transport), for --seconds.
// Games are played one after another in each slot, as parlor-sessions-load --mode=pvp plays them:
// a match is created and joined through the Lobby API, then one move at a time, the mover chosen
// among the seats that may act and its card at random from its legal cards.
//
// A move's latency runs from the mover's client sending it to that client holding the server's
// next state (moves are decided by the server, `client: false`); the other player's client then
// catches up, untimed, before the next move (as Parlor's next mover reads its game). Prints one
// JSON line: moves, seconds, moves_per_second, p50_ms, p99_ms, games_finished, errors.
//   node drive.js --server=127.0.0.1:8000 --games=32 --seconds=10
const {performance} = require('node:perf_hooks');
const {Client, LobbyClient} = require('boardgame.io/client');
const {SocketIO} = require('boardgame.io/multiplayer');
const {Pico, legalCards, SEATS} = require('./pico.js');
const {parseFlags} = require('./flags.js');

const flags = parseFlags(process.argv.slice(2), {
  server: '127.0.0.1:8000', games: '1', seconds: '10', move_timeout_ms: '10000',
});
const games = Number(flags.games);
const moveTimeoutMs = Number(flags.move_timeout_ms);

// One subscription per client (boardgame.io 0.50 numbers subscribers by their count, so one that
// unsubscribes lets the next overwrite another): its states go to the waiters of stateWhere.
function watch(client) {
  const watched = {client, state: null, waiters: []};
  client.subscribe((state) => {
    if (state === null) return;
    watched.state = state;
    watched.waiters = watched.waiters.filter((waiter) => !waiter(state));
  });
  return watched;
}

// Resolves with the watched client's state once `done(state)` holds; rejects after the move
// timeout (the peer's server drops a refused or stale move without an answer).
function stateWhere(watched, done) {
  if (watched.state !== null && done(watched.state)) return Promise.resolve(watched.state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      watched.waiters = watched.waiters.filter((waiter) => waiter !== check);
      reject(new Error(`no state after ${moveTimeoutMs} ms`));
    }, moveTimeoutMs);
    const check = (state) => {
      if (!done(state)) return false;
      clearTimeout(timer);
      resolve(state);
      return true;
    };
    watched.waiters.push(check);
  });
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];

async function playOneGame(lobby, slot, deadline, latencies) {
  const {matchID} = await lobby.createMatch('pico', {numPlayers: 2});
  const clients = [];
  for (const seat of SEATS) {
    const {playerCredentials} =
        await lobby.joinMatch('pico', matchID, {playerID: seat, playerName: `p${slot}-${seat}`});
    clients.push(Client({
      game: Pico,
      matchID,
      playerID: seat,
      credentials: playerCredentials,
      multiplayer: SocketIO({server: flags.server, socketOpts: {transports: ['websocket']}}),
      debug: false,
    }));
  }
  let moves = 0;
  try {
    const watched = clients.map(watch);
    for (const client of clients) client.start();
    let states = await Promise.all(watched.map((w) => stateWhere(w, () => true)));
    while (performance.now() < deadline && !states[0].ctx.gameover) {
      const seat = pick(SEATS.filter((s) => legalCards(states[Number(s)].G, s).length > 0));
      const mover = watched[Number(seat)];
      const before = states[Number(seat)]._stateID;
      const sent = performance.now();
      mover.client.moves.play(pick(legalCards(states[Number(seat)].G, seat)));
      await stateWhere(mover, (state) => state._stateID > before);
      const answered = performance.now();
      if (answered <= deadline) {
        latencies.push(answered - sent);
        ++moves;
      }
      states = await Promise.all(watched.map((w) => stateWhere(w, (s) => s._stateID > before)));
    }
    return {moves, finished: Boolean(states[0].ctx.gameover)};
  } finally {
    for (const client of clients) client.stop();
  }
}

async function slotLoop(lobby, slot, deadline, latencies, totals) {
  while (performance.now() < deadline) {
    try {
      const {finished} = await playOneGame(lobby, slot, deadline, latencies);
      if (finished) ++totals.finished;
    } catch (error) {
      ++totals.errors;
      if (totals.errors <= 3) console.error(`slot ${slot}: ${error.message}`);
    }
  }
}

function percentile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const lobby = new LobbyClient({server: `http://${flags.server}`});
  const latencies = [];
  const totals = {finished: 0, errors: 0};
  const start = performance.now();
  const deadline = start + 1000 * Number(flags.seconds);
  const slots = [];
  for (let slot = 0; slot < games; ++slot) {
    slots.push(slotLoop(lobby, slot, deadline, latencies, totals));
  }
  await Promise.all(slots);
  const seconds = (deadline - start) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({
    games,
    moves: latencies.length,
    seconds,
    moves_per_second: latencies.length / seconds,
    p50_ms: percentile(latencies, 0.50),
    p99_ms: percentile(latencies, 0.99),
    games_finished: totals.finished,
    errors: totals.errors,
  }));
  // socket.io's reconnection timers would keep the process alive.
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
