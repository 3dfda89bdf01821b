#ifndef PARLOR_SERVICES_SESSIONS_TESTING_METRIC_VALUE_H_
#define PARLOR_SERVICES_SESSIONS_TESTING_METRIC_VALUE_H_

#include <map>
#include <string>

#include "prometheus/registry.h"

namespace parlor::testing {

// The value of the counter or gauge `name` with exactly `labels` on `registry`; -1 when no such
// series exists.
inline double MetricValue(const prometheus::Registry& registry, const std::string& name,
                          const std::map<std::string, std::string>& labels = {}) {
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::map<std::string, std::string> have;
      for (const prometheus::ClientMetric::Label& label : metric.label) {
        have[label.name] = label.value;
      }
      if (have != labels) continue;
      return family.type == prometheus::MetricType::Gauge ? metric.gauge.value
                                                          : metric.counter.value;
    }
  }
  return -1;
}

}  // namespace parlor::testing

#endif  // PARLOR_SERVICES_SESSIONS_TESTING_METRIC_VALUE_H_
