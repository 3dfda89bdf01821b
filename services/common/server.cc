#include "services/common/server.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/grpc.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "services/common/core/logging.h"
#include "services/common/core/thread_name.h"
#include "spdlog/spdlog.h"

#ifndef PARLOR_DEFAULT_MIGRATIONS_DIR
#define PARLOR_DEFAULT_MIGRATIONS_DIR "/usr/share/parlor/migrations"
#endif

namespace parlor {
namespace {

constexpr absl::Duration kReadinessInterval = absl::Seconds(5);

void RegisterRateLimitFlags(Flags& flags, absl::string_view scope, absl::string_view what,
                            RateLimit* limit) {
  flags.Int(
      absl::StrCat("rate_limit_", scope, "_per_minute"), &limit->per_minute,
      absl::StrCat("calls a minute allowed ", what,
                   ", beyond a burst; RESOURCE_EXHAUSTED with RetryInfo past it (0 disables)"),
      {.min = 0, .max = 1'000'000});
  flags.Int(absl::StrCat("rate_limit_", scope, "_burst"), &limit->burst,
            absl::StrCat("calls allowed at once ", what, " (0 disables)"),
            {.min = 0, .max = 1'000'000});
}

absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view flag) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  if (!file.good() || contents.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot read a PEM file at \"", path, "\""));
  }
  return contents.str();
}

// Null when no certificate is configured (plaintext).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerConfig& c) {
  if (c.tls_cert_file.empty() != c.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert_file and --tls_key_file go together: set both for TLS, or neither");
  }
  if (c.tls_cert_file.empty()) {
    if (!c.tls_client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca_file needs --tls_cert_file and --tls_key_file (client certificates "
          "are only checked over TLS)");
    }
    return nullptr;
  }
  absl::StatusOr<std::string> cert = ReadPem(c.tls_cert_file, "tls_cert_file");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(c.tls_key_file, "tls_key_file");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (!c.tls_client_ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem(c.tls_client_ca_file, "tls_client_ca_file");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  options.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ServerConfig& c) {
  if (c.tls_ca_file.empty()) return grpc::InsecureChannelCredentials();
  absl::StatusOr<std::string> ca = ReadPem(c.tls_ca_file, "tls_ca_file");
  if (!ca.ok()) return ca.status();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = *std::move(ca);
  if (!c.tls_cert_file.empty() && !c.tls_key_file.empty()) {
    // Servers that require client certificates (--tls_client_ca_file) accept ours.
    absl::StatusOr<std::string> cert = ReadPem(c.tls_cert_file, "tls_cert_file");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(c.tls_key_file, "tls_key_file");
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *std::move(cert);
    options.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(options);
}

// Puts grpc.health.v1 (the health service gRPC serves itself, without protobuf code in this
// process) into the generated descriptor pool, so that server reflection can describe it and a
// generic client (grpcurl, Postman) can call grpc.health.v1.Health/Check by name.
void AddHealthDescriptor() {
  static const bool added = [] {
    using google::protobuf::FieldDescriptorProto;
    google::protobuf::FileDescriptorProto file;
    file.set_name("grpc/health/v1/health.proto");
    file.set_package("grpc.health.v1");
    file.set_syntax("proto3");
    auto add_field = [](google::protobuf::DescriptorProto* message, const char* name,
                        FieldDescriptorProto::Type type, const char* type_name) {
      FieldDescriptorProto* field = message->add_field();
      field->set_name(name);
      field->set_json_name(name);
      field->set_number(1);
      field->set_label(FieldDescriptorProto::LABEL_OPTIONAL);
      field->set_type(type);
      if (type_name != nullptr) field->set_type_name(type_name);
    };
    google::protobuf::DescriptorProto* request = file.add_message_type();
    request->set_name("HealthCheckRequest");
    add_field(request, "service", FieldDescriptorProto::TYPE_STRING, nullptr);
    google::protobuf::DescriptorProto* response = file.add_message_type();
    response->set_name("HealthCheckResponse");
    google::protobuf::EnumDescriptorProto* status = response->add_enum_type();
    status->set_name("ServingStatus");
    int number = 0;
    for (const char* name : {"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"}) {
      google::protobuf::EnumValueDescriptorProto* value = status->add_value();
      value->set_name(name);
      value->set_number(number++);
    }
    add_field(response, "status", FieldDescriptorProto::TYPE_ENUM,
              ".grpc.health.v1.HealthCheckResponse.ServingStatus");
    google::protobuf::ServiceDescriptorProto* service = file.add_service();
    service->set_name("Health");
    for (const char* name : {"Check", "Watch"}) {
      google::protobuf::MethodDescriptorProto* method = service->add_method();
      method->set_name(name);
      method->set_input_type(".grpc.health.v1.HealthCheckRequest");
      method->set_output_type(".grpc.health.v1.HealthCheckResponse");
      if (std::string(name) == "Watch") method->set_server_streaming(true);
    }
    if (google::protobuf::DescriptorPool::generated_pool()->FindFileByName(file.name()) !=
        nullptr) {
      return true;  // linked in from generated code after all
    }
    // The pool keeps a pointer to the encoded file: it must live as long as the process.
    static const std::string* encoded = new std::string(file.SerializeAsString());
    google::protobuf::DescriptorPool::InternalAddGeneratedFile(encoded->data(),
                                                               static_cast<int>(encoded->size()));
    return true;
  }();
  (void)added;
}

}  // namespace

