"""Small helpers shared by the Python client test and the demo client.

Uses only Debian's python3-grpcio and the stubs generated into <build>/gen/python.
"""
import os
import socket
import sys
import time

import grpc

SERVING = 1


def add_stub_path(build_dir):
    """Makes `from parlor.accounts.v1 import accounts_pb2` importable."""
    sys.path.insert(0, os.path.join(build_dir, "gen", "python"))


def free_port():
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
