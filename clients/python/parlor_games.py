"""The five games for people: each game's board drawn as text (rich Text lines, coloured on a
terminal, plain otherwise), its moves written and read in a short notation, and the legal moves
summarized by kind.

Every game module here offers the same four things:
  render(view, table)       -> list of rich.text.Text lines (the board)
  notation(action, table)   -> the move in the game's notation ("paint A1 B1 at c3")
  parse(words, view, table) -> the game's Action message for a move typed in that notation
  HELP                      -> the notation with examples (`parlor help moves GAME`)

`table` is a Table: the seats' names, the viewer's seat and the game summary. Values that proto3
leaves out on the wire (seat 0, die 0, colour 0) are always printed.
"""
import datetime
import re

from rich.text import Text


class MoveError(ValueError):
    """A move a person typed that cannot be read; the message says what was expected."""


def has(message, field):
    """True when the message type has the field (views gain fields over time)."""
    return field in message.DESCRIPTOR.fields_by_name


def enum_word(message, field, value):
    """An enum value as a lower-case word: PICT_COLOUR_RED -> red."""
    enum = message.DESCRIPTOR.fields_by_name[field].enum_type
    named = enum.values_by_number.get(value)
    if named is None:
        return str(value)
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    name = named.name[len(prefix):] if named.name.startswith(prefix) else named.name
    return name.lower().replace("_", " ")


class Table:
    """Who sits where: names by seat, the viewer's seat (-1 for a spectator), the Game summary."""

    def __init__(self, game=None, names=None, my_seat=-1):
        self.game = game
        self.names = dict(names or {})
        if game is not None:
            for s in game.seats:
                self.names[s.seat] = s.display_name or ("computer" if s.bot else "seat %d" % s.seat)
            my_seat = game.my_seat  # -1 for a spectator
        self.my_seat = my_seat

    def name(self, seat, you=True):
        if seat is None or seat < 0:
            return "nobody"
        name = self.names.get(seat, "seat %d" % seat)
        return name + " (you)" if you and seat == self.my_seat else name

    def seat_of(self, word):
        """A seat from a seat number or a (unique, case-insensitive prefix of a) player's name."""
        if word.isdigit() and int(word) in self.names:
            return int(word)
        lowered = word.lower()
        exact = [s for s, n in self.names.items() if n.lower() == lowered]
        if lowered in ("me", "you", "myself") and self.my_seat >= 0:
            return self.my_seat
        found = exact or [s for s, n in self.names.items() if n.lower().startswith(lowered)]
        if len(found) != 1:
            raise MoveError("no single player named %r (players: %s)" % (
                word, ", ".join("%d=%s" % (s, n) for s, n in sorted(self.names.items()))))
        return found[0]

    def words(self, text):
        """A server's text with "seat N" replaced by the player's name."""
        return re.sub(r"\bseats? (\d+)\b",
                      lambda m: self.name(int(m.group(1)), you=False)
                      if int(m.group(1)) in self.names else m.group(0), text)

    def short(self, seat):
        """How the notation names a player: the name if it is one word and unique, else the
        seat number."""
        name = self.names.get(seat, "")
        if name and " " not in name and not name.isdigit() and \
                sum(1 for n in self.names.values() if n.lower() == name.lower()) == 1:
            return name
        return str(seat)


def hjoin(blocks, gap=4):
    """Blocks of Text lines side by side."""
    widths = [max((len(line) for line in block), default=0) for block in blocks]
    height = max(len(b) for b in blocks)
    out = []
    for i in range(height):
        line = Text()
        for j, block in enumerate(blocks):
            part = block[i] if i < len(block) else Text("")
            line.append_text(part)
            if j < len(blocks) - 1:
                line.append(" " * (widths[j] - len(part) + gap))
        out.append(line)
    return out


def T(*parts):
    """A Text line from strings and (string, style) pairs."""
    line = Text()
    for p in parts:
        if isinstance(p, tuple):
            line.append(p[0], style=p[1])
        elif isinstance(p, Text):
            line.append_text(p)
        else:
            line.append(p)
    return line


def ints(words, what, low, high):
    out = []
    for w in words:
        if not re.fullmatch(r"-?\d+", w) or not low <= int(w) <= high:
            raise MoveError("%s must be numbers %d-%d, not %r" % (what, low, high, w))
        out.append(int(w))
    return out


def pick_word(word, choices, what):
    """A word from choices (full word, or a unique prefix)."""
    w = word.lower()
    if w in choices:
        return w
    found = [c for c in choices if c.startswith(w)]
    if len(found) != 1:
        raise MoveError("%s must be one of %s, not %r" % (what, ", ".join(choices), word))
    return found[0]