void RegisterServerFlags(Flags& flags, ServerConfig* config) {
  if (config->migrations_dir.empty()) config->migrations_dir = PARLOR_DEFAULT_MIGRATIONS_DIR;
  flags.String("listen_host", &config->listen_host, "address the gRPC server binds");
  flags.Int("grpc_port", &config->grpc_port, "gRPC port (0 picks a free one)",
            {.min = 0, .max = 65535});
  flags.Int("metrics_port", &config->metrics_port, "Prometheus /metrics port (0 disables)",
            {.min = 0, .max = 65535});
  flags.String("metrics_host", &config->metrics_host,
               "address the /metrics endpoint binds (default: --listen_host)");
  flags.Choice("log_format", &config->log_format, {"text", "json"}, "log line format");
  flags.Choice("log_level", &config->log_level,
               {"trace", "debug", "info", "warn", "error", "critical", "off"}, "log threshold");
  flags.Secret("db_url", &config->db_url,
               "PostgreSQL connection string, e.g. \"host=/run/pg port=5432 dbname=parlor\"",
               /*required=*/true);
  flags.Int("db_max_connections", &config->db_max_connections, "PostgreSQL pool size",
            {.min = 1, .max = 1000});
  flags.Duration("db_acquire_timeout", &config->db_acquire_timeout,
                 "wait for a pooled connection before RESOURCE_EXHAUSTED", absl::Milliseconds(10),
                 absl::Minutes(1));
  flags.Duration("db_statement_timeout", &config->db_statement_timeout,
                 "server-side limit for one SQL statement", absl::Milliseconds(100),
                 absl::Minutes(10));
  flags.Bool("db_prepared_statements", &config->db_prepared_statements,
             "use named prepared statements (false when --db_url is a PgBouncer in transaction "
             "mode: statements are sent unnamed and settings per transaction)");
  flags.Bool("db_pipelining", &config->db_pipelining,
             "send a transaction's statements in libpq's pipeline mode where the service "
             "supports it (two round trips for a batch of moves instead of five); needs "
             "PostgreSQL itself: ignored when --db_prepared_statements=false");
  flags.Int("db_max_pipelined_connections", &config->db_max_pipelined_connections,
            "pipelined connections (--db_pipelining), beyond --db_max_connections",
            {.min = 1, .max = 1000});
  flags.Secret("db_direct_url", &config->db_direct_url,
               "PostgreSQL connection string for LISTEN, session-level locks and migrations, "
               "bypassing a transaction pooler (default: --db_url)");
  flags.Int("worker_threads", &config->worker_threads, "threads running request bodies",
            {.min = 1, .max = 1024});
  flags.Int("max_queued_requests", &config->max_queued_requests,
            "requests waiting for a worker before UNAVAILABLE", {.min = 1, .max = 1000000});
  flags.Duration("drain_timeout", &config->drain_timeout,
                 "on SIGTERM, how long in-flight RPCs may take before they are cancelled",
                 absl::ZeroDuration(), absl::Minutes(10));
  flags.Duration("unready_delay", &config->unready_delay,
                 "on SIGTERM, keep serving this long while health says NOT_SERVING, so load "
                 "balancers stop routing here before the drain starts",
                 absl::ZeroDuration(), absl::Minutes(1));
  flags.Int("max_receive_message_bytes", &config->max_receive_message_bytes,
            "largest request accepted", {.min = 1024, .max = 64 << 20});
  flags.Int("max_send_message_bytes", &config->max_send_message_bytes, "largest response sent",
            {.min = 1024, .max = 64 << 20});
  flags.String("migrations_dir", &config->migrations_dir,
               "directory holding migrations/<service>/NNNN_name.sql");
  flags.Bool("migrate_on_start", &config->migrate_on_start,
             "apply pending migrations at start-up (otherwise wait for the migrate Job)");
  flags.String("access_token_public_key", &config->access_token_public_key,
               "Ed25519 public key (base64) verifying players' access tokens");
  flags.String("service_token_public_key", &config->service_token_public_key,
               "Ed25519 public key (base64) verifying internal service credentials");
  RegisterRateLimitFlags(flags, "account", "per account (player RPCs)",
                         &config->rate_limits.account);
  RegisterRateLimitFlags(flags, "device", "per device (player RPCs)", &config->rate_limits.device);
  RegisterRateLimitFlags(flags, "peer", "per client IP address (unauthenticated RPCs)",
                         &config->rate_limits.peer);
  flags.String("trusted_proxies", &config->trusted_proxies,
               "comma-separated addresses and CIDR networks (10.0.0.0/8, fd00::/8) of the proxies "
               "in front of the service (load balancer, Gateway); a call from one of them counts "
               "against the client its --forwarding_header names (the right-most address that is "
               "not a trusted proxy), a call from anyone else against its own address whatever "
               "it sends (empty: always the connecting address)");
  flags.Choice("forwarding_header", &config->forwarding_header, {"x-forwarded-for", "forwarded"},
               "header the trusted proxies append the client's address to");
  flags.String("tls_cert_file", &config->tls_cert_file,
               "PEM certificate chain; with --tls_key_file the server accepts only TLS");
  flags.String("tls_key_file", &config->tls_key_file, "PEM private key of --tls_cert_file");
  flags.String("tls_client_ca_file", &config->tls_client_ca_file,
               "PEM CA bundle; when set, clients must present a certificate it signed (mTLS)");
  flags.String("tls_ca_file", &config->tls_ca_file,
               "PEM CA bundle trusted for calls to other Parlor services; when set those calls "
               "use TLS");
}

