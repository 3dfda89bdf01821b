#include "services/common/testing/test_server.h"

#include <cstdio>
#include <future>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "gtest/gtest.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::testing {
namespace {

std::string Sign(auth::TokenKind kind, const std::string& private_key, const std::string& subject,
                 absl::Time now, absl::Duration ttl) {
  absl::StatusOr<auth::TokenSigner> signer = auth::TokenSigner::Create(kind, private_key);
  EXPECT_TRUE(signer.ok()) << signer.status();
  if (!signer.ok()) return "";
  const std::string session = kind == auth::TokenKind::kAccess ? "test-session" : "";
  absl::StatusOr<std::string> token = signer->Sign(subject, session, now, ttl);
  EXPECT_TRUE(token.ok()) << token.status();
  return token.value_or("");
}

constexpr absl::Duration kPlayerTtl = absl::Minutes(15);
constexpr absl::Duration kServiceTtl = absl::Minutes(5);

}  // namespace

TestKeys::TestKeys() : access_(auth::GenerateKeyPair()), service_(auth::GenerateKeyPair()) {}

std::string TestKeys::PlayerToken(const std::string& account_id, absl::Time now) const {
  return Sign(auth::TokenKind::kAccess, access_.private_key, account_id, now, kPlayerTtl);
}
std::string TestKeys::ExpiredPlayerToken(const std::string& account_id) const {
  return PlayerToken(account_id, absl::Now() - absl::Hours(1));
}
std::string TestKeys::ForgedPlayerToken(const std::string& account_id) const {
  return Sign(auth::TokenKind::kAccess, auth::GenerateKeyPair().private_key, account_id,
              absl::Now(), kPlayerTtl);
}
std::string TestKeys::ServiceToken(const std::string& service, absl::Time now) const {
  return Sign(auth::TokenKind::kService, service_.private_key, service, now, kServiceTtl);
}
std::string TestKeys::ExpiredServiceToken(const std::string& service) const {
  return ServiceToken(service, absl::Now() - absl::Hours(1));
}
std::string TestKeys::ForgedServiceToken(const std::string& service) const {
  return Sign(auth::TokenKind::kService, auth::GenerateKeyPair().private_key, service, absl::Now(),
              kServiceTtl);
}

std::unique_ptr<grpc::ClientContext> Bearer(const std::string& token, absl::Duration timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  return context;
}

ServerConfig TestServerConfig(const std::string& db_url, const TestKeys& keys) {
  ServerConfig server;
  server.listen_host = "127.0.0.1";
  server.grpc_port = 0;
  server.metrics_port = 0;
  server.db_url = db_url;
  server.worker_threads = 4;
  server.drain_timeout = absl::Milliseconds(200);
  server.migrations_dir = PARLOR_SOURCE_DIR "/migrations";
  server.access_token_public_key = keys.access().public_key;
  server.service_token_public_key = keys.service().public_key;
  return server;
}

absl::StatusOr<std::unique_ptr<TestServer>> TestServer::Start(ServiceHost::Identity identity,
                                                              ServerConfig config,
                                                              const Install& install) {
  std::unique_ptr<TestServer> server(new TestServer());
  absl::StatusOr<std::unique_ptr<ServiceHost>> host =
      ServiceHost::Create(std::move(identity), std::move(config));
  if (!host.ok()) return host.status();
  server->host_ = *std::move(host);
  absl::StatusOr<std::shared_ptr<void>> installed = install(*server->host_);
  if (!installed.ok()) return installed.status();
  server->installed_ = *std::move(installed);
  if (absl::Status started = server->host_->Start(); !started.ok()) return started;
  server->channel_ = grpc::CreateChannel(server->address(), grpc::InsecureChannelCredentials());
  return server;
}

TestServer::~TestServer() {
  if (host_ != nullptr) host_->Shutdown();
  installed_.reset();
  host_.reset();
}

std::string TestServer::address() const { return absl::StrCat("127.0.0.1:", host_->grpc_port()); }

absl::StatusOr<std::string> SchemaChecksum(const std::string& db_url, const std::string& schema) {
  absl::StatusOr<std::string> digest = SchemaContentDigest(db_url, schema);
  if (digest.ok() && digest->empty()) {
    // A schema without tables would make every comparison pass vacuously.
    return absl::FailedPreconditionError(absl::StrCat("schema ", schema, " has no tables"));
  }
  return digest;
}

grpc::Status RawUnaryCall(const std::shared_ptr<grpc::Channel>& channel, const std::string& method,
                          const std::string& bytes, const std::string& token) {
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::unique_ptr<grpc::ClientContext> context = Bearer(token);
  grpc::GenericStub stub(channel);
  std::promise<grpc::Status> done;
  stub.UnaryCall(context.get(), method, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  return done.get_future().get();
}

void RunBadInputCases(const std::string& service, const std::vector<BadInputCase>& cases,
                      const std::function<std::string()>& checksum) {
  int passed = 0;
  for (const BadInputCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string before = checksum();
    const grpc::Status status = c.call();
    bool ok = true;
    if (status.error_code() != c.code) {
      ADD_FAILURE() << "code " << status.error_code() << ", want " << c.code << ": "
                    << status.error_message();
      ok = false;
    }
    if (status.error_message().find(c.message) == std::string::npos) {
      ADD_FAILURE() << "message \"" << status.error_message() << "\" lacks \"" << c.message << "\"";
      ok = false;
    }
    if (!c.changes_database) {
      const std::string after = checksum();
      if (after != before) {
        ADD_FAILURE() << "the database changed:\nbefore\n" << before << "after\n" << after;
        ok = false;
      }
    }
    if (ok) ++passed;
  }
  std::printf("%s bad-input: %d/%zu cases\n", service.c_str(), passed, cases.size());
  std::fflush(stdout);
}

}  // namespace parlor::testing
