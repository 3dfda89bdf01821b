"""The independent Parlor client: built from the public protos alone (stubs generated with protoc
and grpc_python_plugin, run on Debian's python3-grpcio), the way a mobile team would build one.

A Player signs in as a device, keeps one WatchMyGames stream open (as a phone in the foreground
does) and learns from it when it is its turn; it then reads its seat view and legal actions
with GetGame and moves with SubmitAction (expected version + fresh idempotency key).
"""
import os
import queue
import random
import subprocess
import sys
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PROTO_DIR = os.path.join(ROOT, "protos")


def proto_roots():
    """The proto roots stubs are generated from: protos/, then the roots listed in
    PARLOR_EXTRA_PROTO_DIRS (os.pathsep-separated; e.g. protos-test/ for the test-only games)."""
    extra = os.environ.get("PARLOR_EXTRA_PROTO_DIRS", "")
    return [PROTO_DIR] + [os.path.abspath(d) for d in extra.split(os.pathsep) if d]


def generate_stubs(out_dir):
    """Generates the Python stubs of every proto under the roots' parlor/ folders into out_dir
    (when out of date or generated from other roots)."""
    roots = proto_roots()
    protos, newest = [], 0.0
    for root in roots:
        for base, _, files in os.walk(os.path.join(root, "parlor")):
            for f in files:
                if f.endswith(".proto"):
                    path = os.path.join(base, f)
                    protos.append(path)
                    newest = max(newest, os.path.getmtime(path))
    stamp = os.path.join(out_dir, ".parlor-stubs")
    wanted = "\n".join(roots) + "\n"
    current = ""
    if os.path.exists(stamp):
        with open(stamp) as f:
            current = f.read()
    if current != wanted or os.path.getmtime(stamp) < newest:
        if set(current.split("\n")[:-1]) - set(roots) - {"generated"}:
            # A root was dropped: the stubs of its games must not be discovered any more.
            import shutil
            shutil.rmtree(os.path.join(out_dir, "parlor"), ignore_errors=True)
        os.makedirs(out_dir, exist_ok=True)
        includes = []
        for root in roots:
            includes += ["-I", root]
        subprocess.check_call(
            ["protoc"] + includes + ["--python_out", out_dir, "--grpc_out", out_dir,
                                     "--plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin"]
            + sorted(protos))
        with open(stamp, "w") as f:
            f.write(wanted)
    if out_dir not in sys.path:
        sys.path.insert(0, out_dir)


def default_stub_dir():
    return os.environ.get("PARLOR_PY_STUBS_DIR",
                          os.path.join(os.path.expanduser("~"), ".cache", "parlor", "python"))


generate_stubs(default_stub_dir())

import grpc  # noqa: E402
from google.protobuf import json_format, symbol_database, text_format  # noqa: E402
from google.protobuf import duration_pb2, timestamp_pb2  # noqa: E402,F401
from parlor.accounts.v1 import accounts_pb2 as apb, accounts_pb2_grpc as agrpc  # noqa: E402
from parlor.matchmaking.v1 import matchmaking_pb2 as mpb  # noqa: E402
from parlor.matchmaking.v1 import matchmaking_pb2_grpc as mgrpc  # noqa: E402
from parlor.ratings.v1 import ratings_pb2 as rpb, ratings_pb2_grpc as rgrpc  # noqa: E402
from parlor.sessions.v1 import sessions_pb2 as spb, sessions_pb2_grpc as sgrpc  # noqa: E402



def discover_games():
    """The games the protos define: every parlor.games.v1 module with a <Game>Action and a
    <Game>View message, as {"pico": "PicoAction", ...}, in the order of the file names. No game
    is named here: a game's stubs are imported (and its types registered for unpack) by this
    scan."""
    import glob
    import importlib
    found = {}
    folder = os.path.join(default_stub_dir(), "parlor", "games", "v1")
    for path in sorted(glob.glob(os.path.join(folder, "*_pb2.py"))):
        module = importlib.import_module("parlor.games.v1." + os.path.basename(path)[:-3])
        names = module.DESCRIPTOR.message_types_by_name
        for name in names:
            if name.endswith("Action") and name[:-len("Action")] + "View" in names:
                found[name[:-len("Action")].lower()] = name
    return found


