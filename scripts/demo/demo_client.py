#!/usr/bin/python3
"""The Parlor demo, as a mobile app would do it: two devices sign in, read and update their
profiles, refresh their session, and find each other's names through the internal API.

usage: demo_client.py BUILD_DIR ACCOUNTS_ADDRESS [SERVICE_TOKEN]
"""
import os
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import parlor_grpc  # noqa: E402

parlor_grpc.add_stub_path(sys.argv[1])
import grpc  # noqa: E402
from parlor.accounts.v1 import accounts_pb2 as pb  # noqa: E402
from parlor.accounts.v1 import accounts_pb2_grpc as rpc  # noqa: E402


def main():
    address = sys.argv[2]
    service_token = sys.argv[3] if len(sys.argv) > 3 else ""
    suffix = uuid.uuid4().hex[:4]
    with grpc.insecure_channel(address) as channel:
        accounts = rpc.AccountsServiceStub(channel)
        players = []
        for device, name in (("phone-of-ada-" + suffix, "Ada " + suffix),
                             ("tablet-of-bob-" + suffix, None)):
            request = pb.AuthenticateDeviceRequest(device_id=device)
            if name:
                request.display_name = name
            answer = accounts.AuthenticateDevice(request, timeout=5)
            print("  %-22s signed in: account %s, display name %r (new: %s)"
                  % (device, answer.account.account_id, answer.account.display_name,
                     answer.created))
            players.append(answer)

        ada, bob = players
        me = accounts.GetMe(pb.GetMeRequest(), metadata=parlor_grpc.bearer(ada.tokens.access_token),
                            timeout=5)
        print("  GetMe(ada)               -> %r" % me.account.display_name)
        updated = accounts.UpdateProfile(pb.UpdateProfileRequest(display_name="Bob " + suffix),
                                         metadata=parlor_grpc.bearer(bob.tokens.access_token),
                                         timeout=5)
        print("  UpdateProfile(bob)       -> %r" % updated.account.display_name)
        try:
            accounts.UpdateProfile(pb.UpdateProfileRequest(display_name="ADA " + suffix),
                                   metadata=parlor_grpc.bearer(bob.tokens.access_token), timeout=5)
        except grpc.RpcError as error:
            print("  UpdateProfile(bob, 'ADA %s') -> %s: %s"
                  % (suffix, error.code().name, error.details()))
        refreshed = accounts.RefreshSession(
            pb.RefreshSessionRequest(refresh_token=ada.tokens.refresh_token), timeout=5)
        print("  RefreshSession(ada)      -> new access token, expires %s"
              % refreshed.tokens.access_token_expire_time.ToJsonString())
        me = accounts.GetMe(pb.GetMeRequest(),
                            metadata=parlor_grpc.bearer(refreshed.tokens.access_token), timeout=5)
        print("  GetMe(ada, new token)    -> %r" % me.account.display_name)

        if service_token:
            internal = rpc.AccountsInternalServiceStub(channel)
            found = internal.BatchGetAccounts(
                pb.BatchGetAccountsRequest(account_ids=[ada.account.account_id,
                                                        bob.account.account_id]),
                metadata=parlor_grpc.bearer(service_token), timeout=5)
            print("  BatchGetAccounts (internal, service credential) -> %s"
                  % [a.display_name for a in found.accounts])
    print("demo client: OK")


if __name__ == "__main__":
    main()
