#!/usr/bin/env python3
"""Fake APNs + FCM (+ Google OAuth token endpoint) for tests and the load tool.

One TLS + HTTP/2 server (Python ssl with ALPN "h2", the h2 library for the framing) that
answers like the real providers do, and checks what a provider would check:

  APNs provider API    POST /3/device/<token>
    authorization: bearer <ES256 JWT>: header alg ES256 + kid, claims iss (team id) + iat,
      signature (R || S, verified with the public half of the .p8 key); an iat older than an
      hour is ExpiredProviderToken (403), a bad one InvalidProviderToken (403)
    apns-topic (must be the expected bundle id), apns-push-type alert|background,
    apns-priority 5|10, apns-expiration (UNIX seconds), apns-collapse-id (<= 64 bytes),
    a JSON body <= 4096 bytes with aps.alert.loc-key, aps.badge, aps.thread-id
  OAuth 2.0 token      POST /token  grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
    assertion: RS256 JWT (kid, iss = client_email, scope firebase.messaging, aud = this
    token uri, exp - iat <= 3600), signature verified with the service account's public key
  FCM HTTP v1          POST /v1/projects/<project>/messages:send
    authorization: Bearer <an access token this server issued>; message.token,
    android.collapse_key, android.ttl ("<seconds>s"), android.notification.body_loc_key,
    data values all strings

Answers by device token (so a test picks the outcome):
  prefix dead  APNs 410 Unregistered / FCM 404 UNREGISTERED
  prefix bad0  APNs 400 BadDeviceToken / FCM 400 INVALID_ARGUMENT (not a valid registration
               token)
  prefix c429  429 with Retry-After: 1 on the first attempt, then success
  prefix c500  503 on the first attempt, then success
  prefix c400  400 on every attempt (a bad request that is not about the token)
  anything else: success (APNs 200 + apns-id; FCM 200 + message name)

--dir DIR makes everything a client needs at start (server certificate for 127.0.0.1, the
APNs .p8 key, a service-account key file whose token_uri points here) and writes
DIR/ready.json naming them and the port. Every request becomes one JSON line in DIR/requests.jsonl
(method, path, headers, body, answer, and `problems`: what a real provider would have refused).
"""
import argparse
import asyncio
import base64
import datetime
import json
import os
import re
import ssl
import sys
import time
import urllib.parse

import h2.config
import h2.connection
import h2.events
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

APNS_KEY_ID = "ABC123DEFG"
APNS_TEAM_ID = "DEF123GHIJ"
APNS_TOPIC = "com.parlor.app"
FCM_PROJECT = "parlor-test"
FCM_CLIENT = "push@parlor-test.iam.gserviceaccount.com"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def make_material(directory):
    """Server certificate, APNs key, service-account key; returns the public keys."""
    server_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fake-push")])
    now = datetime.datetime.utcnow()
    import ipaddress
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(server_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(server_key, hashes.SHA256()))
    paths = {k: os.path.join(directory, v) for k, v in {
        "ca_file": "server.crt", "server_key": "server.key", "apns_key_file": "apns.p8",
        "service_account_file": "service-account.json", "log_file": "requests.jsonl"}.items()}
    with open(paths["ca_file"], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["server_key"], "w") as f:
        f.write(pem(server_key))
    apns_key = ec.generate_private_key(ec.SECP256R1())
    with open(paths["apns_key_file"], "w") as f:
        f.write(pem(apns_key))
    fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return paths, apns_key.public_key(), fcm_key