ServiceHost::ServiceHost(Identity identity, ServerConfig config)
    : identity_(std::move(identity)), config_(std::move(config)) {}

absl::StatusOr<std::unique_ptr<ServiceHost>> ServiceHost::Create(Identity identity,
                                                                 ServerConfig config) {
  std::unique_ptr<ServiceHost> host(new ServiceHost(std::move(identity), std::move(config)));
  const ServerConfig& c = host->config_;
  host->metrics_ = std::make_unique<Metrics>(host->identity_.name, host->identity_.version);
  host->db_ = std::make_unique<DbPool>(
      DbOptions{.url = c.db_url,
                .max_connections = c.db_max_connections,
                .acquire_timeout = c.db_acquire_timeout,
                .statement_timeout = c.db_statement_timeout,
                .application_name = absl::StrCat("parlor-", host->identity_.name),
                // Health turns NOT_SERVING as soon as a request meets a dead database, not at
                // the next periodic check.
                .on_connection_lost = [raw = host.get()] { raw->RecheckReadiness(); },
                .prepared_statements = c.db_prepared_statements,
                .direct_url = c.db_direct_url,
                .pipelining = c.db_pipelining,
                .max_pipelined_connections = c.db_max_pipelined_connections},
      host->metrics_.get());
  host->workers_ = std::make_unique<ThreadPool>("rpc-workers", c.worker_threads,
                                                static_cast<size_t>(c.max_queued_requests));
  std::optional<auth::TokenVerifier> access;
  std::optional<auth::TokenVerifier> service;
  if (!c.access_token_public_key.empty()) {
    absl::StatusOr<auth::TokenVerifier> verifier =
        auth::TokenVerifier::Create(auth::TokenKind::kAccess, c.access_token_public_key);
    if (!verifier.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--access_token_public_key: ", verifier.status().message()));
    }
    access = *std::move(verifier);
  }
  if (!c.service_token_public_key.empty()) {
    absl::StatusOr<auth::TokenVerifier> verifier =
        auth::TokenVerifier::Create(auth::TokenKind::kService, c.service_token_public_key);
    if (!verifier.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--service_token_public_key: ", verifier.status().message()));
    }
    service = *std::move(verifier);
  }
  host->authenticator_ = std::make_unique<Authenticator>(std::move(access), std::move(service));
  RateLimitConfig limits = c.rate_limits;
  absl::StatusOr<TrustedProxies> trusted = TrustedProxies::Parse(c.trusted_proxies);
  if (!trusted.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--trusted_proxies: ", trusted.status().message()));
  }
  limits.trusted_proxies = *std::move(trusted);
  absl::StatusOr<ForwardingHeader> header = ParseForwardingHeader(c.forwarding_header);
  if (!header.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--forwarding_header: ", header.status().message()));
  }
  limits.forwarding_header = *header;
  host->limiter_ = std::make_unique<CallLimiter>(limits, &host->metrics_->registry());
  host->rpc_ = std::make_unique<RpcRunner>(host->workers_.get(), host->authenticator_.get(),
                                           &absl::Now, host->limiter_.get());
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server_credentials =
      MakeServerCredentials(c);
  if (!server_credentials.ok()) return server_credentials.status();
  host->server_credentials_ = *std::move(server_credentials);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> channel_credentials =
      MakeChannelCredentials(c);
  if (!channel_credentials.ok()) return channel_credentials.status();
  host->channel_credentials_ = *std::move(channel_credentials);
  return host;
}

