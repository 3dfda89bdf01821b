#ifndef PARLOR_SERVICES_ACCOUNTS_API_API_CONVERT_H_
#define PARLOR_SERVICES_ACCOUNTS_API_API_CONVERT_H_

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"
#include "parlor/accounts/v1/accounts.pb.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/domain/credentials_service.h"
#include "services/accounts/store/friends_store.h"

// Domain → proto conversions the accounts API files share.
namespace parlor::accounts {

void ToProto(absl::Time time, google::protobuf::Timestamp* out);
void ToProto(const Account& account, v1::Account* out);
void ToProto(const SessionTokens& tokens, v1::SessionTokens* out);
void ToProto(const CredentialRow& credential, v1::Credential* out);
void ToProto(const DeviceInfo& device, v1::Device* out);
void ToProto(const PlayerRow& player, v1::PlayerSummary* out);

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_API_API_CONVERT_H_