# ---------------------------------------------------------------------------------------------
class Pico:
    POINTS = {2: 1, 3: 1, 4: 1, 5: 2, 6: 2, 7: 2, 8: 3, 9: 3, 10: 3, 11: 3, 12: 3, 13: 3, 16: 4}
    HELP = """Pico: choose one card of your hand for the trick; both choices are shown together.
  play 7        play the 7 (or just: 7)
Cards show their points in brackets: 9(3) is the 9, worth 3 points when it wins a trick."""

    @classmethod
    def card(cls, c):
        return "%d(%d)" % (c, cls.POINTS.get(c, 0))

    @classmethod
    def render(cls, view, table):
        lines = [T(("Pico", "bold"), "  round %d of %d, trick %d   face-up card (out of play): %s"
                   % (view.round, view.rounds, view.trick, cls.card(view.face_up_card)))]
        for p in view.players:
            chosen = ""
            if p.has_chosen:
                chosen = "  [chose %s]" % (cls.card(p.pending_card) if p.pending_card else
                                           "a card")
            lines.append(T("  %-20s " % table.name(p.seat)[:20], "hand ",
                           (" ".join(cls.card(c) for c in p.hand) or "-", "bold"),
                           "   won ", " ".join(map(str, p.won)) or "-",
                           "   points %s = %d" % ("+".join(map(str, p.round_scores)) or "0",
                                                  p.total),
                           chosen, ("  forfeited", "red") if p.forfeited else ""))
        for t in list(view.tricks)[-3:]:
            lines.append(T("  trick %d.%d: %s -> %s wins %d point(s) with the %d" % (
                t.round, t.trick, " vs ".join(
                    "%s %d" % (table.name(s, you=False), c) for s, c in enumerate(t.cards)),
                table.name(t.winner_seat, you=False), t.points, t.winning_card)))
        if view.game_over and view.end_reason:
            lines.append(T("  ended: " + table.words(view.end_reason)))
        return lines

    @staticmethod
    def notation(action, table):
        return "play %d" % action.card

    @staticmethod
    def parse(words, view, table, cls):
        if len(words) == 2 and words[0] in ("play", "card"):
            words = words[1:]
        if len(words) != 1 or not words[0].isdigit():
            raise MoveError("a Pico move is `play N` (a card of your hand), e.g. `play 7`")
        return cls(card=int(words[0]))


# ---------------------------------------------------------------------------------------------
PICT_STYLE = {1: "bold white on red", 2: "bold black on yellow", 3: "bold white on blue"}
PICT_LETTER = {0: ".", 1: "R", 2: "Y", 3: "B"}
PICT_COLOURS = ("red", "yellow", "blue")


