#!/usr/bin/python3
"""The Parlor demo, the whole product through the public gRPC API only, as phones would use it:
four players sign in, queue for ranked and casual games, form Picadice doubles parties,
challenge a friend, and play one full game of each of the five games. Each player learns that
it is its turn from its WatchMyGames stream, then reads its view and legal actions (GetGame) and
moves (SubmitAction). Prints each game's transcript (GetHistory: the moves in words, dice and
deals as they are revealed to one seat), the results, and the ladders after rating.

The screen gets a short account and a summary (each game's players, winner, moves, seconds and
rating changes); with --log FILE the full transcripts go to FILE only.

usage: play_all.py ACCOUNTS SESSIONS MATCHMAKING RATINGS [--log FILE]   (host:port each)
"""
import argparse
import os
import random
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
import parlor_client as pc  # noqa: E402
from parlor_client import mpb, rpb, spb  # noqa: E402

# Options that keep random play to a demo's length (every one is a documented game option).
OPTIONS = {"kadice": {"max_rounds": "30"}, "picadice": {"turn_limit_per_seat": "25"}}


LOG = None
RESULTS = []


def say(text=""):
    """A line for the screen (and the log)."""
    print(text, flush=True)
    if LOG:
        LOG.write(text + "\n")
        LOG.flush()


def detail(text=""):
    """A line of the full transcript: the log file only, when there is one."""
    if LOG:
        LOG.write(text + "\n")
        LOG.flush()
    else:
        print(text, flush=True)


def wait_ticket(player, ticket_id, timeout=30):
    """Waits (WatchMyTickets would push it; GetTicket is enough here) for the ticket's game."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ticket = player.c.matchmaking.GetTicket(mpb.GetTicketRequest(ticket_id=ticket_id),
                                                metadata=player.md, timeout=5).ticket
        if ticket.state == mpb.TICKET_STATE_MATCHED and ticket.game_id:
            return ticket
        time.sleep(0.2)
    raise TimeoutError("ticket %s not matched" % ticket_id)


def enqueue(player, game, ranked, counts, party_id=""):
    request = mpb.EnqueueRequest(game=game, ranked=ranked, player_counts=counts,
                                 party_id=party_id)
    request.options.update(OPTIONS.get(game, {}))
    ticket = player.c.matchmaking.Enqueue(request, metadata=player.md, timeout=5).ticket
    detail("  %-4s queues for %s %s (%s players)%s -> ticket %s" % (
        player.name, "ranked" if ranked else "casual", game, "/".join(map(str, counts)),
        " with party " + party_id[:8] if party_id else "", ticket.ticket_id[:8]))
    return ticket


def dice_shown(view_any, seat):
    """The dice a roll revealed, read from the seat view at that version: the table's dice
    (Picadice, Pescado) or the rolling player's own dice (KA'DICE)."""
    view = pc.unpack(view_any)
    holder, field = None, None
    containers = [view]
    players = view.DESCRIPTOR.fields_by_name.get("players")
    if players is not None and players.message_type is not None and \
            players.label == players.LABEL_REPEATED and 0 <= seat < len(view.players):
        containers.append(view.players[seat])
    for container in containers:
        if "dice" in container.DESCRIPTOR.fields_by_name:
            holder, field = container, container.DESCRIPTOR.fields_by_name["dice"]
            break
    if holder is None:
        return ""
    shown = []
    for die in getattr(holder, field.name):
        if field.enum_type is not None:
            shown.append(field.enum_type.values_by_number[die].name.split("_")[-1].lower())
        elif field.message_type is not None:
            color = die.DESCRIPTOR.fields_by_name.get("color")
            shown.append(color.enum_type.values_by_number[die.color].name.split("_")[-1].lower()
                         if color else pc.one_line(die))
        else:
            shown.append(str(die))
    return "  [dice: %s]" % " ".join(shown) if shown else ""


def deal_shown(view_any):
    """What the deal put on the table, as this seat may see it."""
    view = pc.unpack(view_any)
    name = view.DESCRIPTOR.name
    if name == "PicoView":
        return "  [face-up %d; hands %s]" % (view.face_up_card, " / ".join(
            " ".join(map(str, p.hand)) for p in view.players))
    if name == "KadiceView":
        return "  [cards dealt: %s]" % " / ".join(
            "%d in deck" % p.deck_size for p in view.players)
    return ""


def play_game(players, game_id, title):
    """Every seated player plays its seat on its own thread, driven by its WatchMyGames pushes."""
    finished, errors = {}, []

    def run(player):
        try:
            finished[player.name] = player.play(game_id, deadline=time.time() + 600)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append("%s: %r" % (player.name, error))

    started = time.time()
    threads = [threading.Thread(target=run, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("; ".join(errors))
    game = next(iter(finished.values()))
    seats = {s.seat: s.display_name for s in game.seats}
    seconds = time.time() - started
    detail("\n--- %s: %s game %s, %d moves in %.1f s ---" % (
        title, "ranked" if game.ranked else "casual", game_id[:8], game.version, seconds))
    watcher = players[0]
    detail("    transcript as %s (seat %d) saw it:" % (watcher.name,
                                                      finished[watcher.name].my_seat))
    for event in watcher.history(game_id):
        who = "setup" if event.seat < 0 else seats.get(event.seat, "seat %d" % event.seat)
        cause = {spb.EVENT_CAUSE_BOT: " (computer)", spb.EVENT_CAUSE_TIMEOUT: " (timeout)"}.get(
            event.cause, "")
        dice = dice_shown(event.view, event.seat) if ("roll" in event.description or
                                          "throw" in event.description) else ""
        if event.version == 0:
            dice = deal_shown(event.view)
        detail("    v%-3d %-9s%s %s%s" % (event.version, who, cause, event.description, dice))
    ranks = list(game.outcome.ranks)
    scores = list(game.outcome.scores)
    detail("    result: %s" % game.outcome.reason)
    for seat in sorted(seats, key=lambda s: ranks[s]):
        detail("      #%d %-5s score %d" % (ranks[seat], seats[seat], scores[seat]))
    detail("    fair play: seed %s... (commitment %s...)" % (game.seed[:16],
                                                            game.seed_commitment[:16]))
    names = {p.account_id: p.name for p in players}
    short = {s.seat: names.get(s.account_id, s.display_name) for s in game.seats}
    winners = [short[s] for s in sorted(short) if ranks[s] == min(ranks)]
    RESULTS.append({"title": title, "game": game, "seconds": seconds, "names": names,
                    "players": [short[s] for s in sorted(short)], "winners": winners})
    say("  %s: %s won (%s), %d moves in %.1f s" % (
        title, " and ".join(winners), game.outcome.reason, game.version, seconds))
    return game


def rating_changes(channels, players, ladders):
    """(game id, account id) -> (rating before, rating after), from each player's history."""
    changes = {}
    for p in players:
        for ladder in ladders.get(p.account_id, ()):
            history = channels.ratings.GetRatingHistory(
                rpb.GetRatingHistoryRequest(ladder=ladder, page_size=50), metadata=p.md,
                timeout=5)
            for e in history.entries:
                changes[(e.game_id, p.account_id)] = (e.change.rating_before,
                                                      e.change.rating_after)
    return changes


