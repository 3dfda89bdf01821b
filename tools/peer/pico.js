'use strict';
// Two-player Pico written for boardgame.io 0.50, the peer of the durable-move benchmark
// (docs/BENCHMARKS.md): what a team would write on that framework to play the game Parlor's engine
// plays (engine/games/pico/RULES.md), so that both sides do the same game's work per move. The
// rules are the project's; this file is the benchmark's fixture, not a second engine, and has no
// dependency so that `node --test` checks it without the framework installed.

// boardgame.io's own values, spelled out so that the rules load without the package:
// INVALID_MOVE from boardgame.io/core, and ActivePlayers.ALL (every seat may act, in any order).
const INVALID_MOVE = 'INVALID_MOVE';
const EVERY_SEAT_MAY_ACT = {all: null};

const CARDS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16];
const POINTS = {2: 1, 3: 1, 4: 1, 5: 2, 6: 2, 7: 2, 8: 3, 9: 3, 10: 3, 11: 3, 12: 3, 13: 3, 16: 4};
const SEATS = ['0', '1'];
const ROUND_COUNTS = [2, 4, 6];

const ascending = (cards) => [...cards].sort((a, b) => a - b);
const opponentOf = (seat) => (seat === '0' ? '1' : '0');

// The higher card takes the trick unless it is more than twice the lower: 8 beats 4, 4 beats 9.
function winningCard(a, b) {
  const high = Math.max(a, b);
  const low = Math.min(a, b);
  return high > 2 * low ? low : high;
}

function startRound(G, hand0, hand1) {
  G.hands = {'0': ascending(hand0), '1': ascending(hand1)};
  G.won = {'0': [], '1': []};
  G.roundScores.push([0, 0]);
  G.trick = 1;
  G.pending = {'0': null, '1': null};
}

// The first round of each pair: six cards each from the shuffled order, the thirteenth face up.
function dealRound(G, shuffled) {
  G.dealt = {'0': ascending(shuffled.slice(0, 6)), '1': ascending(shuffled.slice(6, 12))};
  G.faceUp = shuffled[12];
  startRound(G, G.dealt['0'], G.dealt['1']);
}

function roundsOf(setupData) {
  return setupData && setupData.rounds !== undefined ? setupData.rounds : 2;
}

function resolveTrick(G, random) {
  const played = {'0': G.pending['0'], '1': G.pending['1']};
  const card = winningCard(played['0'], played['1']);
  const seat = played['0'] === card ? '0' : '1';
  const points = POINTS[card];
  G.hands[seat] = G.hands[seat].filter((c) => c !== card);
  G.won[seat] = ascending([...G.won[seat], card]);
  G.roundScores[G.roundScores.length - 1][Number(seat)] += points;
  G.totals[Number(seat)] += points;
  G.tricks.push({round: G.round, trick: G.trick, played, card, seat, points});
  G.pending = {'0': null, '1': null};
  G.trick += 1;
  if (G.hands['0'].length > 1 && G.hands['1'].length > 1) return;
  // A round ends the moment a hand holds one card; the next begins in the same step.
  if (G.round === G.rounds) {
    G.over = true;
    return;
  }
  G.round += 1;
  if (G.round % 2 === 0) {
    startRound(G, G.dealt['1'], G.dealt['0']);  // the return round: the dealt hands swapped
  } else {
    dealRound(G, random.Shuffle(CARDS));
  }
}

const Pico = {
  name: 'pico',
  minPlayers: 2,
  maxPlayers: 2,

  validateSetupData: (setupData, numPlayers) => {
    if (numPlayers !== 2) return 'Pico is for exactly two players';
    if (!ROUND_COUNTS.includes(roundsOf(setupData))) return 'rounds must be 2, 4 or 6';
    return undefined;
  },

  setup: ({random}, setupData) => {
    const G = {
      rounds: roundsOf(setupData),
      round: 1,
      roundScores: [],
      totals: [0, 0],
      tricks: [],
      over: false,
    };
    dealRound(G, random.Shuffle(CARDS));
    return G;
  },

  turn: {activePlayers: EVERY_SEAT_MAY_ACT},

  moves: {
    // The server decides every move (client: false), as Parlor's does: the mover's client waits for
    // the server's state instead of showing its own guess.
    play: {
      client: false,
      move: ({G, playerID, random}, card) => {
        if (G.over || G.pending[playerID] !== null) return INVALID_MOVE;
        if (!Number.isInteger(card) || !G.hands[playerID].includes(card)) return INVALID_MOVE;
        G.pending[playerID] = card;
        if (G.pending[opponentOf(playerID)] !== null) resolveTrick(G, random);
        return undefined;
      },
    },
  },

  endIf: ({G}) => {
    if (!G.over) return undefined;
    if (G.totals[0] === G.totals[1]) return {draw: true};
    return {winner: G.totals[0] > G.totals[1] ? '0' : '1'};
  },

  // A chosen card stays secret until both have chosen: others see only that the seat has chosen.
  playerView: ({G, playerID}) => {
    const pending = {};
    for (const seat of SEATS) {
      const card = G.pending[seat];
      pending[seat] = card === null || seat === playerID ? card : 'chosen';
    }
    return {...G, pending};
  },
};

// A seat's legal cards in its own view: its hand while it has not chosen, else none.
function legalCards(G, seat) {
  if (G.over || G.pending[seat] !== null) return [];
  return G.hands[seat];
}

module.exports = {Pico, legalCards, winningCard, CARDS, POINTS, SEATS};