class Pict:
    HELP = """Pict: squares are a column letter and a row number: the palette A1..C3 (A1 top left),
your canvas a1..d4. Colours: red, yellow, blue (or r, y, b).
  paint A1 B1 at c3   take palette pieces A1 and B1 (1 to 3 joined pieces) and put the first
                      on canvas square c3; the others keep their places beside it (B1 -> d3)
  paint B2 at a1      one piece
  fill A2 red         a filling turn: a red piece on the empty palette square A2
  brush b2 blue       paintbrushes game: repaint square b2 of your opponent's canvas blue
  skip                paintbrushes game: no brush this time"""

    @staticmethod
    def sq(row, col, palette):
        return ("ABC" if palette else "abcd")[col] + str(row + 1)

    @staticmethod
    def read_sq(word, size, what):
        m = re.fullmatch(r"([a-dA-D])([1-4])", word)
        if not m or ord(m.group(1).lower()) - 97 >= size or int(m.group(2)) > size:
            last = "abcd"[size - 1]
            raise MoveError("%s must be a square a1..%s%d, not %r" % (what, last, size, word))
        return int(m.group(2)) - 1, ord(m.group(1).lower()) - 97

    @staticmethod
    def grid(cells, size, palette, title):
        lines = [T((title, "bold"))]
        lines.append(T("   " + " ".join(("ABC" if palette else "abcd")[:size])))
        for r in range(size):
            line = T("%d  " % (r + 1))
            for c in range(size):
                v = cells[r * size + c] if r * size + c < len(cells) else 0
                line.append(PICT_LETTER.get(v, "?"), style=PICT_STYLE.get(v, "dim"))
                if c < size - 1:
                    line.append(" ")
            lines.append(line)
        return lines

    @classmethod
    def render(cls, view, table):
        phase = enum_word(view, "phase", view.phase)
        head = T(("Pict", "bold"), "  %s phase%s" % (phase, " (opening fill)" if view.opening_fill
                                                     else ""))
        if view.to_move >= 0:
            head.append("   to move: ")
            head.append(table.name(view.to_move), style="bold")
            if view.brush_step:
                head.append(" (brush step: brush or skip)")
        lines = [head]
        blocks = [cls.grid(view.palette, 3, True, "palette")]
        for p in view.players:
            title = "%s: %d pts" % (table.name(p.seat)[:22], p.score)
            block = cls.grid(p.canvas, 4, False, title)
            block.append(T("filled %d/16%s" % (p.filled_squares, "  brushes %d" %
                                                p.paintbrushes_left if view.paintbrushes else "")))
            blocks.append(block)
        lines += hjoin(blocks)
        counts = [sum(1 for v in view.palette if v == c) for c in (1, 2, 3)]
        lines.append(T("palette holds %d red, %d yellow, %d blue" % tuple(counts)))
        for move in list(view.history)[-2:]:
            line = "last: %s %s" % (table.name(move.seat, you=False),
                                    cls.notation(move.action, table))
            if move.turn_score or move.chains:
                line += " (+%d%s)" % (move.turn_score, ", +%d bonus" % move.bonus if move.bonus
                                      else "")
            lines.append(T(line))
        if view.phase == 3 or view.to_move < 0:
            if view.finisher >= 0:
                lines.append(T("%s filled the canvas and ended the game" %
                               table.name(view.finisher)))
            if has(view, "end_reason") and view.end_reason:
                lines.append(T("ended: %s" % table.words(getattr(view, "end_reason"))))
        if has(view, "forfeited_seats") and getattr(view, "forfeited_seats"):
            lines.append(T("forfeited: " + ", ".join(
                table.name(s) for s in getattr(view, "forfeited_seats"))))
        return lines

    @classmethod
    def notation(cls, action, table):
        kind = action.WhichOneof("action")
        if kind == "paint":
            strokes = sorted(action.paint.strokes, key=lambda s: (s.palette.row, s.palette.col))
            if not strokes:
                return "paint"
            return "paint %s at %s" % (" ".join(cls.sq(s.palette.row, s.palette.col, True)
                                                for s in strokes),
                                       cls.sq(strokes[0].canvas.row, strokes[0].canvas.col,
                                              False))
        if kind == "brush":
            return "brush %s %s" % (cls.sq(action.brush.target.row, action.brush.target.col,
                                           False), enum_word(action.brush, "colour",
                                                             action.brush.colour))
        if kind == "skip_brush":
            return "skip"
        if kind == "fill":
            return "fill %s %s" % (cls.sq(action.fill.at.row, action.fill.at.col, True),
                                   enum_word(action.fill, "colour", action.fill.colour))
        return "(nothing)"

    @staticmethod
    def colour(word):
        w = {"r": "red", "y": "yellow", "b": "blue"}.get(word.lower(), word)
        return PICT_COLOURS.index(pick_word(w, PICT_COLOURS, "the colour")) + 1

    @classmethod
    def parse(cls, words, view, table, action_cls):
        a = action_cls()
        verb = pick_word(words[0], ("paint", "fill", "brush", "skip"), "a Pict move") \
            if words else ""
        if verb == "paint":
            if "at" not in words or words.index("at") < 2 or words.index("at") != len(words) - 2:
                raise MoveError("paint is `paint A1 [B1 [C1]] at c3`")
            pieces = [cls.read_sq(w, 3, "a palette square") for w in words[1:-2]]
            to = cls.read_sq(words[-1], 4, "a canvas square")
            dr, dc = to[0] - pieces[0][0], to[1] - pieces[0][1]
            for r, c in pieces:
                s = a.paint.strokes.add()
                s.palette.row, s.palette.col = r, c
                s.canvas.row, s.canvas.col = r + dr, c + dc
            return a
        if verb == "fill" and len(words) == 3:
            a.fill.at.row, a.fill.at.col = cls.read_sq(words[1], 3, "a palette square")
            a.fill.colour = cls.colour(words[2])
            return a
        if verb == "brush" and len(words) == 3:
            a.brush.target.row, a.brush.target.col = cls.read_sq(words[1], 4, "a canvas square")
            a.brush.colour = cls.colour(words[2])
            return a
        if verb == "skip":
            a.skip_brush.SetInParent()
            return a
        raise MoveError("a Pict move is `paint A1 B1 at c3`, `fill A2 red`, `brush b2 blue` or "
                        "`skip`")


# ---------------------------------------------------------------------------------------------
PICADICE_STYLE = {1: "bold #ff8700", 2: "bold yellow", 3: "bold green", 4: "bold blue",
                  5: "bold magenta", 6: "bold white on grey23"}
PICADICE_COLOURS = ("orange", "yellow", "green", "blue", "purple", "black")