def print_summary(changes):
    say("\n== summary")
    say("  %-17s %-6s %-16s %-9s %5s %6s  %s" % ("game", "mode", "players", "winner", "moves",
                                                "secs", "rating changes"))
    for r in RESULTS:
        game = r["game"]
        moved = []
        for s in game.seats:
            change = changes.get((game.game_id, s.account_id))
            if change:
                moved.append("%s %+.1f" % (r["names"].get(s.account_id, s.display_name),
                                           change[1] - change[0]))
        say("  %-17s %-6s %-16s %-9s %5d %6.1f  %s" % (
            r["title"], "ranked" if game.ranked else "casual", ",".join(r["players"]),
            "+".join(r["winners"]), game.version, r["seconds"],
            ", ".join(moved) if moved else "(casual: not rated)" if not game.ranked else "-"))


def main():
    global LOG
    parser = argparse.ArgumentParser(description="plays all five games through the public API")
    parser.add_argument("addresses", nargs=4, metavar="HOST:PORT",
                        help="accounts, sessions, matchmaking and ratings")
    parser.add_argument("--log", metavar="FILE", help="write the full transcripts to FILE")
    args = parser.parse_args()
    accounts, sessions, matchmaking, ratings = args.addresses
    if args.log:
        LOG = open(args.log, "w")
    channels = pc.Channels(accounts, sessions, matchmaking, ratings)
    suffix = uuid.uuid4().hex[:4]
    say("== four phones sign in (AuthenticateDevice) and open WatchMyGames")
    players = []
    for i, name in enumerate(("Ada", "Bob", "Cy", "Dee")):
        p = pc.Player(channels, "demo-%s-%s" % (name.lower(), suffix), "%s-%s" % (name, suffix),
                      rng=random.Random(i))
        p.name = name
        p.start_watch()
        players.append(p)
        say("  %-4s account %s" % (name, p.account_id))
    ada, bob, cy, dee = players
    time.sleep(0.3)
    games = []

    say("\n== ranked Pico: Ada and Bob queue")
    t1 = enqueue(ada, "pico", True, [2])
    enqueue(bob, "pico", True, [2])
    t1 = wait_ticket(ada, t1.ticket_id)
    say("  matched: match %s -> game %s" % (t1.match_id[:8], t1.game_id[:8]))
    games.append(play_game([ada, bob], t1.game_id, "Pico"))

    say("\n== casual Pict: Cy and Dee queue")
    t2 = enqueue(cy, "pict", False, [2])
    enqueue(dee, "pict", False, [2])
    t2 = wait_ticket(cy, t2.ticket_id)
    say("  matched -> game %s" % t2.game_id[:8])
    games.append(play_game([cy, dee], t2.game_id, "Pict"))

    say("\n== Picadice doubles: two parties of two queue for ranked team play")
    parties = []
    for leader, mate in ((ada, bob), (cy, dee)):
        party = channels.matchmaking.CreateParty(mpb.CreatePartyRequest(max_size=2),
                                                 metadata=leader.md, timeout=5).party
        joined = channels.matchmaking.JoinParty(mpb.JoinPartyRequest(code=party.code),
                                                metadata=mate.md, timeout=5).party
        say("  %s creates party %s (code %s); %s joins -> members %s" % (
            leader.name, party.party_id[:8], party.code, mate.name,
            "+".join(p.name for p in players if p.account_id in joined.member_account_ids)))
        parties.append((leader, party.party_id))
    old = dict(OPTIONS)
    OPTIONS["picadice"] = dict(OPTIONS["picadice"], team_play="true")
    tickets = [enqueue(leader, "picadice", True, [4], party_id) for leader, party_id in parties]
    OPTIONS.update(old)
    t3 = wait_ticket(ada, tickets[0].ticket_id)
    say("  matched -> game %s" % t3.game_id[:8])
    games.append(play_game([ada, bob, cy, dee], t3.game_id, "Picadice doubles"))
    for leader, _ in parties:
        channels.matchmaking.LeaveParty(mpb.LeavePartyRequest(), metadata=leader.md, timeout=5)

    say("\n== a challenge between friends: Ada challenges Cy to ranked Pescado")
    request = mpb.ChallengeRequest(game="pescado", ranked=True,
                                   invitee_account_ids=[cy.account_id])
    challenge = channels.matchmaking.Challenge(request, metadata=ada.md, timeout=5).challenge
    say("  challenge %s is %s" % (challenge.challenge_id[:8],
                                  mpb.ChallengeState.Name(challenge.state)))
    listed = channels.matchmaking.ListMyChallenges(mpb.ListMyChallengesRequest(), metadata=cy.md,
                                                   timeout=5).challenges
    say("  Cy sees %d open challenge(s) and accepts" % len(listed))
    accepted = channels.matchmaking.AcceptChallenge(
        mpb.AcceptChallengeRequest(challenge_id=challenge.challenge_id), metadata=cy.md,
        timeout=5).challenge
    game_id = accepted.game_id
    deadline = time.time() + 30
    while not game_id and time.time() < deadline:
        time.sleep(0.2)
        game_id = next((c.game_id for c in channels.matchmaking.ListMyChallenges(
            mpb.ListMyChallengesRequest(), metadata=ada.md, timeout=5).challenges
            if c.challenge_id == challenge.challenge_id), "")
    say("  %s -> game %s" % (mpb.ChallengeState.Name(accepted.state), game_id[:8]))
    games.append(play_game([ada, cy], game_id, "Pescado"))

    say("\n== ranked KA'DICE for three: Bob, Cy and Dee queue")
    kt = [enqueue(p, "kadice", True, [3]) for p in (bob, cy, dee)]
    t5 = wait_ticket(bob, kt[0].ticket_id)
    say("  matched -> game %s" % t5.game_id[:8])
    games.append(play_game([bob, cy, dee], t5.game_id, "KA'DICE"))

    say("\n== the ladders after rating (sessions reports each ranked result to ratings)")
    expected = {}
    for g in games:
        if g.ranked:
            for s in g.seats:
                expected[s.account_id] = expected.get(s.account_id, 0) + 1
    deadline = time.time() + 30
    while time.time() < deadline:
        rated = {}
        for p in players:
            mine = channels.ratings.GetMyRatings(rpb.GetMyRatingsRequest(), metadata=p.md,
                                                 timeout=5).ratings
            rated[p.account_id] = (mine, sum(r.games for r in mine))
        if all(rated[a][1] >= n for a, n in expected.items()):
            break
        time.sleep(0.5)
    by_ladder = {}
    for p in players:
        for r in rated[p.account_id][0]:
            by_ladder.setdefault(r.ladder, []).append((p.name, r))
    for ladder in sorted(by_ladder):
        say("  ladder %s" % ladder)
        for name, r in sorted(by_ladder[ladder], key=lambda x: -x[1].conservative_rating):
            say("    %-4s rating %7.1f  deviation %5.1f  conservative %7.1f  games %d%s" % (
                name, r.rating, r.deviation, r.conservative_rating, r.games,
                "  (provisional)" if r.provisional else ""))
    missing = [a for a, n in expected.items() if rated[a][1] != n]
    ladders = {a: [r.ladder for r in mine] for a, (mine, _) in rated.items()}
    print_summary(rating_changes(channels, players, ladders))
    if LOG:
        say("  (full transcripts: %s)" % LOG.name)
    for p in players:
        p.stop_watch()
    channels.close()
    if missing:
        say("ERROR: ratings not applied exactly once for %s" % missing)
        return 1
    say("\ndemo: all five games played to the end; every ranked result rated exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
