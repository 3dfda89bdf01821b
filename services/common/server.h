#ifndef PARLOR_SERVICES_COMMON_SERVER_H_
#define PARLOR_SERVICES_COMMON_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "services/common/core/flags.h"
#include "services/common/core/thread_pool.h"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/common/metrics.h"
#include "services/common/rpc.h"

namespace parlor {

// Settings every service shares; RegisterServerFlags() exposes them as --flags / PARLOR_* vars.
struct ServerConfig {
  std::string listen_host = "0.0.0.0";
  int grpc_port = 8080;      // 0 picks a free port (tests)
  int metrics_port = 9090;   // 0 disables the /metrics exposer
  std::string metrics_host;  // address /metrics binds; empty: listen_host
  std::string log_format = "text";
  std::string log_level = "info";
  std::string db_url;
  int db_max_connections = 8;
  absl::Duration db_acquire_timeout = absl::Seconds(5);
  absl::Duration db_statement_timeout = absl::Seconds(10);
  // False behind a transaction-pooling PgBouncer (see DbOptions); db_direct_url then names
  // PostgreSQL itself, for LISTEN and session advisory locks.
  bool db_prepared_statements = true;
  // Transactions that read, decide and write in libpq's pipeline mode (DbOptions::pipelining).
  bool db_pipelining = true;
  int db_max_pipelined_connections = 4;
  std::string db_direct_url;
  // Where migrations run: PostgreSQL itself (db_direct_url) when a pooler fronts db_url, since
  // their lock is held by a session across transactions.
  const std::string& migration_url() const {
    return db_direct_url.empty() ? db_url : db_direct_url;
  }
  int worker_threads = 8;
  int max_queued_requests = 2000;
  absl::Duration drain_timeout = absl::Seconds(20);
  absl::Duration unready_delay = absl::ZeroDuration();
  int max_receive_message_bytes = 1 << 20;
  int max_send_message_bytes = 4 << 20;
  std::string migrations_dir;  // defaults to the source tree's migrations/ (see CMake)
  bool migrate_on_start = true;
  // Ed25519 public keys (base64 of 32 raw bytes) for local token verification.
  std::string access_token_public_key;
  std::string service_token_public_key;
  // Per-caller rate limits of player and public RPCs (0 disables; see RateLimitConfig).
  RateLimitConfig rate_limits;
  // Proxies trusted to name the client (comma-separated addresses and CIDR networks) and the
  // header they name it in; parsed into rate_limits by ServiceHost::Create.
  std::string trusted_proxies;
  std::string forwarding_header = "x-forwarded-for";
  // TLS: with a certificate and key (PEM files) the server accepts only TLS; with a client CA it
  // also requires and verifies client certificates. Internal clients (CreateGame, ReportResult,
  // ...) use TLS when tls_ca_file (the CA that signed the servers' certificates) is set, and
  // present tls_cert_file/tls_key_file as their client certificate when both are set.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  std::string tls_ca_file;
};

void RegisterServerFlags(Flags& flags, ServerConfig* config);

// The gRPC server of one service and everything around it: logging, metrics exposer, DB pool,
// worker pool, authenticator, health (SERVING only once migrations are applied and the database
// answers; NOT_SERVING from SIGTERM on), reflection, message limits, keepalive tuned for mobile
// clients, and a graceful drain on shutdown.
class ServiceHost {
 public:
  struct Identity {
    std::string name;     // "accounts": logs, metrics, application_name
    std::string version;  // build version for parlor_build_info
    // Schema and migration files of this service (directory relative to migrations_dir).
    std::string schema;
  };

  static absl::StatusOr<std::unique_ptr<ServiceHost>> Create(Identity identity,
                                                             ServerConfig config);
  ~ServiceHost();