class Picadice:
    HELP = """Picadice: rows are colours (orange yellow green blue purple), columns 1-4; players by
name or seat number.
  roll                          start your turn by rolling the three dice
  use green at 2                after a roll: place the green dice's counters from column 2
  nest blue at 1                instead of rolling: take every blue counter of the nest
  birds Bob orange 2 place 3    after a roll with black dice: the Pica Birds take Bob's orange
                                counters from column 2 on and put them in your row at column 3
  birds Bob orange 2 discard    ... or send the stolen counters to the nest
  nest black Bob orange 2 place 3   raid with the nest's black counters instead of rolling
  discard                       after a roll: use nothing, all dice go to the nest"""

    @staticmethod
    def colour_text(c, word=True):
        name = PICADICE_COLOURS[c - 1] if 1 <= c <= 6 else "?"
        return (name if word else name[0].upper(), PICADICE_STYLE.get(c, ""))

    @classmethod
    def render(cls, view, table):
        phase = enum_word(view, "phase", view.phase)
        head = T(("Picadice", "bold"), "  round %d, %s" % (view.round, phase))
        if view.HasField("player_to_act"):
            head.append("   to act: ")
            head.append(table.name(view.player_to_act), style="bold")
        lines = [head]
        opts = ["turn %d of %d" % (view.turns_completed, view.turn_limit)]
        if view.team_play:
            opts.append("doubles (seats 0+1 against 2+3)")
        if view.match_play:
            opts.append("match to %d: points %s" % (view.match_target, " - ".join(
                map(str, view.match_points))))
        lines.append(T("  " + ", ".join(opts)))
        blocks = []
        for g in view.grids:
            block = [T((table.name(g.seat)[:20], "bold"))]
            block.append(T("         1 2 3 4"))
            for row in g.rows:
                line = T("%-8s " % PICADICE_COLOURS[row.colour - 1] if 1 <= row.colour <= 6
                         else "?        ")
                for i, filled in enumerate(row.filled):
                    line.append(*cls.colour_text(row.colour, False)) if filled else \
                        line.append(".", style="dim")
                    if i < 3:
                        line.append(" ")
                block.append(line)
            block.append(T("%d/20 counters, %d col done" % (g.counters, g.completed_columns)))
            blocks.append(block)
        lines += hjoin(blocks, 3)
        nest = T("nest: ")
        for n in view.nest:
            nest.append_text(T(cls.colour_text(n.colour), " %d  " % n.count))
        lines.append(nest)
        if view.dice:
            dice = T("dice: ")
            for d in view.dice:
                dice.append_text(T(cls.colour_text(d), " "))
            if view.triple_rolled:
                dice.append("(a triple: another turn follows)")
            lines.append(dice)
        for r in list(view.round_results)[-2:]:
            lines.append(T("round %d: %s" % (r.round, "won by %s (+%d)" % (
                cls.side(view, r.winning_side, table), r.points) if r.HasField("winning_side")
                else "no winner (turn limit)")))
        if view.phase == 3:
            reason = enum_word(view, "end_reason", view.end_reason)
            lines.append(T(("game over: %s" % reason, "bold")))
            if view.HasField("winning_side"):
                lines.append(T("winner: %s" % cls.side(view, view.winning_side, table)))
        return lines

    @staticmethod
    def side(view, side, table):
        if view.team_play:
            seats = [g.seat for g in view.grids if g.side == side]
            return " and ".join(table.name(s) for s in seats)
        return table.name(side)

    @classmethod
    def raid_text(cls, raid, table):
        dest = "discard" if raid.WhichOneof("destination") == "discard" else \
            "place %d" % raid.place_at_column
        return "%s %s %d %s" % (table.short(raid.victim_seat), PICADICE_COLOURS[raid.row - 1]
                                if 1 <= raid.row <= 6 else "?", raid.from_column, dest)

    @classmethod
    def notation(cls, action, table):
        kind = action.WhichOneof("action")
        colour = lambda c: PICADICE_COLOURS[c - 1] if 1 <= c <= 6 else "?"  # noqa: E731
        if kind == "roll":
            return "roll"
        if kind == "use_colour":
            return "use %s at %d" % (colour(action.use_colour.colour),
                                     action.use_colour.start_column)
        if kind == "steal_from_nest":
            return "nest %s at %d" % (colour(action.steal_from_nest.colour),
                                      action.steal_from_nest.start_column)
        if kind == "call_pica_birds":
            return "birds " + cls.raid_text(action.call_pica_birds.raid, table)
        if kind == "steal_black_from_nest":
            return "nest black " + cls.raid_text(action.steal_black_from_nest.raid, table)
        if kind == "discard_all":
            return "discard"
        return "(nothing)"

    @staticmethod
    def raid(words, raid, table):
        if len(words) not in (4, 5):
            raise MoveError("a raid is `PLAYER ROW FROM_COLUMN place COLUMN` or "
                            "`PLAYER ROW FROM_COLUMN discard`")
        raid.victim_seat = table.seat_of(words[0])
        raid.row = PICADICE_COLOURS.index(pick_word(words[1], PICADICE_COLOURS[:5],
                                                    "the row")) + 1
        raid.from_column = ints(words[2:3], "the column", 1, 4)[0]
        if pick_word(words[3], ("place", "discard"), "where the counters go") == "discard":
            if len(words) != 4:
                raise MoveError("discard takes no column")
            raid.discard.SetInParent()
        else:
            if len(words) != 5:
                raise MoveError("place needs the column, e.g. `place 3`")
            raid.place_at_column = ints(words[4:5], "the column", 1, 4)[0]

    @classmethod
    def parse(cls, words, view, table, action_cls):
        a = action_cls()
        verb = pick_word(words[0], ("roll", "use", "nest", "birds", "discard"),
                         "a Picadice move") if words else ""
        if verb == "roll" and len(words) == 1:
            a.roll.SetInParent()
        elif verb == "discard" and len(words) == 1:
            a.discard_all.SetInParent()
        elif verb == "use" and len(words) == 4 and words[2] == "at":
            a.use_colour.colour = PICADICE_COLOURS.index(
                pick_word(words[1], PICADICE_COLOURS[:5], "the colour")) + 1
            a.use_colour.start_column = ints(words[3:], "the column", 1, 4)[0]
        elif verb == "nest" and len(words) >= 2 and words[1].lower() == "black":
            cls.raid(words[2:], a.steal_black_from_nest.raid, table)
        elif verb == "nest" and len(words) == 4 and words[2] == "at":
            a.steal_from_nest.colour = PICADICE_COLOURS.index(
                pick_word(words[1], PICADICE_COLOURS[:5], "the colour")) + 1
            a.steal_from_nest.start_column = ints(words[3:], "the column", 1, 4)[0]
        elif verb == "birds":
            cls.raid(words[1:], a.call_pica_birds.raid, table)
        else:
            raise MoveError("a Picadice move is `roll`, `use green at 2`, `nest blue at 1`, "
                            "`birds Bob orange 2 place 3`, `nest black ...` or `discard`")
        return a


