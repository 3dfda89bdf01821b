"""Small helpers shared by the Python client test and the demo client.

Uses only Debian's python3-grpcio and the stubs generated into <build>/gen/python.
"""
import os
import random
import socket
import sys
import time

import grpc

SERVING = 1


def add_stub_path(build_dir):
    """Makes `from parlor.accounts.v1 import accounts_pb2` importable."""
    sys.path.insert(0, os.path.join(build_dir, "gen", "python"))


def _ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(x) for x in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_port():
    """A loopback port that is free now, chosen at random *below* the kernel's ephemeral range.

    A port the kernel hands out for bind(0) comes from the ephemeral range, which is also where
    every outgoing connection's local port comes from: between choosing it and the server
    binding it, one of the many client connections of a parallel test run can take it (seen in
    CI as "Address already in use"). Ports below the range are only ever taken by explicit
    binds, so the race is with other tests choosing the same random port, which is rare, and
    Stack retries that case."""
    low, _ = _ephemeral_range()
    ceiling = min(low, 65536) - 1
    floor = 10000 if ceiling > 20000 else 1024
    for _ in range(200):
        port = random.randint(floor, ceiling)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bearer(token):
    return (("authorization", "Bearer " + token),)


def health(channel, service=""):
    """grpc.health.v1.Health/Check without the health proto: field 1 is the service name in the
    request and the status enum in the answer. Returns the status number, or None on RPC error."""
    request = b""
    if service:
        encoded = service.encode()
        request = b"\x0a" + bytes([len(encoded)]) + encoded
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    try:
        answer = check(request, timeout=2)
    except grpc.RpcError as error:
        if os.environ.get("PARLOR_DEBUG_HEALTH"):
            print("health:", error.code(), error.details(), file=sys.stderr)
        return None
    return answer[1] if len(answer) == 2 and answer[0] == 0x08 else 0


def wait_serving(address, timeout=30, process=None):
    """Waits until the server at `address` reports SERVING; raises on timeout or early exit."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError("server exited with code %d before serving" % process.returncode)
        # A fresh channel per probe: a channel that saw "connection refused" backs off for
        # seconds before trying again.
        with grpc.insecure_channel(address) as channel:
            if health(channel) == SERVING:
                return
        time.sleep(0.1)
    raise RuntimeError("server at %s not SERVING after %ds" % (address, timeout))
