'use strict';
// The peer's Pico plays the project's rules (engine/games/pico/RULES.md, its rule cases), so the
// benchmark compares the same game on both sides. Run: node --test tools/peer/
const test = require('node:test');
const assert = require('node:assert/strict');
const {Pico, legalCards, winningCard} = require('./pico.js');

// Deal D of the rule cases: Ann (seat 0) 2 5 8 10 12 16, Ben (seat 1) 3 4 6 9 11 13, the 7 face up.
const DEAL_D = [2, 5, 8, 10, 12, 16, 3, 4, 6, 9, 11, 13, 7];
const dealD = {Shuffle: () => [...DEAL_D]};

function newGame(setupData) {
  return Pico.setup({random: dealD}, setupData);
}

function play(G, seat, card) {
  return Pico.moves.play.move({G, playerID: seat, random: dealD}, card);
}

function trick(G, ann, ben) {
  assert.equal(play(G, '0', ann), undefined, `Ann's ${ann}`);
  assert.equal(play(G, '1', ben), undefined, `Ben's ${ben}`);
}

test('who takes a trick: the higher card, unless it is more than twice the lower', () => {
  assert.equal(winningCard(9, 7), 9, '9 <= 14');
  assert.equal(winningCard(8, 4), 8, 'exactly twice still wins');
  assert.equal(winningCard(3, 8), 3, '8 > 6');
  assert.equal(winningCard(4, 9), 4, '9 > 8');
  assert.equal(winningCard(16, 8), 16);
  assert.equal(winningCard(7, 16), 7, '16 > 14');
  assert.equal(winningCard(3, 2), 3);
  assert.equal(winningCard(2, 5), 2);
});

test('the deal: six each in ascending order, the thirteenth face up, both may act', () => {
  const G = newGame();
  assert.deepEqual(G.hands, {'0': [2, 5, 8, 10, 12, 16], '1': [3, 4, 6, 9, 11, 13]});
  assert.equal(G.faceUp, 7);
  assert.deepEqual(legalCards(G, '0'), [2, 5, 8, 10, 12, 16]);
  assert.deepEqual(legalCards(G, '1'), [3, 4, 6, 9, 11, 13]);
});

test('the winner scores its own dots and the loser goes back to the hand', () => {
  const G = newGame();
  trick(G, 12, 9);
  assert.deepEqual(G.totals, [3, 0]);
  assert.deepEqual(G.hands['0'], [2, 5, 8, 10, 16]);
  assert.deepEqual(G.hands['1'], [3, 4, 6, 9, 11, 13]);
  trick(G, 5, 13);
  assert.deepEqual(G.totals, [5, 0], 'a 5 that beats a 13 scores 2');
});

test('refused: the face-up card, the opponent\'s card, a won card, a second choice', () => {
  const G = newGame();
  assert.equal(play(G, '0', 7), 'INVALID_MOVE');
  assert.equal(play(G, '0', 13), 'INVALID_MOVE');
  assert.equal(play(G, '0', 14), 'INVALID_MOVE');
  trick(G, 12, 9);
  assert.equal(play(G, '0', 12), 'INVALID_MOVE', 'she won it this round');
  assert.equal(play(G, '0', 10), undefined);
  assert.equal(play(G, '0', 2), 'INVALID_MOVE', 'a choice is final');
  assert.equal(G.pending['0'], 10);
  assert.deepEqual(legalCards(G, '0'), []);
});

test('the chosen card is secret until both have chosen, and stays in the hand', () => {
  const G = newGame();
  play(G, '0', 10);
  const bens = Pico.playerView({G, playerID: '1'});
  assert.equal(bens.pending['0'], 'chosen');
  assert.ok(bens.hands['0'].includes(10));
  assert.equal(Pico.playerView({G, playerID: '0'}).pending['0'], 10);
  assert.equal(Pico.playerView({G, playerID: null}).pending['0'], 'chosen');
});

test('a round ends at one card, the return round swaps the dealt hands, equal totals draw', () => {
  const G = newGame();
  for (const [ann, ben] of [[12, 9], [5, 13], [10, 6], [2, 4], [16, 11], [8, 3], [8, 9], [2, 6]]) {
    trick(G, ann, ben);
  }
  assert.deepEqual(G.roundScores[0], [13, 5], 'round 1 ends after trick 8');
  assert.equal(G.round, 2);
  assert.deepEqual(G.hands, {'0': [3, 4, 6, 9, 11, 13], '1': [2, 5, 8, 10, 12, 16]});
  assert.equal(G.faceUp, 7);
  for (const [ann, ben] of [[13, 16], [3, 8], [4, 12], [6, 10], [11, 12], [13, 5], [9, 8], [6, 2]]) {
    trick(G, ann, ben);
  }
  assert.deepEqual(G.roundScores[1], [5, 13]);
  assert.deepEqual(G.totals, [18, 18]);
  assert.deepEqual(Pico.endIf({G}), {draw: true});
  assert.deepEqual(legalCards(G, '0'), []);
  assert.equal(play(G, '1', 8), 'INVALID_MOVE', 'nothing happens after the end');
});

test('four rounds deal afresh for round 3; odd round counts are refused', () => {
  assert.equal(Pico.validateSetupData({rounds: 3}, 2), 'rounds must be 2, 4 or 6');
  assert.equal(Pico.validateSetupData({rounds: 4}, 2), undefined);
  assert.equal(Pico.validateSetupData(undefined, 3), 'Pico is for exactly two players');
  const G = newGame({rounds: 4});
  let moves = 0;
  while (!G.over) {
    const seat = legalCards(G, '0').length > 0 ? '0' : '1';
    assert.equal(play(G, seat, legalCards(G, seat)[0]), undefined);
    assert.ok(++moves <= 72, 'at most 18 choices a round');
  }
  assert.equal(G.roundScores.length, 4);
  assert.equal(G.totals[0] + G.totals[1],
               G.roundScores.reduce((sum, [a, b]) => sum + a + b, 0));
});
