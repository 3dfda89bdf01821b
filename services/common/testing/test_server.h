#ifndef PARLOR_SERVICES_COMMON_TESTING_TEST_SERVER_H_
#define PARLOR_SERVICES_COMMON_TESTING_TEST_SERVER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "services/common/core/token.h"
#include "services/common/server.h"

// What every service's gRPC-level integration test needs, written once: the service started on a
// real PostgreSQL database (tests/pg) behind a real gRPC channel, keys and tokens of every kind
// (good, expired, forged, the wrong kind), a checksum of every table of a schema, and a runner
// for tables of bad requests that prints how many cases passed.
namespace parlor::testing {

// The two key pairs of a deployment (player access tokens, service credentials) and tokens
// minted with them. `now` defaults to the real clock: servers check `exp` with theirs.
class TestKeys {
 public:
  TestKeys();
  const auth::KeyPairBase64& access() const { return access_; }
  const auth::KeyPairBase64& service() const { return service_; }

  std::string PlayerToken(const std::string& account_id, absl::Time now = absl::Now()) const;
  // Expired an hour ago (beyond any clock-skew leeway).
  std::string ExpiredPlayerToken(const std::string& account_id) const;
  // Well-formed and unexpired, but signed by a key nobody trusts.
  std::string ForgedPlayerToken(const std::string& account_id) const;
  std::string ServiceToken(const std::string& service = "matchmaking",
                           absl::Time now = absl::Now()) const;
  std::string ExpiredServiceToken(const std::string& service = "matchmaking") const;
  std::string ForgedServiceToken(const std::string& service = "matchmaking") const;

 private:
  auth::KeyPairBase64 access_;
  auth::KeyPairBase64 service_;
};

// A clock a test moves by hand (Advance), safe to read from the servers' threads. It starts at
// the real time, so that tokens a real accounts server mints verify against it.
struct ManualClock {
  const absl::Time start = absl::Now();
  std::atomic<int64_t> micros{absl::ToUnixMicros(start)};
  absl::Time Now() const { return absl::FromUnixMicros(micros.load()); }
  void Advance(absl::Duration d) { micros += absl::ToInt64Microseconds(d); }
};

// A client context with `authorization: Bearer <token>` (none when empty) and a deadline.
std::unique_ptr<grpc::ClientContext> Bearer(const std::string& token,
                                            absl::Duration timeout = absl::Seconds(20));

// The settings of a service under test: loopback, a free port, no metrics exposer, the
// database `db_url`, the source tree's migrations, both public keys.
ServerConfig TestServerConfig(const std::string& db_url, const TestKeys& keys);

// One service (ServiceHost + what its Install* function built) listening on 127.0.0.1.
class TestServer {
 public:
  using Install = std::function<absl::StatusOr<std::shared_ptr<void>>(ServiceHost&)>;

  // Creates the host from `config`, lets `install` register the service, starts it and opens a
  // channel to it.
  static absl::StatusOr<std::unique_ptr<TestServer>> Start(ServiceHost::Identity identity,
                                                           ServerConfig config,
                                                           const Install& install);
  // Shuts the host down before releasing what `install` built (the order the hosts require).
  ~TestServer();

  ServiceHost& host() { return *host_; }
  const std::shared_ptr<void>& installed() const { return installed_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  std::string address() const;

 private:
  TestServer() = default;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<void> installed_;
  std::shared_ptr<grpc::Channel> channel_;
};

// One line per table of `schema`: its row count and a digest of all its rows. Equal before and
// after a call means the call changed no table.
absl::StatusOr<std::string> SchemaChecksum(const std::string& db_url, const std::string& schema);

// Sends `bytes` as the request of `method` ("/pkg.Service/Method") without a generated stub, so
// a test can send what no well-behaved client would (bytes that do not parse, wrong wire types).
grpc::Status RawUnaryCall(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                          const std::string& bytes, const std::string& token);

// One bad request and what must come back: the exact code, a substring of the message a client
// developer would act on, and (unless `changes_database`) no change to any table.
struct BadInputCase {
  std::string name;
  std::function<grpc::Status()> call;
  grpc::StatusCode code;
  std::string message;
  bool changes_database = false;
};

// Runs every case, checks each (gtest failures name the case), and prints
// "<service> bad-input: N/M cases". `checksum` is called before and after every case.
void RunBadInputCases(const std::string& service, const std::vector<BadInputCase>& cases,
                      const std::function<std::string()>& checksum);

}  // namespace parlor::testing

#endif  // PARLOR_SERVICES_COMMON_TESTING_TEST_SERVER_H_