# ---------------------------------------------------------------------------------------------
PESCADO_LETTER = {1: "Y", 2: "O", 3: "R", 4: "B", 5: "G", 6: "K"}
PESCADO_STYLE = {1: "bold yellow", 2: "bold #ff8700", 3: "bold red", 4: "bold blue",
                 5: "bold green", 6: "bold white on grey23"}
PESCADO_COLOURS = ("yellow", "orange", "red", "blue", "green", "black")


class Pescado:
    HELP = """Pescado: tiles are named by their number (1-36); dice by index (white 0-4, grey 5-6)
or by colour (yellow orange red blue green black). Fish: Y O R B G K (K is black).
  throw             start your turn: throw the five white dice
  take 12           catch tile 12 (from the pool, or an exposed tile of the player before you)
  buy 3 17          buy a grey die by flipping tiles 3 and 17
  rethrow keep 0 2  second throw, keeping white dice 0 and 2 (or: rethrow keep red blue;
                    plain `rethrow` throws them all again)
  end               end your turn after the second throw
  claim 12 7        snatching: claim tiles 12 then 7, best first;  pass: claim nothing"""

    @staticmethod
    def tile(t, extra=""):
        line = T("#%d " % t.id)
        for f in t.fish:
            line.append(PESCADO_LETTER.get(f, "?"), style=PESCADO_STYLE.get(f, ""))
        line.append(" %dp%s" % (t.points, extra))
        return line

    @classmethod
    def render(cls, view, table):
        phase = enum_word(view, "phase", view.phase)
        head = T(("Pescado", "bold"), "  %s" % phase)
        if view.active_seat >= 0:
            head.append("   turn of ")
            head.append(table.name(view.active_seat), style="bold")
            head.append("   (may catch from %s)" % table.name(view.predecessor_seat))
        lines = [head, T("  turn %d of at most %d, %d tiles in the stack" % (
            view.turn_counter, view.max_turns, len(view.stack_tile_ids)))]
        pool = T("pool:  ")
        for s in view.pool:
            pool.append("%d:" % s.slot)
            if s.HasField("tile"):
                pool.append_text(cls.tile(s.tile, " (flipped)" if s.flipped else ""))
            else:
                pool.append("empty")
            pool.append("   ")
        lines.append(pool)
        if view.dice:
            dice = T("dice:  ")
            for d in view.dice:
                dice.append("%d:" % d.index)
                dice.append(PESCADO_COLOURS[d.color - 1] if 1 <= d.color <= 6 else "?",
                            style=PESCADO_STYLE.get(d.color, ""))
                dice.append("%s%s  " % ("(grey)" if d.index >= 5 else "",
                                        "(kept)" if d.kept else ""))
            if view.grey_dice_bought:
                dice.append("grey dice bought: %d" % view.grey_dice_bought)
            lines.append(dice)
        for p in view.players:
            line = T(("  %-20s" % table.name(p.seat)[:20], "bold"),
                     " %2d points, %2d tiles%s  " % (p.score, p.tile_count,
                                                     ", claimed" if p.claimed else ""))
            for st in p.supply:
                line.append_text(cls.tile(st.tile, "" if st.safe else "*"))
                line.append(" ")
            if view.phase == 5:
                line.append(" rank %d" % p.rank)
            lines.append(line)
        lines.append(T(("  (* exposed: the next player may still catch it)", "dim")))
        if view.takeable_tile_ids:
            lines.append(T("can take: " + " ".join(map(str, view.takeable_tile_ids))))
        if view.flippable_tile_ids:
            lines.append(T("can flip: " + " ".join(map(str, view.flippable_tile_ids))))
        if view.HasField("snatch"):
            sn = view.snatch
            lines.append(T("snatch (%s): %s threw %s; tiles %s" % (
                "resolved" if sn.resolved else "open", table.name(sn.thrower_seat),
                " ".join(PESCADO_COLOURS[c - 1] for c in sn.snatch_dice if 1 <= c <= 6),
                " ".join(map(str, sn.snatch_set)) or "-")))
        if view.phase == 5:
            lines.append(T(("game over: %s" % table.words(view.outcome.reason), "bold")))
        return lines

    @classmethod
    def notation(cls, action, table):
        kind = action.WhichOneof("kind")
        if kind == "throw_first":
            return "throw"
        if kind == "take_tile":
            return "take %d" % action.take_tile.tile_id
        if kind == "buy_grey_die":
            return "buy %s" % " ".join(map(str, sorted(action.buy_grey_die.tile_ids)))
        if kind == "throw_second":
            keep = sorted(action.throw_second.keep_dice)
            return "rethrow" + (" keep " + " ".join(map(str, keep)) if keep else "")
        if kind == "end_turn":
            return "end"
        if kind == "snatch_claim":
            ids = list(action.snatch_claim.tile_ids)
            return "claim " + " ".join(map(str, ids)) if ids else "pass"
        return "(nothing)"

    @classmethod
    def parse(cls, words, view, table, action_cls):
        a = action_cls()
        verb = pick_word(words[0], ("throw", "rethrow", "take", "buy", "end", "claim", "pass"),
                         "a Pescado move") if words else ""
        if verb == "throw" and (len(words) > 1 or view.phase == 2):
            verb = "rethrow"
        if verb == "throw":
            a.throw_first.SetInParent()
        elif verb == "rethrow":
            rest = words[1:]
            if rest and rest[0] == "keep":
                rest = rest[1:]
            used = set()
            for w in rest:
                if w.isdigit():
                    index = ints([w], "the dice to keep", 0, 4)[0]
                else:
                    colour = PESCADO_COLOURS.index(pick_word(w, PESCADO_COLOURS, "a die")) + 1
                    found = [d.index for d in view.dice if d.index < 5 and d.color == colour
                             and d.index not in used]
                    if not found:
                        raise MoveError("no %s white die left to keep" % PESCADO_COLOURS[
                            colour - 1])
                    index = found[0]
                used.add(index)
                a.throw_second.keep_dice.append(index)
            a.throw_second.SetInParent()
        elif verb == "take" and len(words) == 2:
            a.take_tile.tile_id = ints(words[1:], "the tile", 1, 36)[0]
        elif verb == "buy" and len(words) == 3:
            a.buy_grey_die.tile_ids.extend(ints(words[1:], "the tiles", 1, 36))
        elif verb == "end" and len(words) == 1:
            a.end_turn.SetInParent()
        elif verb == "claim":
            a.snatch_claim.tile_ids.extend(ints(words[1:], "the tiles", 1, 36))
            a.snatch_claim.SetInParent()
        elif verb == "pass" and len(words) == 1:
            a.snatch_claim.SetInParent()
        else:
            raise MoveError("a Pescado move is `throw`, `take 12`, `buy 3 17`, `rethrow keep 0 2`, "
                            "`end`, `claim 12 7` or `pass`")
        return a