class Provider:
    def __init__(self, paths, apns_public, fcm_public, port, log):
        self.paths = paths
        self.apns_public = apns_public
        self.fcm_public = fcm_public
        self.token_uri = f"https://127.0.0.1:{port}/token"
        self.log = log
        self.attempts = {}  # device token -> requests seen
        self.verified = {}  # JWT -> claims (verification is costly; tokens are reused)
        self.access_tokens = set()
        self.issued = 0
        self.messages = 0

    # -- helpers ------------------------------------------------------------------------------
    def jwt(self, token, algorithm, key, problems):
        """Decoded (header, claims) when the signature verifies, else None."""
        if token in self.verified:
            return self.verified[token]
        parts = token.split(".")
        if len(parts) != 3:
            problems.append("JWT is not three base64url parts")
            return None
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except Exception:
            problems.append("JWT parts are not base64url JSON")
            return None
        if header.get("alg") != algorithm:
            problems.append(f"JWT alg is {header.get('alg')!r}, not {algorithm}")
            return None
        signed = (parts[0] + "." + parts[1]).encode()
        try:
            if algorithm == "ES256":
                if len(signature) != 64:
                    problems.append(f"ES256 signature is {len(signature)} bytes, not 64 (R||S)")
                    return None
                der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                           int.from_bytes(signature[32:], "big"))
                key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
            else:
                key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            problems.append(f"{algorithm} signature does not verify")
            return None
        self.verified[token] = (header, claims)
        return header, claims

    def scripted(self, token):
        """The scripted outcome for this device token: None (success) or a failure name."""
        seen = self.attempts.get(token, 0)
        self.attempts[token] = seen + 1
        if token.startswith("dead"):
            return "dead"
        if token.startswith("bad0"):
            return "bad_token"
        if token.startswith("c429") and seen == 0:
            return "429"
        if token.startswith("c500") and seen == 0:
            return "503"
        if token.startswith("c400"):
            return "400"
        return None

    # -- endpoints ----------------------------------------------------------------------------
    def apns(self, headers, body, token, problems):
        def reason(status, why, extra=()):
            return status, list(extra), json.dumps({"reason": why}).encode()
        auth = headers.get("authorization", "")
        if not auth.startswith("bearer "):
            problems.append("authorization is not 'bearer <provider token>'")
            return reason(403, "MissingProviderToken")
        decoded = self.jwt(auth[len("bearer "):], "ES256", self.apns_public, problems)
        if decoded is None:
            return reason(403, "InvalidProviderToken")
        header, claims = decoded
        if header.get("kid") != APNS_KEY_ID or claims.get("iss") != APNS_TEAM_ID:
            problems.append(f"provider token kid/iss {header.get('kid')}/{claims.get('iss')}")
            return reason(403, "InvalidProviderToken")
        iat = claims.get("iat")
        if not isinstance(iat, int) or iat > time.time() + 60:
            problems.append("provider token iat missing or in the future")
            return reason(403, "InvalidProviderToken")
        if time.time() - iat > 3600:
            problems.append("provider token older than an hour")
            return reason(403, "ExpiredProviderToken")
        if headers.get("apns-topic") != APNS_TOPIC:
            problems.append(f"apns-topic {headers.get('apns-topic')!r}")
            return reason(400, "DeviceTokenNotForTopic" if headers.get("apns-topic")
                          else "MissingTopic")
        if headers.get("apns-push-type") not in ("alert", "background"):
            problems.append(f"apns-push-type {headers.get('apns-push-type')!r}")
            return reason(400, "InvalidPushType")
        if headers.get("apns-priority", "10") not in ("5", "10"):
            problems.append("apns-priority")
            return reason(400, "BadPriority")
        if not re.fullmatch(r"\d+", headers.get("apns-expiration", "")):
            problems.append("apns-expiration missing or not UNIX seconds")
            return reason(400, "BadExpirationDate")
        collapse = headers.get("apns-collapse-id")
        if collapse is not None and len(collapse.encode()) > 64:
            problems.append("apns-collapse-id longer than 64 bytes")
            return reason(400, "BadCollapseId")
        if len(body) > 4096:
            problems.append("payload over 4096 bytes")
            return reason(413, "PayloadTooLarge")
        try:
            payload = json.loads(body)
            aps = payload["aps"]
            assert isinstance(aps["alert"]["loc-key"], str)
            assert isinstance(aps["alert"].get("loc-args", []), list)
            assert isinstance(aps["alert"].get("subtitle", ""), str)
            assert isinstance(aps["badge"], int)
            assert isinstance(aps["thread-id"], str)
        except Exception:
            problems.append("payload is not an alert with loc-key, badge and thread-id")
            return reason(400, "PayloadEmpty")
        if not re.fullmatch(r"[0-9a-f]{64,200}", token):
            return reason(400, "BadDeviceToken")
        outcome = self.scripted(token)
        if outcome == "dead":
            return 410, [], json.dumps({"reason": "Unregistered",
                                        "timestamp": int(time.time() * 1000)}).encode()
        if outcome == "bad_token":
            return reason(400, "BadDeviceToken")
        if outcome == "429":
            return reason(429, "TooManyRequests", [("retry-after", "1")])
        if outcome == "503":
            return reason(503, "ServiceUnavailable")
        if outcome == "400":
            return reason(400, "BadMessageId")
        self.messages += 1
        return 200, [("apns-id", f"00000000-0000-4000-8000-{self.messages:012d}")], b""

    def oauth(self, headers, body, problems):
        def error(why):
            return 400, [("content-type", "application/json")], json.dumps(
                {"error": "invalid_grant", "error_description": why}).encode()
        form = urllib.parse.parse_qs(body.decode(errors="replace"))
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            problems.append(f"grant_type {form.get('grant_type')}")
            return error("grant_type must be the JWT bearer grant")
        decoded = self.jwt((form.get("assertion") or [""])[0], "RS256", self.fcm_public,
                           problems)
        if decoded is None:
            return error("Invalid JWT Signature.")
        header, claims = decoded
        now = time.time()
        checks = [
            (header.get("kid") == "key-1", "kid"),
            (claims.get("iss") == FCM_CLIENT, "iss is not the client email"),
            (FCM_SCOPE in str(claims.get("scope", "")).split(), "scope lacks firebase.messaging"),
            (claims.get("aud") == self.token_uri, f"aud {claims.get('aud')!r} is not the token uri"),
            (isinstance(claims.get("iat"), int) and abs(claims["iat"] - now) < 300, "iat"),
            (isinstance(claims.get("exp"), int) and 0 < claims["exp"] - claims.get("iat", 0) <= 3600,
             "exp must be at most an hour after iat"),
        ]
        for ok, why in checks:
            if not ok:
                problems.append(why)
                return error(why)
        self.issued += 1
        access = f"ya29.fake-{self.issued}-{os.urandom(8).hex()}"
        self.access_tokens.add(access)
        return 200, [("content-type", "application/json")], json.dumps(
            {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}).encode()

    def fcm(self, headers, body, project, problems):
        def error(status, name, message, code=None, extra=()):
            details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                        "errorCode": code or name}]
            return status, [("content-type", "application/json")] + list(extra), json.dumps(
                {"error": {"code": status, "message": message, "status": name,
                           "details": details}}).encode()
        auth = headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[len("Bearer "):] not in self.access_tokens:
            problems.append("authorization is not 'Bearer <issued access token>'")
            return error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.",
                         code="THIRD_PARTY_AUTH_ERROR")
        if project != FCM_PROJECT:
            problems.append(f"project {project!r}")
            return error(404, "NOT_FOUND", "Requested entity was not found.", code="SENDER_ID_MISMATCH")
        try:
            message = json.loads(body)["message"]
            token = message["token"]
            android = message["android"]
            assert isinstance(android["collapse_key"], str)
            assert isinstance(android["notification"]["body_loc_key"], str)
            assert all(isinstance(v, str) for v in message.get("data", {}).values())
            if "ttl" in android:
                assert re.fullmatch(r"\d+(\.\d{1,9})?s", android["ttl"])
        except Exception:
            problems.append("message lacks token / android.collapse_key / body_loc_key, or data "
                            "values that are not strings, or a malformed ttl")
            return error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
        outcome = self.scripted(token)
        if outcome == "dead":
            return error(404, "NOT_FOUND", "Requested entity was not found.", code="UNREGISTERED")
        if outcome == "bad_token":
            return error(400, "INVALID_ARGUMENT",
                         "The registration token is not a valid FCM registration token",
                         code="INVALID_ARGUMENT")
        if outcome == "429":
            return error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", code="QUOTA_EXCEEDED",
                         extra=[("retry-after", "1")])
        if outcome == "503":
            return error(503, "UNAVAILABLE", "The service is currently unavailable.")
        if outcome == "400":
            return error(400, "INVALID_ARGUMENT", "Invalid value at 'message.android.priority'")
        self.messages += 1
        return 200, [("content-type", "application/json")], json.dumps(
            {"name": f"projects/{project}/messages/{self.messages}"}).encode()

    def handle(self, headers, body):
        problems = []
        path = headers.get(":path", "")
        if headers.get(":method") != "POST":
            status, extra, answer = 405, [], b""
        elif path.startswith("/3/device/"):
            status, extra, answer = self.apns(headers, body, path[len("/3/device/"):], problems)
        elif path == "/token":
            status, extra, answer = self.oauth(headers, body, problems)
        elif (m := re.fullmatch(r"/v1/projects/([^/]+)/messages:send", path)):
            status, extra, answer = self.fcm(headers, body, m.group(1), problems)
        else:
            status, extra, answer = 404, [], b""
        self.log.write(json.dumps({
            "time": time.time(), "path": path,
            "headers": {k: v for k, v in headers.items() if not k.startswith(":")},
            "body": body.decode(errors="replace"), "status": status,
            "answer": answer.decode(errors="replace"), "problems": problems}) + "\n")
        return status, extra, answer


