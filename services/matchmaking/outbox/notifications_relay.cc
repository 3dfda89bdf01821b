#include "services/matchmaking/outbox/notifications_relay.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"

namespace parlor::matchmaking {

namespace nv1 = notifications::v1;

namespace {

constexpr size_t kMaxNames = 8;

// notifications takes names of 1-64 bytes.
std::string NameOf(const std::map<std::string, std::string>& names, const std::string& account) {
  auto found = names.find(account);
  if (found == names.end() || found->second.empty() || found->second.size() > 64) return "Player";
  return found->second;
}

}  // namespace

nv1::Event BuildMatchmakingEvent(const OutboxNotification& row,
                                 const std::map<std::string, std::string>& names) {
  nv1::Event event;
  event.set_dedupe_key(row.dedupe_key);
  event.set_account_id(row.account_id);
  event.set_game(row.game);
  *event.mutable_commit_time() =
      google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(row.created_at));
  if (row.kind == "match_found") {
    event.set_kind(nv1::EVENT_KIND_MATCH_FOUND);
    event.set_game_id(row.game_id);
    for (const std::string& other : row.other_accounts) {
      if (static_cast<size_t>(event.opponent_names_size()) == kMaxNames) break;
      event.add_opponent_names(NameOf(names, other));
    }
  } else if (row.kind == "party_invite") {
    event.set_kind(nv1::EVENT_KIND_PARTY_INVITE);
    event.set_party_id(row.party_id);
    event.set_from_name(NameOf(names, row.from_account));
  } else {
    event.set_kind(row.kind == "challenge_received" ? nv1::EVENT_KIND_CHALLENGE_RECEIVED
                                                    : nv1::EVENT_KIND_CHALLENGE_ACCEPTED);
    event.set_from_name(NameOf(names, row.from_account));
  }
  return event;
}

NotificationsRelay::NotificationsRelay(NotificationOutboxStore* outbox, AccountDirectory* accounts,
                                       std::shared_ptr<grpc::Channel> notifications,
                                       auth::ServiceTokenSource* tokens,
                                       std::function<absl::Time()> clock, Options options,
                                       prometheus::Registry* metrics)
    : outbox_(outbox),
      accounts_(accounts),
      stub_(nv1::NotificationsInternalService::NewStub(std::move(notifications))),
      tokens_(tokens),
      clock_(std::move(clock)),
      options_(options) {
  if (metrics == nullptr) return;
  pending_ = &prometheus::BuildGauge()
                  .Name("parlor_matchmaking_notification_outbox_pending")
                  .Help(
                      "Notification outbox rows not yet handed to notifications (due or "
                      "backing off)")
                  .Register(*metrics)
                  .Add({});
  oldest_age_ = &prometheus::BuildGauge()
                     .Name("parlor_matchmaking_notification_outbox_oldest_age_seconds")
                     .Help(
                         "Age, from the change it reports, of the oldest notification outbox "
                         "row not yet handed over (0 when none)")
                     .Register(*metrics)
                     .Add({});
}

absl::Status NotificationsRelay::UpdateGauges() {
  if (pending_ == nullptr) return absl::OkStatus();
  absl::StatusOr<OutboxBacklog> backlog = outbox_->Backlog();
  if (!backlog.ok()) return backlog.status();
  pending_->Set(static_cast<double>(backlog->pending));
  oldest_age_->Set(
      backlog->oldest_created_at.has_value()
          ? std::max(0.0, absl::ToDoubleSeconds(clock_() - *backlog->oldest_created_at))
          : 0.0);
  return absl::OkStatus();
}

absl::Status NotificationsRelay::Send(const std::vector<OutboxNotification>& rows) {
  std::set<std::string> wanted;
  for (const OutboxNotification& row : rows) {
    if (!row.from_account.empty()) wanted.insert(row.from_account);
    wanted.insert(row.other_accounts.begin(), row.other_accounts.end());
  }
  std::map<std::string, std::string> names;
  if (!wanted.empty()) {
    absl::StatusOr<std::map<std::string, std::string>> found =
        accounts_->Lookup(std::vector<std::string>(wanted.begin(), wanted.end()));
    if (!found.ok()) return found.status();
    names = *std::move(found);
  }
  nv1::AcceptEventsRequest request;
  for (const OutboxNotification& row : rows)
    *request.add_events() = BuildMatchmakingEvent(row, names);
  absl::StatusOr<std::string> token = tokens_->Token(absl::Now());
  if (!token.ok()) return token.status();
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.timeout));
  nv1::AcceptEventsResponse response;
  const grpc::Status status = stub_->AcceptEvents(&context, request, &response);
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("notifications.AcceptEvents: ", status.error_message()));
}

absl::Status NotificationsRelay::Settle(const std::vector<OutboxNotification>& rows,
                                        const absl::Status& sent, Relayed& relayed) {
  std::vector<int64_t> ids;
  int attempts = 0;
  for (const OutboxNotification& row : rows) {
    ids.push_back(row.id);
    attempts = std::max(attempts, row.attempts);
  }
  if (sent.ok()) {
    relayed.sent += static_cast<int>(ids.size());
    return outbox_->MarkSent(ids, clock_());
  }
  absl::Duration backoff = absl::Seconds(1);
  for (int a = 1; a < attempts && backoff < options_.max_backoff; ++a) backoff *= 2;
  relayed.failed += static_cast<int>(ids.size());
  return outbox_->MarkFailed(ids, clock_() + std::min(backoff, options_.max_backoff),
                             sent.ToString());
}

absl::StatusOr<NotificationsRelay::Relayed> NotificationsRelay::Drain(int max_batches) {
  Relayed relayed;
  for (int i = 0; i < max_batches; ++i) {
    absl::StatusOr<std::vector<OutboxNotification>> rows =
        outbox_->Claim(clock_(), options_.lease, options_.batch);
    if (!rows.ok()) return rows.status();
    if (rows->empty()) break;
    const absl::Status sent = Send(*rows);
    if (sent.code() == absl::StatusCode::kInvalidArgument && rows->size() > 1) {
      // A batch is all or nothing: one refused row would hold the others back. Row by row, only
      // the bad one waits for its retry.
      for (const OutboxNotification& row : *rows) {
        const std::vector<OutboxNotification> one = {row};
        if (absl::Status settled = Settle(one, Send(one), relayed); !settled.ok()) return settled;
      }
    } else {
      if (absl::Status settled = Settle(*rows, sent, relayed); !settled.ok()) return settled;
      if (!sent.ok()) break;  // notifications is away: the rows wait for their retry
    }
    if (static_cast<int>(rows->size()) < options_.batch) break;
  }
  return relayed;
}

}  // namespace parlor::matchmaking