# ---------------------------------------------------------------------------------------------
KADICE_NEED = {
    1: "two 1s", 2: "two 2s", 3: "two 3s", 4: "two 4s", 5: "two 5s", 6: "two 6s",
    7: "three of a kind", 8: "total 10 or less", 9: "total 25 or more", 10: "two pairs",
    11: "4 in a row", 12: "full house", 13: "five evens", 14: "five odds",
    15: "four of a kind", 16: "5 in a row", 17: "KA'DICE: 5 different, no 4 in a row"}


class Kadice:
    HELP = """KA'DICE: dice by index 0-4 (as shown: 0:5 means die 0 shows a 5); players by name or
seat number.
  roll               roll every die not on your hold card
  roll release 0 2   take dice 0 and 2 off the hold card first, then roll
  set 2 to 5         make wild die 2 show a 5
  shift 2 up         move die 2 up by one (or down) with your card's ability
  eliminate Bob      knock out Bob's active card with the dice as they stand (several: Bob Cy)
  hold 0 1 3         keep dice 0, 1 and 3 on the hold card and end your turn (hold: keep none)"""

    @staticmethod
    def card(any_msg, c):
        if not c:
            return "no card"
        enum = any_msg.DESCRIPTOR.file.enum_types_by_name["KadiceCard"]
        named = enum.values_by_number.get(c)
        return named.name[len("KADICE_CARD_"):].replace("_", " ") if named else str(c)

    @classmethod
    def render(cls, view, table):
        phase = enum_word(view, "phase", view.phase)
        head = T(("KA'DICE", "bold"), "  round %d of at most %d, %s" % (view.round,
                                                                      view.max_rounds, phase))
        if view.current_seat >= 0:
            head.append("   to act: ")
            head.append(table.name(view.current_seat), style="bold")
        lines = [head, T("  dealer: %s" % table.name(view.dealer))]
        for p in view.players:
            line = T(("  %-20s" % table.name(p.seat)[:20], "bold"), " ")
            if p.ghost:
                line.append("GHOST", style="bold magenta")
                line.append(" (since round %d)" % p.ghost_round)
            else:
                line.append("%-22s" % cls.card(p, p.active_card), style="bold cyan")
                line.append(" dies to %-16s" % KADICE_NEED.get(p.active_card, "-"))
            line.append(" %2d cards left " % p.cards_left)
            line.append(" dice ")
            for i, d in enumerate(p.dice):
                held = i in p.held_dice
                line.append("%d:%s" % (i, d if d else "-"), style="reverse" if held else "")
                line.append(" ")
            marks = []
            if p.held_dice:
                marks.append("held " + " ".join(map(str, p.held_dice)))
            marks.append("turns %d/3" % p.turns_taken)
            if p.finished:
                marks.append("done this round")
            if p.immune:
                marks.append("immune")
            if p.rank:
                marks.append("rank %d" % p.rank)
            line.append(" [%s]" % ", ".join(marks))
            lines.append(line)
            if p.discard:
                lines.append(T(("      discarded: " + ", ".join(cls.card(p, c)
                                                                for c in p.discard), "dim")))
        if view.phase == 2 and view.HasField("turn"):
            t = view.turn
            marks = ["rolled dice " + " ".join(map(str, t.rolled_dice))]
            if t.five_of_a_kind:
                marks.append("five of a kind: every die is wild")
            if t.set_dice:
                marks.append("already set: " + " ".join(map(str, t.set_dice)))
            if t.bonus_roll_next:
                marks.append("a hold now gives the bonus roll")
            lines.append(T("  this turn: " + "; ".join(marks)))
        for e in view.events:
            kind = e.WhichOneof("event")
            if kind == "ghost_roll":
                g = e.ghost_roll
                lines.append(T("  ghost roll: %s rolled %s%s" % (
                    table.name(g.seat), " ".join(map(str, g.dice)),
                    " and comes back with %s" % cls.card(g, g.revived_card) if g.matched
                    else "")))
            elif kind == "round_start":
                lines.append(T("  round %d begins, dealer %s" % (
                    e.round_start.round, table.name(e.round_start.dealer))))
            elif kind == "roll_off":
                r = e.roll_off
                lines.append(T("  %s: won by %s" % (
                    "war over %s" % cls.card(r, r.card) if r.card else "dealer war",
                    table.name(r.winner))))
        if view.phase == 3:
            lines.append(T(("game over: %s" % (table.words(view.end_reason) or "ended"), "bold")))
        return lines

    @staticmethod
    def notation(action, table):
        kind = action.WhichOneof("action")
        if kind == "roll":
            rel = sorted(action.roll.release)
            return "roll" + (" release " + " ".join(map(str, rel)) if rel else "")
        if kind == "set_die":
            return "set %d to %d" % (action.set_die.die, action.set_die.value)
        if kind == "shift_die":
            return "shift %d %s" % (action.shift_die.die,
                                    "up" if action.shift_die.direction == 1 else "down")
        if kind == "eliminate":
            return "eliminate " + " ".join(table.short(s) for s in sorted(
                action.eliminate.targets))
        if kind == "hold":
            dice = sorted(action.hold.dice)
            return "hold" + (" " + " ".join(map(str, dice)) if dice else "")
        return "(nothing)"

    @staticmethod
    def parse(words, view, table, action_cls):
        a = action_cls()
        verb = pick_word(words[0], ("roll", "set", "shift", "eliminate", "hold"),
                         "a KA'DICE move") if words else ""
        if verb == "roll":
            rest = words[1:]
            if rest and rest[0] == "release":
                rest = rest[1:]
            a.roll.release.extend(ints(rest, "the dice to release", 0, 4))
            a.roll.SetInParent()
        elif verb == "set" and len(words) in (3, 4):
            a.set_die.die = ints(words[1:2], "the die", 0, 4)[0]
            a.set_die.value = ints(words[-1:], "the value", 1, 6)[0]
        elif verb == "shift" and len(words) == 3:
            a.shift_die.die = ints(words[1:2], "the die", 0, 4)[0]
            a.shift_die.direction = 1 if pick_word(words[2], ("up", "down"),
                                                   "the direction") == "up" else 2
        elif verb == "eliminate" and len(words) >= 2:
            a.eliminate.targets.extend(table.seat_of(w) for w in words[1:])
        elif verb == "hold":
            a.hold.dice.extend(ints(words[1:], "the dice to hold", 0, 4))
            a.hold.SetInParent()
        else:
            raise MoveError("a KA'DICE move is `roll`, `roll release 0 2`, `set 2 to 5`, "
                            "`shift 2 up`, `eliminate Bob` or `hold 0 1 3`")
        return a


