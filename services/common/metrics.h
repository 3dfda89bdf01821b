#ifndef PARLOR_SERVICES_COMMON_METRICS_H_
#define PARLOR_SERVICES_COMMON_METRICS_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace parlor {

// One Prometheus registry per process plus the metrics every service has:
//   parlor_rpc_requests_total{service,method,code}     counter, by a gRPC server interceptor
//   parlor_rpc_duration_seconds{service,method}        histogram, same interceptor
//   parlor_db_connections{state="idle"|"in_use"}       gauges, kept by DbPool
//   parlor_db_transactions_total{transaction,outcome}  counter, kept by DbPool::Transact
//   parlor_build_info{service,version}                 gauge fixed at 1
//   process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
//   process_open_fds, process_max_fds, process_start_time_seconds
//                                                      read from /proc/self at each scrape
// Services add their domain metrics to registry() with prometheus-cpp's builders, named
// parlor_<area>_<what>_<unit>.
class Metrics {
 public:
  Metrics(std::string service, std::string version);

  // Serves /metrics on `host`:`port` ("127.0.0.1", "0.0.0.0", "::1"). Port 0 means "no exposer"
  // (tests that scrape nothing).
  absl::Status StartExposer(absl::string_view host, int port);

  prometheus::Registry& registry() { return *registry_; }
  const std::shared_ptr<prometheus::Registry>& shared_registry() const { return registry_; }

  // Creates the request counters of every method of `full_service_name` (a service in the
  // generated descriptor pool) at zero for the codes the alerts divide (OK, INTERNAL,
  // UNAVAILABLE), so that error ratios and their panels have data before the first failure.
  void DeclareService(absl::string_view full_service_name);

  // Records one finished RPC; called by the interceptor (exposed for tests).
  void RecordRpc(absl::string_view full_method, const char* code, double seconds);

  prometheus::Gauge& db_connections_idle() { return *db_idle_; }
  prometheus::Gauge& db_connections_in_use() { return *db_in_use_; }
  prometheus::Counter& db_transactions(absl::string_view transaction, absl::string_view outcome);

  // Interceptor factory to install on a grpc::ServerBuilder.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeInterceptorFactory();

  // The text exposition of the registry (what a scrape returns), for tests and debugging.
  std::string Serialize() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Collectable> process_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Family<prometheus::Counter>* rpc_requests_;
  prometheus::Family<prometheus::Histogram>* rpc_duration_;
  // A method's series, found once: Family::Add builds and hashes the label map under the
  // family's lock on every call, several microseconds of each RPC's CPU.
  struct RpcSeries {
    prometheus::Histogram* duration = nullptr;
    absl::flat_hash_map<std::string, prometheus::Counter*> requests_by_code;
  };
  RpcSeries& SeriesOf(absl::string_view full_method) ABSL_EXCLUSIVE_LOCKS_REQUIRED(rpc_series_mu_);
  absl::Mutex rpc_series_mu_;
  absl::flat_hash_map<std::string, RpcSeries> rpc_series_ ABSL_GUARDED_BY(rpc_series_mu_);
  prometheus::Family<prometheus::Counter>* db_transactions_;
  prometheus::Gauge* db_idle_;
  prometheus::Gauge* db_in_use_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_METRICS_H_
