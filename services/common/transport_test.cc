// The transport a ServiceHost offers, through real gRPC channels: TLS with a self-signed
// certificate made at test time (openssl CLI, in a temporary directory), client certificates,
// the request size limit, and a start-up whose logs never show the database password. No
// database is needed: the host's pool connects lazily, and the health service answers either way.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "services/common/server.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// A key pair and a self-signed certificate for localhost/127.0.0.1, valid for a day.
struct SelfSigned {
  std::string cert_file;
  std::string key_file;
  std::string cert_pem = {};
  std::string key_pem = {};
};

SelfSigned MakeSelfSigned(const std::filesystem::path& dir, const std::string& name) {
  SelfSigned made{.cert_file = (dir / (name + ".crt")).string(),
                  .key_file = (dir / (name + ".key")).string()};
  const std::string command = absl::StrCat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout ",
      made.key_file, " -out ", made.cert_file, " 2>/dev/null");
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  made.cert_pem = ReadFile(made.cert_file);
  made.key_pem = ReadFile(made.key_file);
  return made;
}

// grpc.health.v1.Health/Check of the whole server with a raw request body (the health proto is
// not shipped by Debian); returns the call's status.
grpc::Status RawHealthCheck(const std::shared_ptr<grpc::Channel>& channel,
                            const std::string& body = "") {
  grpc::Slice slice(body);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::GenericStub stub(channel);
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

// A TCP port nobody listens on right now.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// Whether a TCP connection to ip:port is accepted. Every 127.0.0.0/8 address reaches this
// machine, so a socket bound to 127.0.0.1 refuses 127.0.0.2 while one bound to 0.0.0.0 accepts it.
bool Accepts(const char* ip, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip, &address.sin_addr);
  const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return connected;
}

class TransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("parlor-transport-test-", getpid(), "-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    server_cert_ = MakeSelfSigned(dir_, "server");
  }

  void TearDown() override {
    if (host_ != nullptr) host_->Shutdown();
    host_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A host that never reaches its database (none is needed here).
  ServerConfig Config() const {
    ServerConfig config;
    config.listen_host = "127.0.0.1";
    config.grpc_port = 0;
    config.metrics_port = 0;
    config.db_url = absl::StrCat("host=", dir_.string(), "/no-postgres dbname=parlor");
    config.migrate_on_start = false;
    config.worker_threads = 1;
    config.drain_timeout = absl::Milliseconds(100);
    return config;
  }

  void Start(const ServerConfig& config) {
    absl::StatusOr<std::unique_ptr<ServiceHost>> host = ServiceHost::Create(
        {.name = "transport", .version = "test", .schema = "transport"}, config);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    ASSERT_TRUE(host_->Start().ok());
  }

  std::string Target() const { return absl::StrCat("localhost:", host_->grpc_port()); }

  std::shared_ptr<grpc::Channel> TlsChannel(const std::string& client_cert_pem = "",
                                            const std::string& client_key_pem = "") const {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = server_cert_.cert_pem;
    options.pem_cert_chain = client_cert_pem;
    options.pem_private_key = client_key_pem;
    return grpc::CreateChannel(Target(), grpc::SslCredentials(options));
  }

  std::shared_ptr<grpc::Channel> PlaintextChannel() const {
    return grpc::CreateChannel(Target(), grpc::InsecureChannelCredentials());
  }

  std::filesystem::path dir_;
  SelfSigned server_cert_;
  std::unique_ptr<ServiceHost> host_;
};

TEST_F(TransportTest, MetricsListenOnTheListenHostByDefault) {
  ServerConfig config = Config();
  config.metrics_port = FreePort();
  Start(config);
  EXPECT_TRUE(Accepts("127.0.0.1", config.metrics_port));
  EXPECT_FALSE(Accepts("127.0.0.2", config.metrics_port)) << "/metrics listens on every address";
}

TEST_F(TransportTest, MetricsListenOnTheirOwnHostWhenTold) {
  ServerConfig config = Config();
  config.metrics_port = FreePort();
  config.metrics_host = "127.0.0.2";
  Start(config);
  EXPECT_TRUE(Accepts("127.0.0.2", config.metrics_port));
  EXPECT_FALSE(Accepts("127.0.0.1", config.metrics_port));
}