ServiceHost::~ServiceHost() { Shutdown(); }

std::shared_ptr<grpc::Channel> ServiceHost::InternalChannel(const std::string& address) const {
  grpc::ChannelArguments args;
  args.SetServiceConfigJSON(R"({"loadBalancingConfig": [{"round_robin": {}}]})");
  return grpc::CreateCustomChannel(address, channel_credentials_, args);
}

MigrationSet ServiceHost::migration_set() const {
  return MigrationSet{
      .schema = identity_.schema,
      .directory = (std::filesystem::path(config_.migrations_dir) / identity_.name).string()};
}

void ServiceHost::AddService(grpc::Service* service, std::string health_name) {
  services_.emplace_back(service, std::move(health_name));
}

absl::Status ServiceHost::Start() {
  if (config_.migrate_on_start) {
    absl::StatusOr<MigrationResult> migrated =
        ApplyMigrations(config_.migration_url(), migration_set());
    if (!migrated.ok()) return migrated.status();
    spdlog::info("migrations of schema {}: {} applied now, {} already applied", identity_.schema,
                 migrated->applied.size(), migrated->already_applied);
  }
  const std::string& metrics_host =
      config_.metrics_host.empty() ? config_.listen_host : config_.metrics_host;
  if (absl::Status status = metrics_->StartExposer(metrics_host, config_.metrics_port);
      !status.ok()) {
    return status;
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  AddHealthDescriptor();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(
      absl::StrCat(config_.listen_host, ":", config_.grpc_port),
      server_credentials_ != nullptr ? server_credentials_ : grpc::InsecureServerCredentials(),
      &grpc_port_);
  // gRPC sets SO_REUSEPORT by default: a second process told to use a port another already holds
  // would then start without complaint and silently take a share of its connections (seen when
  // parallel tests chose the same port). A port in use must stop the start instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(config_.max_receive_message_bytes);
  builder.SetMaxSendMessageSize(config_.max_send_message_bytes);
  // Mobile clients sit behind NATs that drop idle flows and on radios that pay for every
  // wake-up: let clients ping us (for their own NAT keep-alive) but no more than every 20 s, and
  // only ping idle clients rarely ourselves. Recycle connections every 30 minutes so load
  // spreads over new replicas, with a grace period for in-flight calls.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 5 * 60 * 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20 * 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 20 * 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 5);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 60 * 60 * 1000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS, 30 * 60 * 1000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, 5 * 60 * 1000);
  for (auto& [service, health_name] : services_) {
    builder.RegisterService(service);
    metrics_->DeclareService(health_name);
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(metrics_->MakeInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(creators));
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config_.listen_host, ":",
                                               config_.grpc_port, " (port in use?)"));
  }
  SetServing(false);
  readiness_ = std::thread([this] {
    NameThisThread("readiness");
    ReadinessLoop();
  });
  spdlog::info("{} listening on {}:{} ({}; metrics on {})", identity_.name, config_.listen_host,
               grpc_port_,
               server_credentials_ == nullptr       ? "plaintext"
               : config_.tls_client_ca_file.empty() ? "TLS"
                                                    : "TLS, client certificates required",
               config_.metrics_port == 0
                   ? std::string("nothing")
                   : absl::StrCat(metrics_host, ":", config_.metrics_port, "/metrics"));
  return absl::OkStatus();
}

