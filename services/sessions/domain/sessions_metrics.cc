#include "services/sessions/domain/sessions_metrics.h"

#include <algorithm>
#include <utility>

namespace parlor::sessions {
namespace {

std::string S(absl::string_view s) { return std::string(s); }

}  // namespace

SessionsMetrics::SessionsMetrics(prometheus::Registry* registry) {
  if (registry == nullptr) return;
  BuildGameMetrics(*registry);
  BuildWatchMetrics(*registry);
  BuildOutboxMetrics(*registry);
}

void SessionsMetrics::BuildGameMetrics(prometheus::Registry& registry) {
  games_ = &prometheus::BuildGauge()
                .Name("parlor_sessions_games")
                .Help(
                    "Games in progress by game (status=\"active\"; finished games are not "
                    "counted)")
                .Register(registry);
  actions_ = &prometheus::BuildCounter()
                  .Name("parlor_sessions_actions_total")
                  .Help(
                      "SubmitAction calls by game and result (the gRPC code's name, as on "
                      "parlor_rpc_*)")
                  .Register(registry);
  commit_ = &prometheus::BuildHistogram()
                 .Name("parlor_sessions_commit_duration_seconds")
                 .Help("Time to apply and commit one SubmitAction transaction")
                 .Register(registry)
                 .Add({}, prometheus::Histogram::BucketBoundaries{0.0005, 0.001, 0.002, 0.005, 0.01,
                                                                  0.02, 0.05, 0.1, 0.25, 1});
  timeouts_ = &prometheus::BuildCounter()
                   .Name("parlor_sessions_timeouts_total")
                   .Help("Deadlines that passed, by game and the policy applied")
                   .Register(registry);
}

void SessionsMetrics::BuildWatchMetrics(prometheus::Registry& registry) {
  streams_ = &prometheus::BuildGauge()
                  .Name("parlor_sessions_watch_streams")
                  .Help("Open WatchGame and WatchMyGames streams on this replica")
                  .Register(registry)
                  .Add({});
  watch_refused_ = &prometheus::BuildCounter()
                        .Name("parlor_sessions_watch_refused_total")
                        .Help(
                            "WatchGame and WatchMyGames streams refused at open, by the limit "
                            "that refused them")
                        .Register(registry);
  watch_ended_ = &prometheus::BuildCounter()
                      .Name("parlor_sessions_watch_ended_total")
                      .Help(
                          "Watch streams the server ended early, by reason (token_expired, "
                          "signed_out, fell_behind, overloaded)")
                      .Register(registry);
  watch_reads_ = &prometheus::BuildCounter()
                      .Name("parlor_sessions_watch_pages_read_total")
                      .Help(
                          "Reads done for watch streams, each at most one page of events (the "
                          "streams' catch-up and live work)")
                      .Register(registry)
                      .Add({});
  watch_changes_ = &prometheus::BuildCounter()
                        .Name("parlor_sessions_watch_changes_total")
                        .Help(
                            "Committed game changes this replica's change feed (LISTEN) "
                            "received; every replica receives every change, so one that "
                            "receives none while moves commit has lost its feed")
                        .Register(registry)
                        .Add({});
  watch_resyncs_ = &prometheus::BuildCounter()
                        .Name("parlor_sessions_watch_feed_resyncs_total")
                        .Help(
                            "Times this replica's change feed reconnected to the database, "
                            "after which every open watch stream read again")
                        .Register(registry)
                        .Add({});
}

void SessionsMetrics::BuildOutboxMetrics(prometheus::Registry& registry) {
  outbox_ = &prometheus::BuildGauge()
                 .Name("parlor_sessions_outbox_pending")
                 .Help("Outbox rows not yet delivered, by kind")
                 .Register(registry);
  outbox_age_ = &prometheus::BuildGauge()
                     .Name("parlor_sessions_outbox_oldest_age_seconds")
                     .Help(
                         "Age of the oldest outbox row not yet delivered, by kind (0 when none "
                         "is pending)")
                     .Register(registry);
  notifications_failed_ = &prometheus::BuildCounter()
                               .Name("parlor_sessions_notifications_failed_total")
                               .Help(
                                   "Push notifications the adapter did not accept (each is "
                                   "retried with backoff), by adapter")
                               .Register(registry);
  notifications_delivered_ = &prometheus::BuildCounter()
                                  .Name("parlor_sessions_notifications_delivered_total")
                                  .Help(
                                      "Push notifications the adapter accepted (counted once "
                                      "the rows left the outbox), by adapter")
                                  .Register(registry);
  quota_refused_ = &prometheus::BuildCounter()
                        .Name("parlor_sessions_quota_refused_total")
                        .Help("CreateBotGame calls refused by a per-account quota, by quota")
                        .Register(registry);
  batch_size_ = &prometheus::BuildHistogram()
                     .Name("parlor_sessions_group_commit_batch_size")
                     .Help("Moves committed together in one SubmitAction group commit transaction")
                     .Register(registry)
                     .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128});
  game_reads_ = &prometheus::BuildCounter()
                     .Name("parlor_sessions_game_reads_total")
                     .Help(
                         "Game rows read: by GetGame (read=\"get_game\"), through the stamp of "
                         "this replica's own write or whole; by a batch's locked read "
                         "(read=\"locked\"), the row held or sent whole; games a batch wrote "
                         "without a locked read (read=\"unlocked\", how=\"written\") and "
                         "batches decided again on the locked rows (how=\"retried\")")
                     .Register(registry);
  for (const auto& [read, how] :
       {std::pair{"get_game", "stamp_matched"}, std::pair{"get_game", "stamp_missed"},
        std::pair{"get_game", "whole"}, std::pair{"locked", "held"}, std::pair{"locked", "whole"},
        std::pair{"unlocked", "written"}, std::pair{"unlocked", "retried"}}) {
    game_reads_->Add({{"read", read}, {"how", how}});
  }
}

