#include "services/common/metrics.h"

#include <chrono>
#include <exception>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "prometheus/text_serializer.h"
#include "services/common/grpc_status.h"

namespace parlor {
namespace {

using grpc::experimental::InterceptionHookPoints;

// Splits "/pkg.Service/Method" into its two labels.
std::pair<std::string, std::string> SplitMethod(absl::string_view full_method) {
  if (!full_method.empty() && full_method.front() == '/') full_method.remove_prefix(1);
  size_t slash = full_method.rfind('/');
  if (slash == absl::string_view::npos) return {std::string(full_method), ""};
  return {std::string(full_method.substr(0, slash)), std::string(full_method.substr(slash + 1))};
}

// Times each RPC from the arrival of its metadata to the sending of its status.
class RpcMetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(Metrics* metrics, std::string method)
      : metrics_(metrics), method_(std::move(method)), start_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      metrics_->RecordRpc(method_, GrpcCodeName(status.error_code()), seconds);
    }
    methods->Proceed();
  }

 private:
  Metrics* metrics_;
  std::string method_;
  std::chrono::steady_clock::time_point start_;
};

class RpcMetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcMetricsInterceptorFactory(Metrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RpcMetricsInterceptor(metrics_, info->method() == nullptr ? "" : info->method());
  }

 private:
  Metrics* metrics_;
};

}  // namespace

Metrics::Metrics(std::string service, std::string version)
    : registry_(std::make_shared<prometheus::Registry>()) {
  rpc_requests_ = &prometheus::BuildCounter()
                       .Name("parlor_rpc_requests_total")
                       .Help("gRPC requests handled, by service, method and status code.")
                       .Register(*registry_);
  rpc_duration_ = &prometheus::BuildHistogram()
                       .Name("parlor_rpc_duration_seconds")
                       .Help("gRPC request latency from receipt to status, in seconds.")
                       .Register(*registry_);
  db_transactions_ = &prometheus::BuildCounter()
                          .Name("parlor_db_transactions_total")
                          .Help(
                              "Database transactions by name and outcome (committed, "
                              "rolled_back, retried, failed).")
                          .Register(*registry_);
  auto& connections = prometheus::BuildGauge()
                          .Name("parlor_db_connections")
                          .Help("PostgreSQL connections in the pool, by state.")
                          .Register(*registry_);
  db_idle_ = &connections.Add({{"state", "idle"}});
  db_in_use_ = &connections.Add({{"state", "in_use"}});
  prometheus::BuildGauge()
      .Name("parlor_build_info")
      .Help("Always 1; labels say which build is running.")
      .Register(*registry_)
      .Add({{"service", std::move(service)}, {"version", std::move(version)}})
      .Set(1);
}

absl::Status Metrics::StartExposer(absl::string_view host, int port) {
  if (port == 0) return absl::OkStatus();
  // civetweb writes an IPv6 address in brackets.
  const std::string address = absl::StrContains(host, ':') && !absl::StartsWith(host, "[")
                                  ? absl::StrCat("[", host, "]:", port)
                                  : absl::StrCat(host, ":", port);
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(address);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ": ", e.what()));
  }
  exposer_->RegisterCollectable(registry_);
  return absl::OkStatus();
}

void Metrics::RecordRpc(absl::string_view full_method, const char* code, double seconds) {
  auto [service, method] = SplitMethod(full_method);
  rpc_requests_->Add({{"service", service}, {"method", method}, {"code", code}}).Increment();
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  rpc_duration_->Add({{"service", service}, {"method", method}}, kBuckets).Observe(seconds);
}

prometheus::Counter& Metrics::db_transactions(absl::string_view transaction,
                                              absl::string_view outcome) {
  return db_transactions_->Add(
      {{"transaction", std::string(transaction)}, {"outcome", std::string(outcome)}});
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
Metrics::MakeInterceptorFactory() {
  return std::make_unique<RpcMetricsInterceptorFactory>(this);
}

std::string Metrics::Serialize() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace parlor
