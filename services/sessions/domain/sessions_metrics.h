#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_METRICS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace parlor::sessions {

// The sessions service's metrics, built on the host's registry by the Sessions class (which
// counts moves, timeouts and quota refusals) and handed to the parts around it (the watch
// streams, the outbox dispatcher, the server's gauge loop):
//   parlor_sessions_games{game,status="active"}              games in progress (gauge loop)
//   parlor_sessions_actions_total{game,result}               SubmitAction by gRPC code name
//   parlor_sessions_commit_duration_seconds                  one SubmitAction transaction
//   parlor_sessions_timeouts_total{game,policy}              deadlines passed: bot / forfeit
//   parlor_sessions_quota_refused_total{quota}               CreateBotGame quota refusals
//   parlor_sessions_group_commit_batch_size                  moves per group commit
//   parlor_sessions_game_reads_total{read,how}               game rows read (gauge loop):
//       read="get_game", how="stamp_matched"|"stamp_missed"|"whole"; read="locked",
//       how="held"|"whole"; read="unlocked", how="written"|"retried"
//       (PgSessionsStore::GameReads)
//   parlor_sessions_watch_streams                            open watch streams
//   parlor_sessions_watch_refused_total{reason}              streams refused at open
//   parlor_sessions_watch_ended_total{reason}                streams the server ended early
//   parlor_sessions_watch_pages_read_total                   watch stream reads
//   parlor_sessions_watch_changes_total                      changes the change feed received
//   parlor_sessions_watch_feed_resyncs_total                 change feed reconnections
//   parlor_sessions_outbox_pending{kind}, parlor_sessions_outbox_oldest_age_seconds{kind}
//   parlor_sessions_notifications_failed_total{adapter}      pushes the adapter refused
//   parlor_sessions_notifications_delivered_total{adapter}   pushes the adapter accepted
// Thread-safe (the prometheus types are).
class SessionsMetrics {
 public:
  // `registry` may be null (unit tests): then nothing is counted.
  explicit SessionsMetrics(prometheus::Registry* registry);

  // Zero-valued series for every game (timeouts by policy; moves accepted and refused as
  // illegal), so that their panels and any rule over them have data before the first event.
  void DeclareGames(const std::vector<std::string>& games);
  // The adapter's series exists (at 0) from the start, so rate() sees the first failure.
  void DeclareAdapter(absl::string_view adapter);

  // result: the gRPC code's name (GrpcCodeName: "OK", "INVALID_ARGUMENT", ...).
  void ActionResult(absl::string_view game, absl::string_view result);
  void CommitDuration(absl::Duration d);
  // policy: "bot" (casual) or "forfeit" (ranked).
  void Timeout(absl::string_view game, absl::string_view policy);
  // quota: "active_games", "games_per_hour" or "actions_per_day".
  void QuotaRefused(absl::string_view quota);
  void GroupCommitted(size_t moves);
  // The store's running totals of game reads (PgSessionsStore::game_reads()): each counter is
  // raised to its total.
  void SetGameReads(int64_t get_stamp_matched, int64_t get_stamp_missed, int64_t get_whole,
                    int64_t locked_held, int64_t locked_whole, int64_t unlocked_written,
                    int64_t unlocked_retried);

  void StreamsChanged(int delta);
  void WatchRefused(absl::string_view reason);
  void WatchEnded(absl::string_view reason);
  void WatchRead();
  // A committed change (or a resync after the feed's connection came back) reached this
  // replica's change feed.
  void WatchChangeReceived();
  void WatchFeedResynced();

  void NotificationFailed(absl::string_view adapter);
  void NotificationsDelivered(absl::string_view adapter, int count);

  void SetGames(absl::string_view game, absl::string_view status, int64_t count);
  // oldest_age: of the oldest row not yet delivered (zero when none is pending).
  void SetOutbox(absl::string_view kind, int64_t pending, absl::Duration oldest_age);

 private:
  // Games, moves, commits and timeouts; the watch streams; the outbox, pushes, quotas and group
  // commit.
  void BuildGameMetrics(prometheus::Registry& registry);
  void BuildWatchMetrics(prometheus::Registry& registry);
  void BuildOutboxMetrics(prometheus::Registry& registry);

  prometheus::Family<prometheus::Gauge>* games_ = nullptr;
  prometheus::Family<prometheus::Counter>* actions_ = nullptr;
  prometheus::Histogram* commit_ = nullptr;
  prometheus::Gauge* streams_ = nullptr;
  prometheus::Family<prometheus::Counter>* watch_refused_ = nullptr;
  prometheus::Family<prometheus::Counter>* watch_ended_ = nullptr;
  prometheus::Counter* watch_reads_ = nullptr;
  prometheus::Counter* watch_changes_ = nullptr;
  prometheus::Counter* watch_resyncs_ = nullptr;
  prometheus::Family<prometheus::Counter>* timeouts_ = nullptr;
  prometheus::Family<prometheus::Gauge>* outbox_ = nullptr;
  prometheus::Family<prometheus::Gauge>* outbox_age_ = nullptr;
  prometheus::Family<prometheus::Counter>* notifications_failed_ = nullptr;
  prometheus::Family<prometheus::Counter>* notifications_delivered_ = nullptr;
  prometheus::Family<prometheus::Counter>* quota_refused_ = nullptr;
  prometheus::Histogram* batch_size_ = nullptr;
  prometheus::Family<prometheus::Counter>* game_reads_ = nullptr;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_METRICS_H_
