#include "services/sessions/store/change_listener.h"

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "pqxx/pqxx"
#include "services/common/core/thread_name.h"
#include "services/sessions/store/sql.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& connection, const ChangeFeed::OnChange* on_change)
      : pqxx::notification_receiver(connection, sql::kNotifyChannel), on_change_(on_change) {}
  void operator()(const std::string& payload, int /*backend_pid*/) override {
    GameChange change;
    if (ParseGameChange(payload, &change)) (*on_change_)(change);
  }

 private:
  const ChangeFeed::OnChange* on_change_;
};

}  // namespace

bool ParseGameChange(absl::string_view payload, GameChange* out) {
  std::vector<absl::string_view> parts = absl::StrSplit(payload, absl::MaxSplits(':', 2));
  if (parts.size() != 3 || parts[0].empty()) return false;
  out->game_id = std::string(parts[0]);
  if (!absl::SimpleAtoi(parts[1], &out->version)) return false;
  out->accounts.clear();
  for (absl::string_view a : absl::StrSplit(parts[2], ',', absl::SkipEmpty())) {
    out->accounts.emplace_back(a);
  }
  out->resync = false;
  return true;
}

PgChangeFeed::PgChangeFeed(std::string listen_db_url, std::string application_name)
    : listen_db_url_(std::move(listen_db_url)), application_name_(std::move(application_name)) {}

PgChangeFeed::~PgChangeFeed() { Stop(); }

void PgChangeFeed::Start(OnChange on_change) {
  on_change_ = std::move(on_change);
  stop_ = false;
  thread_ = std::thread([this] {
    NameThisThread("change-listen");
    Run();
  });
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(10), [this] { return listening_; });
}

void PgChangeFeed::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PgChangeFeed::Run() {
  bool listened_before = false;
  while (!stop_) {
    try {
      ListenOnce(&listened_before);
    } catch (const std::exception& e) {
      spdlog::warn("sessions listener: {}; reconnecting", e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

void PgChangeFeed::ListenOnce(bool* listened_before) {
  pqxx::connection connection(listen_db_url_);
  Receiver receiver(connection, &on_change_);
  // LISTEN is issued by the receiver's registration; make sure it has reached the server.
  {
    pqxx::nontransaction ping(connection);
    ping.exec0("SET application_name = " + ping.quote(application_name_));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    listening_ = true;
  }
  cv_.notify_all();
  if (*listened_before) {
    GameChange resync;
    resync.resync = true;
    on_change_(resync);
  }
  *listened_before = true;
  while (!stop_) connection.await_notification(0, 200000);
}

}  // namespace parlor::sessions
