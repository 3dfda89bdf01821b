#!/bin/bash
# End-to-end test of the parlor-engine binary: new -> apply -> view -> verify, and bad input.
# Usage: tool_end_to_end_test.sh PATH/TO/parlor-engine
set -u
tool="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tool" games | grep -q '^pico (Pico)' || fail "games does not list pico"
"$tool" new --game pico --players 2 --seed 7 --option rounds=2 --out "$dir/s0.json" || fail "new"
# The deal's first card is seat 0's, the seventh seat 1's.
a=$("$tool" legal --seat 0 --state "$dir/s0.json" | grep -o '"code": [0-9]*' | head -1 | grep -o '[0-9]*$')
b=$("$tool" legal --seat 1 --state "$dir/s0.json" | grep -o '"code": [0-9]*' | head -1 | grep -o '[0-9]*$')
[ -n "$a" ] && [ -n "$b" ] || fail "legal lists no actions"
"$tool" apply --seat 0 --action "{\"card\": $a}" --state "$dir/s0.json" --out "$dir/s1.json" || fail "apply seat 0"
"$tool" view --seat 1 --state "$dir/s1.json" | grep -q '"pending_card"' && fail "seat 1 sees seat 0's pending card"
"$tool" view --seat 0 --state "$dir/s1.json" | grep -q "\"pending_card\": $a" || fail "seat 0 does not see its own choice"
"$tool" apply --seat 1 --code "$b" < "$dir/s1.json" > "$dir/s2.json" || fail "apply seat 1 (stdin/stdout)"
"$tool" view --spectator --state "$dir/s2.json" | grep -q '"tricks"' || fail "no trick in the view"
[ "$("$tool" verify "$dir/s2.json")" = "OK" ] || fail "verify"
"$tool" playout --bot greedy --seed 3 --state "$dir/s2.json" --out "$dir/end.json" || fail "playout"
[ "$("$tool" verify "$dir/end.json")" = "OK" ] || fail "verify after playout"
"$tool" replay "$dir/end.json" > "$dir/replayed.json" || fail "replay"
cmp -s "$dir/end.json" "$dir/replayed.json" || fail "replay differs from the played state"

# Bad input: exit code 2 and exactly one line on stderr.
expect_error() {
  local what="$1"; shift
  "$@" > "$dir/out" 2> "$dir/err" < "${STDIN:-/dev/null}"
  local code=$?
  [ "$code" = 2 ] || fail "$what: exit code $code, want 2"
  [ "$(wc -l < "$dir/err")" = 1 ] || fail "$what: stderr is not one line: $(cat "$dir/err")"
  [ ! -s "$dir/out" ] || fail "$what: wrote to stdout"
}
expect_error "unknown command" "$tool" frobnicate
expect_error "unknown game" "$tool" new --game chess
expect_error "odd rounds" "$tool" new --game pico --option rounds=3
expect_error "illegal card" "$tool" apply --seat 0 --code 14 --state "$dir/s0.json"
expect_error "already chose" "$tool" apply --seat 0 --code "$a" --state "$dir/s1.json"
expect_error "bad JSON" "$tool" view --seat 0 --state /dev/null
expect_error "missing log" "$tool" verify "$dir/nope.json"
sed 's/"rngDraws": "[0-9]*"/"rngDraws": "999"/; s/"rng_draws": "[0-9]*"/"rng_draws": "999"/' "$dir/end.json" > "$dir/tampered.json"
cmp -s "$dir/end.json" "$dir/tampered.json" && fail "could not tamper with the record"
expect_error "tampered record" "$tool" verify "$dir/tampered.json"
grep -q "rng_draws" "$dir/err" || fail "verify does not name the difference: $(cat "$dir/err")"
echo "parlor-engine end to end: OK"