void SessionsMetrics::DeclareGames(const std::vector<std::string>& games) {
  if (timeouts_ == nullptr) return;
  for (const std::string& game : games) {
    for (const char* policy : {"bot", "forfeit"}) {
      timeouts_->Add({{"game", game}, {"policy", policy}});
    }
    for (const char* result : {"OK", "INVALID_ARGUMENT", "FAILED_PRECONDITION"}) {
      actions_->Add({{"game", game}, {"result", result}});
    }
  }
}

void SessionsMetrics::DeclareAdapter(absl::string_view adapter) {
  if (notifications_failed_ != nullptr) notifications_failed_->Add({{"adapter", S(adapter)}});
  if (notifications_delivered_ != nullptr) {
    notifications_delivered_->Add({{"adapter", S(adapter)}});
  }
}

void SessionsMetrics::ActionResult(absl::string_view game, absl::string_view result) {
  if (actions_ != nullptr) actions_->Add({{"game", S(game)}, {"result", S(result)}}).Increment();
}

void SessionsMetrics::CommitDuration(absl::Duration d) {
  if (commit_ != nullptr) commit_->Observe(absl::ToDoubleSeconds(d));
}

void SessionsMetrics::Timeout(absl::string_view game, absl::string_view policy) {
  if (timeouts_ != nullptr) {
    timeouts_->Add({{"game", S(game)}, {"policy", S(policy)}}).Increment();
  }
}

void SessionsMetrics::QuotaRefused(absl::string_view quota) {
  if (quota_refused_ != nullptr) quota_refused_->Add({{"quota", S(quota)}}).Increment();
}

void SessionsMetrics::GroupCommitted(size_t moves) {
  if (batch_size_ != nullptr) batch_size_->Observe(static_cast<double>(moves));
}

void SessionsMetrics::SetGameReads(int64_t get_stamp_matched, int64_t get_stamp_missed,
                                   int64_t get_whole, int64_t locked_held, int64_t locked_whole,
                                   int64_t unlocked_written, int64_t unlocked_retried) {
  if (game_reads_ == nullptr) return;
  auto raise = [&](const char* read, const char* how, int64_t total) {
    prometheus::Counter& counter = game_reads_->Add({{"read", read}, {"how", how}});
    const double missing = static_cast<double>(total) - counter.Value();
    if (missing > 0) counter.Increment(missing);
  };
  raise("get_game", "stamp_matched", get_stamp_matched);
  raise("get_game", "stamp_missed", get_stamp_missed);
  raise("get_game", "whole", get_whole);
  raise("locked", "held", locked_held);
  raise("locked", "whole", locked_whole);
  raise("unlocked", "written", unlocked_written);
  raise("unlocked", "retried", unlocked_retried);
}

void SessionsMetrics::StreamsChanged(int delta) {
  if (streams_ != nullptr) streams_->Increment(delta);
}

void SessionsMetrics::WatchRefused(absl::string_view reason) {
  if (watch_refused_ != nullptr) watch_refused_->Add({{"reason", S(reason)}}).Increment();
}

void SessionsMetrics::WatchEnded(absl::string_view reason) {
  if (watch_ended_ != nullptr) watch_ended_->Add({{"reason", S(reason)}}).Increment();
}

void SessionsMetrics::WatchRead() {
  if (watch_reads_ != nullptr) watch_reads_->Increment();
}

void SessionsMetrics::WatchChangeReceived() {
  if (watch_changes_ != nullptr) watch_changes_->Increment();
}

void SessionsMetrics::WatchFeedResynced() {
  if (watch_resyncs_ != nullptr) watch_resyncs_->Increment();
}

void SessionsMetrics::NotificationsDelivered(absl::string_view adapter, int count) {
  if (notifications_delivered_ != nullptr && count > 0) {
    notifications_delivered_->Add({{"adapter", S(adapter)}}).Increment(count);
  }
}

void SessionsMetrics::NotificationFailed(absl::string_view adapter) {
  if (notifications_failed_ != nullptr) {
    notifications_failed_->Add({{"adapter", S(adapter)}}).Increment();
  }
}

void SessionsMetrics::SetGames(absl::string_view game, absl::string_view status, int64_t count) {
  if (games_ != nullptr) {
    games_->Add({{"game", S(game)}, {"status", S(status)}}).Set(static_cast<double>(count));
  }
}

void SessionsMetrics::SetOutbox(absl::string_view kind, int64_t pending,
                                absl::Duration oldest_age) {
  if (outbox_ == nullptr) return;
  outbox_->Add({{"kind", S(kind)}}).Set(static_cast<double>(pending));
  outbox_age_->Add({{"kind", S(kind)}})
      .Set(pending > 0 ? std::max(0.0, absl::ToDoubleSeconds(oldest_age)) : 0.0);
}

}  // namespace parlor::sessions