TEST_F(TransportTest, APortAnotherServerHoldsStopsTheStartInsteadOfBeingShared) {
  Start(Config());
  ServerConfig second = Config();
  second.grpc_port = host_->grpc_port();
  absl::StatusOr<std::unique_ptr<ServiceHost>> intruder =
      ServiceHost::Create({.name = "transport", .version = "test", .schema = "transport"}, second);
  ASSERT_TRUE(intruder.ok()) << intruder.status();
  EXPECT_THAT((*intruder)->Start(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr(absl::StrCat("cannot listen on 127.0.0.1:", second.grpc_port))));
  (*intruder)->Shutdown();
  EXPECT_TRUE(RawHealthCheck(PlaintextChannel()).ok()) << "the first server stopped serving";
}

TEST_F(TransportTest, BadTrustedProxiesStopTheStart) {
  ServerConfig config = Config();
  config.trusted_proxies = "10.0.0.0/8, gateway";
  EXPECT_THAT(
      ServiceHost::Create({.name = "transport", .version = "test", .schema = "transport"}, config)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("--trusted_proxies: trusted proxy \"gateway\"")));
}

TEST_F(TransportTest, WithACertificateTheServerSpeaksOnlyTls) {
  ServerConfig config = Config();
  config.tls_cert_file = server_cert_.cert_file;
  config.tls_key_file = server_cert_.key_file;
  Start(config);
  EXPECT_TRUE(RawHealthCheck(TlsChannel()).ok());
  const grpc::Status plaintext = RawHealthCheck(PlaintextChannel());
  EXPECT_EQ(plaintext.error_code(), grpc::StatusCode::UNAVAILABLE) << plaintext.error_message();
  // A client that does not trust the server's certificate is refused too.
  grpc::SslCredentialsOptions untrusting;
  untrusting.pem_root_certs = MakeSelfSigned(dir_, "stranger").cert_pem;
  EXPECT_EQ(
      RawHealthCheck(grpc::CreateChannel(Target(), grpc::SslCredentials(untrusting))).error_code(),
      grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TransportTest, InternalClientsUseTlsWithTheConfiguredCa) {
  ServerConfig config = Config();
  config.tls_cert_file = server_cert_.cert_file;
  config.tls_key_file = server_cert_.key_file;
  config.tls_ca_file = server_cert_.cert_file;
  Start(config);
  // What matchmaking and sessions use for their channels to other services.
  EXPECT_TRUE(RawHealthCheck(grpc::CreateChannel(Target(), host_->channel_credentials())).ok());
}

TEST_F(TransportTest, WithAClientCaTheServerRequiresAClientCertificate) {
  const SelfSigned client = MakeSelfSigned(dir_, "client");
  ServerConfig config = Config();
  config.tls_cert_file = server_cert_.cert_file;
  config.tls_key_file = server_cert_.key_file;
  config.tls_client_ca_file = client.cert_file;
  Start(config);
  EXPECT_TRUE(RawHealthCheck(TlsChannel(client.cert_pem, client.key_pem)).ok());
  EXPECT_FALSE(RawHealthCheck(TlsChannel()).ok());
  const SelfSigned stranger = MakeSelfSigned(dir_, "stranger");
  EXPECT_FALSE(RawHealthCheck(TlsChannel(stranger.cert_pem, stranger.key_pem)).ok());
}

TEST_F(TransportTest, IncompleteOrUnreadableTlsSettingsStopTheStart) {
  const ServiceHost::Identity identity{.name = "transport", .version = "test", .schema = "t"};
  ServerConfig cert_only = Config();
  cert_only.tls_cert_file = server_cert_.cert_file;
  EXPECT_THAT(ServiceHost::Create(identity, cert_only).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls_cert_file and --tls_key_file go together")));
  ServerConfig missing = Config();
  missing.tls_cert_file = (dir_ / "nope.crt").string();
  missing.tls_key_file = server_cert_.key_file;
  EXPECT_THAT(ServiceHost::Create(identity, missing).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls_cert_file: cannot read a PEM file at")));
  ServerConfig client_ca_alone = Config();
  client_ca_alone.tls_client_ca_file = server_cert_.cert_file;
  EXPECT_THAT(ServiceHost::Create(identity, client_ca_alone).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--tls_client_ca_file needs --tls_cert_file")));
}

TEST_F(TransportTest, AnOversizedRequestIsRefusedAndTheServerKeepsServing) {
  ServerConfig config = Config();
  config.max_receive_message_bytes = 64 << 10;
  Start(config);
  const grpc::Status oversized = RawHealthCheck(PlaintextChannel(), std::string(65 << 10, 'x'));
  EXPECT_EQ(oversized.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << oversized.error_message();
  EXPECT_THAT(oversized.error_message(), HasSubstr("larger than max"));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(RawHealthCheck(PlaintextChannel()).ok()) << i;
}

// Runs RunServiceMain as a binary's main() would, returning what it wrote to stderr.
std::string RunMainCapturingStderr(std::vector<std::string> args, int* exit_code) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  char path[] = "/tmp/parlor-transport-test-stderr-XXXXXX";
  const int capture = mkstemp(path);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(capture, STDERR_FILENO);
  ServiceMain main;
  // A real service's name, so that its migrations exist and the start-up reaches the database.
  main.identity = {.name = "accounts", .version = "test", .schema = "accounts"};
  main.make_services = [](ServiceHost&) -> absl::StatusOr<std::shared_ptr<void>> {
    return std::shared_ptr<void>();
  };
  *exit_code = RunServiceMain(static_cast<int>(argv.size()), argv.data(), main);
  spdlog::default_logger()->flush();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(capture);
  const std::string output = ReadFile(path);
  std::remove(path);
  return output;
}

// Internal clients balance calls, not connections: with two replicas behind one name (a headless
// Service resolves to both; here the ipv4: resolver lists them), InternalChannel() spreads the
// calls over both instead of sending every call down the first connection (pick_first).
TEST_F(TransportTest, InternalChannelsSpreadCallsOverEveryAddress) {
  Start(Config());
  absl::StatusOr<std::unique_ptr<ServiceHost>> second = ServiceHost::Create(
      {.name = "transport", .version = "test", .schema = "transport"}, Config());
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_TRUE((*second)->Start().ok());
  std::shared_ptr<grpc::Channel> channel = host_->InternalChannel(
      absl::StrCat("ipv4:127.0.0.1:", host_->grpc_port(), ",127.0.0.1:", (*second)->grpc_port()));
  const std::string check =
      "parlor_rpc_requests_total{code=\"OK\",method=\"Check\",service=\"grpc.health.v1.Health\"} ";
  const auto checks_served = [&check](ServiceHost* host) {
    const std::string text = host->metrics().Serialize();
    const size_t at = text.find(check);
    return at == std::string::npos ? 0 : std::stoi(text.substr(at + check.size()));
  };
  // Round robin sends calls only to connected addresses: until the second connection is up (a
  // moment on a busy machine) every call may go to the first. Pick-first would never use the
  // second at all, however many calls are made.
  for (int i = 0;
       i < 1000 && std::min(checks_served(host_.get()), checks_served(second->get())) < 5; ++i) {
    ASSERT_TRUE(RawHealthCheck(channel).ok());
  }
  for (ServiceHost* host : {host_.get(), second->get()}) {
    EXPECT_GE(checks_served(host), 5) << "calls were not spread";
  }
  (*second)->Shutdown();
}

TEST(StartupLogTest, TheDatabasePasswordNeverReachesTheLog) {
  // libpq quotes a malformed URI whole in its error, password included: the start-up fails on it
  // and logs why, at the most verbose level, and the password must still not appear.
  const std::string db_url = "postgresql://parlor:hunter2-secret@[::1/parlor";
  for (const char* command : {"migrate", "serve"}) {
    int exit_code = 0;
    const std::string log =
        RunMainCapturingStderr({"parlor-accounts", command, "--db_url", db_url, "--log_level=trace",
                                "--grpc_port=0", "--metrics_port=0"},
                               &exit_code);
    EXPECT_EQ(exit_code, 1) << log;
    EXPECT_THAT(log, HasSubstr("[redacted]")) << command;
    EXPECT_THAT(log, Not(HasSubstr("hunter2"))) << log;
    EXPECT_THAT(log, HasSubstr("--db_url was given on the command line")) << command;
  }
}

}  // namespace
}  // namespace parlor