void ServiceHost::WhenFirstServing(std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mu_);
  when_first_serving_.push_back(std::move(callback));
}

void ServiceHost::SetServing(bool serving) {
  if (server_ == nullptr) return;
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);
  for (auto& [service, health_name] : services_) health->SetServingStatus(health_name, serving);
}

void ServiceHost::ReadinessLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    // Ready means: our migrations are in place and the database answers through the pool.
    absl::Status status = CheckMigrationsApplied(config_.db_url, migration_set());
    if (status.ok()) status = db_->Ping();
    lock.lock();
    if (stopping_) break;
    const bool ready = status.ok();
    if (ready != serving_) {
      serving_ = ready;
      SetServing(ready);
      if (ready) {
        spdlog::info("{} is SERVING", identity_.name);
        std::vector<std::function<void()>> callbacks = std::exchange(when_first_serving_, {});
        lock.unlock();
        for (auto& callback : callbacks) callback();
        lock.lock();
        if (stopping_) break;
      } else {
        spdlog::warn("{} is NOT_SERVING: {}", identity_.name, status.message());
      }
    }
    // Poll faster while not ready, so a fresh replica, or one whose database is back, turns
    // SERVING quickly.
    wake_.wait_for(
        lock, absl::ToChronoMilliseconds(serving_ ? kReadinessInterval : absl::Milliseconds(200)),
        [this] { return stopping_ || recheck_; });
    recheck_ = false;
  }
}

void ServiceHost::RecheckReadiness() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    recheck_ = true;
  }
  wake_.notify_all();
}

void ServiceHost::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    serving_ = false;
    SetServing(false);
  }
  wake_.notify_all();
  if (readiness_.joinable()) readiness_.join();
  if (server_ != nullptr) {
    if (config_.unready_delay > absl::ZeroDuration()) {
      // Keep serving while NOT_SERVING, so load balancers notice and stop routing here first.
      spdlog::info("{} NOT_SERVING; still accepting calls for {}", identity_.name,
                   absl::FormatDuration(config_.unready_delay));
      absl::SleepFor(config_.unready_delay);
    }
    spdlog::info("{} draining (up to {})", identity_.name,
                 absl::FormatDuration(config_.drain_timeout));
    Drain(absl::Now() + config_.drain_timeout);
  }
  workers_->Shutdown();
  spdlog::info("{} stopped", identity_.name);
}

