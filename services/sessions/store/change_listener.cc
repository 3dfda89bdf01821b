#include "services/sessions/store/change_listener.h"

#include <chrono>
#include <utility>

#include "pqxx/pqxx"
#include "services/sessions/store/sql.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

class Receiver : public pqxx::notification_receiver {
 public:
  Receiver(pqxx::connection_base& connection,
           const std::function<void(const std::string&)>* on_notify)
      : pqxx::notification_receiver(connection, sql::kNotifyChannel), on_notify_(on_notify) {}
  void operator()(const std::string& payload, int /*backend_pid*/) override {
    (*on_notify_)(payload);
  }

 private:
  const std::function<void(const std::string&)>* on_notify_;
};

}  // namespace

ChangeListener::ChangeListener(std::string listen_db_url,
                               std::function<void(const std::string&)> on_notify,
                               std::function<void()> on_reconnect)
    : listen_db_url_(std::move(listen_db_url)),
      on_notify_(std::move(on_notify)),
      on_reconnect_(std::move(on_reconnect)) {}

ChangeListener::~ChangeListener() { Stop(); }

void ChangeListener::Start() {
  thread_ = std::thread([this] { Run(); });
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::seconds(10), [this] { return listening_; });
}

void ChangeListener::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void ChangeListener::Run() {
  bool first = true;
  while (!stop_) {
    try {
      pqxx::connection connection(listen_db_url_);
      Receiver receiver(connection, &on_notify_);
      // LISTEN is issued by the receiver's registration; make sure it has reached the server.
      {
        pqxx::nontransaction ping(connection);
        ping.exec("SELECT 1");
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        listening_ = true;
      }
      cv_.notify_all();
      if (!first) on_reconnect_();
      first = false;
      while (!stop_) connection.await_notification(0, 200000);
    } catch (const std::exception& e) {
      spdlog::warn("sessions listener: {}; reconnecting", e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

}  // namespace parlor::sessions