ACTION_TYPES = discover_games()
GAMES = tuple(ACTION_TYPES)


def unpack(any_message):
    """An Any as its typed message (any parlor.games.v1 View or Action)."""
    cls = symbol_database.Default().GetSymbol(any_message.TypeName())
    message = cls()
    any_message.Unpack(message)
    return message


def _fields(data):
    """(field number, wire type, value) of a serialized protobuf message; LEN values as bytes."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, i = data[i:i + size], i + size
        else:
            return
        yield number, wire, value


def _varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value, i


def retry_delay(error, default=1.0):
    """Seconds the server asks a client to wait before retrying (the google.rpc.RetryInfo detail
    of a RESOURCE_EXHAUSTED or UNAVAILABLE error), or `default` when it names none."""
    trailers = dict(error.trailing_metadata() or ()) if hasattr(error, "trailing_metadata") else {}
    details = trailers.get("grpc-status-details-bin")
    if not details:
        return default
    try:
        for number, wire, detail in _fields(details):  # google.rpc.Status.details (Any)
            if number != 3 or wire != 2:
                continue
            parts = {n: v for n, w, v in _fields(detail) if w == 2}
            if parts.get(1, b"").decode() != "type.googleapis.com/google.rpc.RetryInfo":
                continue
            for n, w, delay in _fields(parts.get(2, b"")):
                if n == 1 and w == 2:
                    d = duration_pb2.Duration.FromString(delay)
                    return max(0.0, d.seconds + d.nanos / 1e9)
    except (IndexError, UnicodeDecodeError, ValueError):
        pass
    return default


def one_line(message):
    return text_format.MessageToString(message, as_one_line=True) or "(empty)"


def action_class(game):
    return symbol_database.Default().GetSymbol("parlor.games.v1." + ACTION_TYPES[game])


def action_help(game):
    """How to write a move of a game this client has no notation for, from its Action proto:
    its fields, e.g. 'RaceAction fields: add (int32), boost (bool)'."""
    fields = ["%s (%s)" % (f.name, f.message_type.name if f.message_type else
                           _TYPE_NAMES.get(f.type, "value"))
              for f in action_class(game).DESCRIPTOR.fields]
    return ("%s moves: a listed number (#0, #1, ...) or the %s as JSON or protobuf text; its "
            "fields: %s" % (game, ACTION_TYPES[game], ", ".join(fields) or "none"))


_TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool",
               9: "string", 12: "bytes", 13: "uint32", 14: "enum", 17: "sint32", 18: "sint64"}


class Channels:
    """One channel per service, shared by every player of a process."""

    def __init__(self, accounts, sessions, matchmaking="", ratings=""):
        self.channels = [grpc.insecure_channel(accounts), grpc.insecure_channel(sessions)]
        self.accounts = agrpc.AccountsServiceStub(self.channels[0])
        self.sessions = sgrpc.SessionsServiceStub(self.channels[1])
        if matchmaking:
            self.channels.append(grpc.insecure_channel(matchmaking))
            self.matchmaking = mgrpc.MatchmakingServiceStub(self.channels[-1])
        if ratings:
            self.channels.append(grpc.insecure_channel(ratings))
            self.ratings = rgrpc.RatingsServiceStub(self.channels[-1])

    def close(self):
        for channel in self.channels:
            channel.close()


def save_session(path, state):
    """Writes the session state (it holds the refresh token) to `path`, readable by its owner only
    (mode 0600), replacing the file atomically."""
    import json
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd = os.open(path + ".new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(state, f)
    os.chmod(path + ".new", 0o600)
    os.replace(path + ".new", path)


class Player:
    """One signed-in device with its WatchMyGames stream.

    The player stays signed in: it keeps the refresh token, renews the access token a minute
    before it expires (and once more when a call fails UNAUTHENTICATED), and reopens its watch
    stream after a renewal. With `session_file` the tokens are also kept in that file (mode 0600),
    and Player.resume() signs in again from it without the device id."""

    def __init__(self, channels, device_id, display_name=None, rng=None, timeout=10,
                 session_file=None, _signed_in=None):
        self.c = channels
        self.rng = rng or random.Random()
        self.timeout = timeout
        self.session_file = session_file
        self._token_lock = threading.Lock()
        if _signed_in is None:
            request = apb.AuthenticateDeviceRequest(device_id=device_id)
            if display_name:
                request.display_name = display_name
            _signed_in = channels.accounts.AuthenticateDevice(request, timeout=timeout)
        self.account_id = _signed_in.account.account_id
        self.name = _signed_in.account.display_name
        self._keep(_signed_in.tokens)
        self._queues = {}
        self._lock = threading.Lock()
        self._watch = None
        self._watching = False
        self.notifications = 0
        # (receive time, game summary) of every "your turn" push, for latency figures.
        self.on_notification = None

    @classmethod
    def resume(cls, channels, session_file, rng=None, timeout=10):
        """The player of a session file written earlier: signed in again with its refresh token
        (no device id, no password), or grpc.RpcError UNAUTHENTICATED when the session ended."""
        import json
        with open(session_file) as f:
            state = json.load(f)
        answer = channels.accounts.RefreshSession(
            apb.RefreshSessionRequest(refresh_token=state["refresh_token"]), timeout=timeout)
        signed_in = apb.AuthenticateDeviceResponse(tokens=answer.tokens)
        signed_in.account.account_id = state["account_id"]
        signed_in.account.display_name = state.get("display_name", "")
        return cls(channels, None, rng=rng, timeout=timeout, session_file=session_file,
                   _signed_in=signed_in)

    # --- Tokens -------------------------------------------------------------------------------
    def _keep(self, tokens):
        self.token = tokens.access_token
        self.refresh_token = tokens.refresh_token
        self.access_expire = tokens.access_token_expire_time.seconds
        if self.session_file:
            save_session(self.session_file, {
                "account_id": self.account_id, "display_name": self.name,
                "refresh_token": self.refresh_token})

    def refresh(self, stale_token=None):
        """Exchanges the refresh token for new tokens (once per stale access token, however many
        threads ask)."""
        with self._token_lock:
            if stale_token is not None and stale_token != self.token:
                return  # another thread renewed it already
            answer = self.c.accounts.RefreshSession(
                apb.RefreshSessionRequest(refresh_token=self.refresh_token), timeout=self.timeout)
            self._keep(answer.tokens)

    @property
    def md(self):
        """The call metadata with a live access token (renewed when it has less than a minute
        left)."""
        token = self.token
        if self.access_expire and self.access_expire - time.time() < 60:
            self.refresh(stale_token=token)
        return (("authorization", "Bearer " + self.token),)

    def _call(self, method, request, **kwargs):
        """One unary call; an UNAUTHENTICATED answer renews the token and retries once."""
        token = self.token
        try:
            return method(request, metadata=self.md, timeout=self.timeout, **kwargs)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAUTHENTICATED:
                raise
        self.refresh(stale_token=token)
        return method(request, metadata=self.md, timeout=self.timeout, **kwargs)

    # --- WatchMyGames -------------------------------------------------------------------------
    def start_watch(self):
        self._watching = True
        self._watch = self.c.sessions.WatchMyGames(spb.WatchMyGamesRequest(), metadata=self.md)
        thread = threading.Thread(target=self._pump, daemon=True)
        thread.start()

    def _pump(self):
        while True:
            token = self.token
            try:
                for change in self._watch:
                    now = time.time()
                    self.notifications += 1
                    if self.on_notification:
                        self.on_notification(self, change.game, now)
                    self._queue(change.game.game_id).put(change.game)
                return
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.UNAUTHENTICATED and self._watching:
                    # The access token expired under the stream: renew it and watch again.
                    try:
                        self.refresh(stale_token=token)
                        self._watch = self.c.sessions.WatchMyGames(spb.WatchMyGamesRequest(),
                                                                   metadata=self.md)
                        continue
                    except grpc.RpcError:
                        pass
                if error.code() != grpc.StatusCode.CANCELLED:
                    for q in list(self._queues.values()):
                        q.put(None)
                return

    def stop_watch(self):
        self._watching = False
        if self._watch is not None:
            self._watch.cancel()

    def _queue(self, game_id):
        with self._lock:
            return self._queues.setdefault(game_id, queue.Queue())

    def wait_change(self, game_id, timeout):
        """The next pushed summary of game_id, or None after timeout."""
        try:
            return self._queue(game_id).get(timeout=timeout)
        except queue.Empty:
            return None

    # --- RPCs ---------------------------------------------------------------------------------
    def get_game(self, game_id):
        return self._call(self.c.sessions.GetGame, spb.GetGameRequest(game_id=game_id))

    def submit(self, game_id, version, action_any, key=None):
        request = spb.SubmitActionRequest(game_id=game_id, expected_version=version,
                                          idempotency_key=key or uuid.uuid4().hex)
        request.action.CopyFrom(action_any)
        return self._call(self.c.sessions.SubmitAction, request)

    def history(self, game_id):
        events, version = [], 0
        while True:
            page = self.c.sessions.GetHistory(
                spb.GetHistoryRequest(game_id=game_id, from_version=version, page_size=200),
                metadata=self.md, timeout=self.timeout)
            events += page.events
            if not page.events or events[-1].version >= page.current_version:
                return events
            version = events[-1].version + 1

    # --- Playing ------------------------------------------------------------------------------
    def choose(self, game, legal_actions):
        return self.rng.choice(list(legal_actions))

    def play(self, game_id, on_move=None, stats=None, deadline=None, poll=5.0):
        """Plays game_id to its end: waits for 'your turn' pushes, moves with a legal action.
        Returns the finished Game. on_move(player, game_before, action_any) is called per move."""
        got = None
        while deadline is None or time.time() < deadline:
            if got is None:
                try:
                    got = self.get_game(game_id)
                except grpc.RpcError as error:
                    if error.code() == grpc.StatusCode.NOT_FOUND:  # the match's game is coming
                        time.sleep(0.05)
                        continue
                    raise
            game = got.game
            if game.status == spb.GAME_STATUS_FINISHED:
                return game
            if game.my_turn and got.legal_actions:
                action = self.choose(game.game, got.legal_actions)
                started = time.time()
                try:
                    answer = self.submit(game_id, game.version, action)
                except grpc.RpcError as error:
                    if stats is not None:
                        stats.error(error.code().name)
                    if error.code() in (grpc.StatusCode.ABORTED,
                                        grpc.StatusCode.PERMISSION_DENIED):
                        got = None  # someone else (or a timeout) moved first: look again
                        continue
                    raise
                if stats is not None:
                    stats.submitted(time.time() - started)
                if on_move:
                    on_move(self, game, action)
                got = answer  # same shape: game, view, legal_actions
                continue
            # Not my turn: the WatchMyGames push tells when it changes.
            change = self.wait_change(game_id, poll)
            if change is None and stats is not None:
                stats.error("NO_PUSH_WITHIN_%ds" % poll)
            if change is not None and change.version <= game.version and \
                    change.status == game.status:
                continue
            got = None
        raise TimeoutError("game %s did not finish in time" % game_id)


def describe_view(view_any):
    """A seat view as readable text (the typed view in protobuf text format)."""
    return text_format.MessageToString(unpack(view_any))


def parse_action(game, text, legal_actions=()):
    """A move typed by a person, as an Any of the game's Action. Accepts: the number of a legal
    action as listed by `parlor show`; the Action as JSON ({"card": 7}) or text format
    (card: 7); or "play N" in Pico."""
    from google.protobuf import any_pb2
    text = text.strip()
    cls = action_class(game)
    action = cls()
    words = text.split()
    if text.isdigit() and legal_actions and int(text) < len(legal_actions) and game != "pico":
        return legal_actions[int(text)]
    if text.startswith("#") and text[1:].isdigit():
        return legal_actions[int(text[1:])]
    if game == "pico" and len(words) in (1, 2) and words[-1].isdigit() and \
            (len(words) == 1 or words[0] in ("play", "card")):
        action.card = int(words[-1])
    elif text.startswith("{"):
        json_format.Parse(text, action)
    else:
        text_format.Parse(text, action)
    packed = any_pb2.Any()
    packed.Pack(action)
    return packed
