#include "services/common/metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
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

// The process_* metrics of the Prometheus client conventions, read from /proc/self when
// collected (prometheus-cpp has no process collector).
class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    auto add = [&out](const char* name, const char* help, prometheus::MetricType type,
                      double value) {
      prometheus::MetricFamily family{name, help, type, {prometheus::ClientMetric{}}};
      if (type == prometheus::MetricType::Counter) {
        family.metric[0].counter.value = value;
      } else {
        family.metric[0].gauge.value = value;
      }
      out.push_back(std::move(family));
    };
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    // /proc/self/stat: "pid (comm) state ..."; comm may hold spaces, so split after the ')'.
    std::ifstream stat_file("/proc/self/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos) {
      std::vector<std::string> f = absl::StrSplit(stat.substr(paren + 2), ' ', absl::SkipEmpty());
      // Fields from "state" (field 3 of proc(5)): utime 14, stime 15, starttime 22, vsize 23,
      // rss 24, so index = field - 3.
      double utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
      if (f.size() > 21 && absl::SimpleAtod(f[11], &utime) && absl::SimpleAtod(f[12], &stime) &&
          absl::SimpleAtod(f[19], &start) && absl::SimpleAtod(f[20], &vsize) &&
          absl::SimpleAtod(f[21], &rss)) {
        add("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
            prometheus::MetricType::Counter, (utime + stime) / ticks);
        add("process_virtual_memory_bytes", "Virtual memory size in bytes.",
            prometheus::MetricType::Gauge, vsize);
        add("process_resident_memory_bytes", "Resident memory size in bytes.",
            prometheus::MetricType::Gauge, rss * static_cast<double>(sysconf(_SC_PAGESIZE)));
        const double boot = BootTime();
        if (boot > 0) {
          add("process_start_time_seconds",
              "Start time of the process since unix epoch in seconds.",
              prometheus::MetricType::Gauge, boot + start / ticks);
        }
      }
    }
    std::error_code error;
    double fds = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
      ++fds;
    }
    if (!error) {
      add("process_open_fds", "Number of open file descriptors.", prometheus::MetricType::Gauge,
          fds);
    }
    struct rlimit limit {};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      add("process_max_fds", "Maximum number of open file descriptors.",
          prometheus::MetricType::Gauge,
          limit.rlim_cur == RLIM_INFINITY ? -1 : static_cast<double>(limit.rlim_cur));
    }
    return out;
  }

 private:
  // Seconds since the epoch at which the machine booted ("btime" of /proc/stat), or 0.
  static double BootTime() {
    std::ifstream file("/proc/stat");
    std::string line;
    while (std::getline(file, line)) {
      double value = 0;
      if (absl::StartsWith(line, "btime ") && absl::SimpleAtod(line.substr(6), &value)) {
        return value;
      }
    }
    return 0;
  }
};

}  // namespace

Metrics::Metrics(std::string service, std::string version)
    : registry_(std::make_shared<prometheus::Registry>()),
      process_(std::make_shared<ProcessCollector>()) {
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
  exposer_->RegisterCollectable(process_);
  return absl::OkStatus();
}

void Metrics::RecordRpc(absl::string_view full_method, const char* code, double seconds) {
  prometheus::Counter* requests = nullptr;
  prometheus::Histogram* duration = nullptr;
  {
    absl::MutexLock lock(&rpc_series_mu_);
    RpcSeries& series = SeriesOf(full_method);
    duration = series.duration;
    auto it = series.requests_by_code.find(code);
    if (it == series.requests_by_code.end()) {
      auto [service, method] = SplitMethod(full_method);
      it = series.requests_by_code
               .emplace(code, &rpc_requests_->Add(
                                  {{"service", service}, {"method", method}, {"code", code}}))
               .first;
    }
    requests = it->second;
  }
  // A family never removes a series, so the pointers stay valid; the series are thread-safe.
  requests->Increment();
  duration->Observe(seconds);
}

Metrics::RpcSeries& Metrics::SeriesOf(absl::string_view full_method) {
  auto it = rpc_series_.find(full_method);
  if (it != rpc_series_.end()) return it->second;
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  auto [service, method] = SplitMethod(full_method);
  RpcSeries& series = rpc_series_[full_method];
  series.duration = &rpc_duration_->Add({{"service", service}, {"method", method}}, kBuckets);
  return series;
}

void Metrics::DeclareService(absl::string_view full_service_name) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          std::string(full_service_name));
  if (service == nullptr) return;
  for (int i = 0; i < service->method_count(); ++i) {
    for (const char* code : {"OK", "INTERNAL", "UNAVAILABLE"}) {
      rpc_requests_->Add({{"service", service->full_name()},
                          {"method", service->method(i)->name()},
                          {"code", code}});
    }
  }
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
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (prometheus::MetricFamily& f : process_->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace parlor