class Connection(asyncio.Protocol):
    def __init__(self, provider):
        self.provider = provider
        self.streams = {}

    def connection_made(self, transport):
        self.transport = transport
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.transport.write(self.conn.data_to_send())

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                headers, body = self.streams.pop(event.stream_id, ({}, bytearray()))
                status, extra, answer = self.provider.handle(headers, bytes(body))
                self.conn.send_headers(event.stream_id, [(":status", str(status))] + extra +
                                       [("content-length", str(len(answer)))],
                                       end_stream=not answer)
                if answer:
                    self.conn.send_data(event.stream_id, answer, end_stream=True)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.transport.close()
        # Logged before answered (a test reads the log once it has its answers), once per read
        # however many streams it carried.
        self.provider.log.flush()
        self.transport.write(self.conn.data_to_send())


async def serve(args):
    paths, apns_public, fcm_key = make_material(args.dir)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(paths["ca_file"], paths["server_key"])
    context.set_alpn_protocols(["h2"])
    log = open(paths["log_file"], "a")
    loop = asyncio.get_running_loop()
    holder = {}
    server = await loop.create_server(lambda: Connection(holder["provider"]), "127.0.0.1",
                                      args.port, ssl=context)
    port = server.sockets[0].getsockname()[1]
    holder["provider"] = Provider(paths, apns_public, fcm_key.public_key(), port, log)
    with open(paths["service_account_file"], "w") as f:
        json.dump({"type": "service_account", "project_id": FCM_PROJECT,
                   "private_key_id": "key-1", "private_key": pem(fcm_key),
                   "client_email": FCM_CLIENT, "client_id": "1",
                   "token_uri": f"https://127.0.0.1:{port}/token"}, f)
    ready = dict(paths, port=port, url=f"https://127.0.0.1:{port}", apns_key_id=APNS_KEY_ID,
                 apns_team_id=APNS_TEAM_ID, apns_topic=APNS_TOPIC, fcm_project=FCM_PROJECT)
    del ready["server_key"]
    with open(os.path.join(args.dir, "ready.json.tmp"), "w") as f:
        json.dump(ready, f)
    os.rename(os.path.join(args.dir, "ready.json.tmp"), os.path.join(args.dir, "ready.json"))
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, help="work directory (keys, ready.json, log)")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