# Optional extras keyed by game id. The games themselves come from the protos
# (parlor_client.GAMES); a game without an entry here is still playable: its view is printed as
# protobuf text, its moves as their Action messages, and a move is a listed number (#0) or the
# Action in JSON (parlor_client.action_help).
GAMES = {"pico": Pico, "pict": Pict, "picadice": Picadice, "pescado": Pescado,
         "kadice": Kadice}


def for_game(game):
    return GAMES.get(game)


# ---------------------------------------------------------------------------------------------
def summarize_moves(game, notations, limit=8):
    """The legal moves as short lines: every move numbered when there are few; otherwise grouped
    by kind (the first word), each kind as a pattern of choices or a count with examples."""
    if len(notations) <= limit:
        return ["#%-3d %s" % (i, n) for i, n in enumerate(notations)]
    kinds = {}
    for i, n in enumerate(notations):
        kinds.setdefault(n.split()[0], []).append((i, n))
    out = []
    for kind, moves in kinds.items():
        if len(moves) <= 3:
            out += ["#%-3d %s" % (i, n) for i, n in moves]
            continue
        rows = [n.split() for _, n in moves]
        pattern = choice_pattern(rows) or subset_pattern(rows)
        if pattern:
            out.append("%s   (%d moves)" % (pattern, len(moves)))
            continue
        groups = {}
        for r in rows:
            groups.setdefault(" ".join(r[:-1]), []).append(r[-1])
        if len(groups) <= 6:
            out += ["%s {%s}" % (prefix, " ".join(last)) if len(last) > 1 else
                    "%s %s" % (prefix, last[0]) for prefix, last in groups.items()]
            continue
        if all(len(r) > 2 and r[-2] == "at" for r in rows):
            # e.g. Pict: the piece sets that can be painted, each onto several squares.
            sets = []
            for r in rows:
                if " ".join(r[1:-2]) not in sets:
                    sets.append(" ".join(r[1:-2]))
            out.append("%s {%s} at SQUARE   (%d moves; `moves` lists the squares)" % (
                kind, " | ".join(sets), len(moves)))
            continue
        picks = [moves[0], moves[len(moves) // 2], moves[-1]]
        out.append("%s: %d ways, e.g. %s" % (kind, len(moves), "; ".join(n for _, n in picks)))
    return out


def subset_pattern(rows):
    """`hold [up to 4 of 0 1 2 3 4]` when the moves are the kind word (and maybe one keyword
    such as `keep`) followed by every subset of some numbers up to a size."""
    kind = rows[0][0]
    keyword = {r[1] for r in rows if len(r) > 1 and not r[1].isdigit()}
    if len(keyword) > 1:
        return None
    skip = 2 if keyword else 1
    sets = set()
    for r in rows:
        rest = r[skip:] if len(r) > 1 and not r[1].isdigit() else r[1:]
        if r[0] != kind or not all(w.isdigit() for w in rest):
            return None
        sets.add(tuple(sorted(rest)))
    items = sorted({w for t in sets for w in t}, key=int)
    top = max(len(t) for t in sets)
    from math import comb
    if len(sets) != len(rows) or len(sets) != sum(comb(len(items), i) for i in range(top + 1)):
        return None
    return "%s [%s%s %s]" % (kind, (keyword.pop() + " ") if keyword else "",
                             "any of" if top == len(items) else "up to %d of" % top,
                             " ".join(items))


def choice_pattern(rows):
    """`fill {A1 B2} {red blue}` when the moves are exactly every combination of the choices at
    each position (all of the same length); None otherwise."""
    if len({len(r) for r in rows}) != 1:
        return None
    columns = []
    for pos in range(len(rows[0])):
        seen = []
        for r in rows:
            if r[pos] not in seen:
                seen.append(r[pos])
        columns.append(seen)
    size = 1
    for c in columns:
        size *= len(c)
    if size != len({tuple(r) for r in rows}) or sum(len(c) for c in columns) > 40:
        return None
    return " ".join(c[0] if len(c) == 1 else "{%s}" % " ".join(c) for c in columns)


def when(timestamp, now=None):
    """A Timestamp as local time plus how long from now: '2026-11-27 14:03 (in 6d 23h)'."""
    if not timestamp.seconds:
        return "none"
    at = datetime.datetime.fromtimestamp(timestamp.seconds)
    now = now or datetime.datetime.now()
    delta = int((at - now).total_seconds())
    sign = "in " if delta >= 0 else ""
    delta = abs(delta)
    days, rest = divmod(delta, 86400)
    hours, rest = divmod(rest, 3600)
    span = "%dd %dh" % (days, hours) if days else "%dh %dm" % (hours, rest // 60) if hours \
        else "%dm" % (rest // 60)
    return "%s (%s%s%s)" % (at.strftime("%Y-%m-%d %H:%M"), sign, span,
                            "" if sign else " ago")