  DbPool& db() { return *db_; }
  ThreadPool& workers() { return *workers_; }
  // Runs `callback` (once, on the readiness thread) the first time this host turns SERVING:
  // migrations applied and the database answering. For background work that needs the schema
  // (a refresher started before would fail until the migrations ran). Call before Start().
  void WhenFirstServing(std::function<void()> callback);
  Metrics& metrics() { return *metrics_; }
  RpcRunner& rpc() { return *rpc_; }
  // Credentials for channels to other Parlor services: TLS when --tls_ca_file is set, otherwise
  // plaintext (development, or a mesh that encrypts for us).
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials() const {
    return channel_credentials_;
  }
  // A channel to another Parlor service at `address` ("sessions:8080"): channel_credentials(),
  // and round_robin over every address the name resolves to, so that calls (not connections)
  // are spread over the replicas when the name is a headless Service (one A record per pod).
  std::shared_ptr<grpc::Channel> InternalChannel(const std::string& address) const;
  const ServerConfig& config() const { return config_; }
  MigrationSet migration_set() const;

  // Registers a gRPC service; the host does not own it. Call before Start().
  void AddService(grpc::Service* service, std::string health_name);

  // Applies migrations (if configured), starts listening, and flips health to SERVING once the
  // database answers. Returns when the server is up.
  absl::Status Start();
  int grpc_port() const { return grpc_port_; }

  // NOT_SERVING, stop accepting, let in-flight RPCs finish until drain_timeout, then cancel the
  // rest; finish queued work. Idempotent.
  void Shutdown();

  // Start(), then block until SIGTERM or SIGINT, then Shutdown(). The caller must have blocked
  // those signals in every thread (BlockTerminationSignals) before creating any thread.
  absl::Status RunUntilSignalled();

 private:
  ServiceHost(Identity identity, ServerConfig config);
  void SetServing(bool serving);
  void Drain(absl::Time deadline);
  void ReadinessLoop();
  // Wakes the readiness loop now (the pool found a broken connection).
  void RecheckReadiness();

  Identity identity_;
  ServerConfig config_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<DbPool> db_;
  std::unique_ptr<ThreadPool> workers_;
  std::unique_ptr<Authenticator> authenticator_;
  std::unique_ptr<CallLimiter> limiter_;
  std::unique_ptr<RpcRunner> rpc_;
  std::shared_ptr<grpc::ServerCredentials> server_credentials_;
  std::shared_ptr<grpc::ChannelCredentials> channel_credentials_;
  std::vector<std::pair<grpc::Service*, std::string>> services_;
  std::unique_ptr<grpc::Server> server_;
  int grpc_port_ = 0;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool serving_ = false;
  bool recheck_ = false;
  std::vector<std::function<void()>> when_first_serving_;
  std::thread readiness_;
};

// Blocks SIGTERM/SIGINT in the calling thread (and so in every thread it creates later), so that
// RunUntilSignalled can wait for them synchronously.
void BlockTerminationSignals();

// The whole main() of a service binary:
//   <binary> [serve]    run the service (default)
//   <binary> migrate    apply this service's migrations and exit (Kubernetes Job)
//   <binary> --help
// `add_flags` registers service-specific flags; `make_services` builds the gRPC services once the
// host exists (store, domain, API objects) and keeps them alive in the returned holder.
struct ServiceMain {
  ServiceHost::Identity identity;
  std::function<void(Flags&)> add_flags;
  // Optional: the service's own defaults for the common server settings, applied before the flags
  // and the environment are read (which still override them; --help shows them).
  std::function<void(ServerConfig&)> server_defaults;
  // Optional: validates service settings and fills in derived server settings after parsing.
  std::function<absl::Status(ServerConfig&)> finalize_config;
  // Called after flags parsed; returns the services to register plus anything to keep alive.
  std::function<absl::StatusOr<std::shared_ptr<void>>(ServiceHost& host)> make_services;
};
int RunServiceMain(int argc, char** argv, const ServiceMain& main);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_SERVER_H_