void ServiceHost::Drain(absl::Time deadline) {
  // Stop accepting calls now (the C core allows several shutdown requests; Server::Shutdown below
  // adds its own). Then wait for our in-flight calls only: idle client connections would
  // otherwise hold the shutdown until the deadline, because clients need not close them on
  // GOAWAY. Once no call is left, closing those connections loses nothing.
  grpc_completion_queue* queue = grpc_completion_queue_create_for_pluck(nullptr);
  int tag = 0;
  grpc_server_shutdown_and_notify(server_->c_server(), queue, &tag);
  while (rpc_->in_flight() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  if (rpc_->in_flight() > 0) {
    spdlog::warn("{}: drain deadline reached with {} calls in flight; cancelling them",
                 identity_.name, rpc_->in_flight());
  }
  grpc_server_cancel_all_calls(server_->c_server());
  server_->Shutdown(absl::ToChronoTime(std::max(deadline, absl::Now())));
  grpc_completion_queue_pluck(queue, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), nullptr);
  grpc_completion_queue_shutdown(queue);  // empty now: its only event was plucked
  grpc_completion_queue_destroy(queue);
  server_->Wait();
}

void BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

absl::Status ServiceHost::RunUntilSignalled() {
  if (absl::Status status = Start(); !status.ok()) return status;
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("{} received {}; shutting down", identity_.name,
               signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  Shutdown();
  return absl::OkStatus();
}

int RunServiceMain(int argc, char** argv, const ServiceMain& main) {
  BlockTerminationSignals();
  // Abseil's lock-order graph (a debugging aid) costs every contended Mutex a graph lookup,
  // about 1.5 % of a busy sessions server's CPU.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const std::string program = absl::StrCat("parlor-", main.identity.name);
  ServerConfig config;
  if (main.server_defaults) main.server_defaults(config);
  Flags flags(program);
  RegisterServerFlags(flags, &config);
  if (main.add_flags) main.add_flags(flags);
  std::vector<std::string> positional;
  if (absl::Status status = flags.Parse(argc, argv, &positional); !status.ok()) {
    if (status.code() == absl::StatusCode::kNotFound) {
      std::printf("%s\nsubcommands: serve (default), migrate\n",
                  std::string(status.message()).c_str());
      return 0;
    }
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  for (const std::string& secret : flags.SecretValues()) RedactInLogs(secret);
  if (main.finalize_config) {
    if (absl::Status status = main.finalize_config(config); !status.ok()) {
      std::fprintf(stderr, "%s: invalid configuration: %s\n", program.c_str(),
                   Redacted(status.message()).c_str());
      return 2;
    }
  }
  if (absl::Status status = InitLogging(main.identity.name, config.log_format, config.log_level);
      !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  for (const std::string& name : flags.secrets_on_command_line()) {
    spdlog::warn(
        "--{} was given on the command line, where any local user can read it (ps); use "
        "{}_FILE (a mounted secret) or {}",
        name, Flags::EnvName(name), Flags::EnvName(name));
  }
  const std::string command = positional.empty() ? "serve" : positional.front();
  if (positional.size() > 1 || (command != "serve" && command != "migrate")) {
    std::fprintf(stderr, "%s: unknown command \"%s\"; use serve or migrate\n", program.c_str(),
                 command.c_str());
    return 2;
  }

  absl::StatusOr<std::unique_ptr<ServiceHost>> host = ServiceHost::Create(main.identity, config);
  if (!host.ok()) {
    spdlog::critical("{}", host.status().message());
    return 2;
  }
  if (command == "migrate") {
    absl::StatusOr<MigrationResult> result =
        ApplyMigrations(config.migration_url(), (*host)->migration_set());
    if (!result.ok()) {
      spdlog::critical("migrate failed: {}", result.status().message());
      return 1;
    }
    spdlog::info("migrate: {} applied, {} already applied", result->applied.size(),
                 result->already_applied);
    for (const std::string& name : result->applied) spdlog::info("applied {}", name);
    return 0;
  }
  absl::StatusOr<std::shared_ptr<void>> services = main.make_services(**host);
  if (!services.ok()) {
    spdlog::critical("{}", services.status().message());
    return 2;
  }
  if (absl::Status status = (*host)->RunUntilSignalled(); !status.ok()) {
    spdlog::critical("{}", status.message());
    return 1;
  }
  return 0;
}

}  // namespace parlor
