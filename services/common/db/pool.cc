#include "services/common/db/pool.h"

#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/core/logging.h"
#include "services/common/metrics.h"
#include "spdlog/spdlog.h"

namespace parlor {
namespace {

constexpr char kUnavailable[] = "database unavailable; retry with backoff";

// Runs `body` in a transaction of isolation level L. Exceptions propagate to Transact().
template <pqxx::isolation_level L>
absl::Status RunOnce(pqxx::connection& connection, const std::string& name,
                     const std::function<absl::Status(pqxx::work&)>& body) {
  // pqxx::work is transaction<read_committed>; for serializable we still hand the body a
  // pqxx::work& by setting the level at the start of the transaction.
  pqxx::work txn(connection, name);
  if constexpr (L == pqxx::serializable) {
    txn.exec0("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
  }
  absl::Status status = body(txn);
  if (status.ok()) {
    txn.commit();
  } else {
    txn.abort();
  }
  return status;
}

}  // namespace

DbPool::DbPool(DbOptions options, Metrics* metrics)
    : options_(std::move(options)), metrics_(metrics) {}

DbPool::~DbPool() = default;

DbPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), discard_(other.discard_) {
  other.pool_ = nullptr;
}

DbPool::Lease::~Lease() {
  if (pool_ != nullptr && connection_ != nullptr) pool_->Release(std::move(connection_), discard_);
}

absl::StatusOr<std::unique_ptr<pqxx::connection>> DbPool::Connect() {
  try {
    auto connection = std::make_unique<pqxx::connection>(options_.url);
    pqxx::nontransaction setup(*connection);
    setup.exec0(absl::StrCat("SET statement_timeout = ",
                             absl::ToInt64Milliseconds(options_.statement_timeout)));
    setup.exec0(absl::StrCat("SET application_name = ", setup.quote(options_.application_name)));
    setup.commit();
    return connection;
  } catch (const std::exception& e) {
    spdlog::warn("cannot connect to PostgreSQL: {}", e.what());
    return absl::UnavailableError(kUnavailable);
  }
}

absl::StatusOr<DbPool::Lease> DbPool::Acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline =
      std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(options_.acquire_timeout);
  for (;;) {
    if (!idle_.empty()) {
      std::unique_ptr<pqxx::connection> connection = std::move(idle_.back());
      idle_.pop_back();
      UpdateGauges();
      return Lease(this, std::move(connection));
    }
    if (open_ < options_.max_connections) {
      ++open_;  // reserve the slot, connect without holding the lock
      UpdateGauges();
      lock.unlock();
      absl::StatusOr<std::unique_ptr<pqxx::connection>> connection = Connect();
      lock.lock();
      if (!connection.ok()) {
        --open_;
        UpdateGauges();
        released_.notify_one();
        return connection.status();
      }
      return Lease(this, *std::move(connection));
    }
    if (released_.wait_until(lock, deadline) == std::cv_status::timeout) {
      return absl::UnavailableError(
          "database busy: no connection free in time; retry with backoff");
    }
  }
}

void DbPool::Release(std::unique_ptr<pqxx::connection> connection, bool discard) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (discard || !connection->is_open()) {
      --open_;
    } else {
      idle_.push_back(std::move(connection));
    }
    UpdateGauges();
  }
  released_.notify_one();
}

void DbPool::UpdateGauges() {
  if (metrics_ == nullptr) return;
  metrics_->db_connections_idle().Set(static_cast<double>(idle_.size()));
  metrics_->db_connections_in_use().Set(static_cast<double>(open_ - idle_.size()));
}

absl::Status DbPool::Transact(absl::string_view name,
                              const std::function<absl::Status(pqxx::work&)>& body,
                              TransactionOptions options) {
  const std::string txn_name(name);
  auto count = [&](absl::string_view outcome) {
    if (metrics_ != nullptr) metrics_->db_transactions(txn_name, outcome).Increment();
  };
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<Lease> lease = Acquire();
    if (!lease.ok()) {
      count("failed");
      return lease.status();
    }
    try {
      absl::Status status =
          options.serializable ? RunOnce<pqxx::serializable>(lease->connection(), txn_name, body)
                               : RunOnce<pqxx::read_committed>(lease->connection(), txn_name, body);
      count(status.ok() ? "committed" : "rolled_back");
      return status;
    } catch (const pqxx::transaction_rollback& e) {
      // Serialization failure or deadlock: the server rolled back; the whole body may re-run.
      const bool retryable = dynamic_cast<const pqxx::serialization_failure*>(&e) != nullptr ||
                             dynamic_cast<const pqxx::deadlock_detected*>(&e) != nullptr;
      if (!retryable || attempt >= options.max_attempts) {
        count("failed");
        spdlog::warn("transaction {} gave up after {} attempts: {}", txn_name, attempt, e.what());
        return absl::AbortedError("too much contention on the same data; retry the request");
      }
      count("retried");
      spdlog::debug("transaction {} retrying (attempt {}): {}", txn_name, attempt, e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * attempt * attempt));
    } catch (const pqxx::broken_connection& e) {
      lease->Discard();
      count("failed");
      spdlog::warn("transaction {}: connection lost: {}", txn_name, e.what());
      return absl::UnavailableError(kUnavailable);
    } catch (const pqxx::in_doubt_error& e) {
      lease->Discard();
      count("failed");
      spdlog::error("transaction {}: commit outcome unknown: {}", txn_name, e.what());
      return absl::UnavailableError(
          "database connection lost during commit; the change may or may not have been saved");
    } catch (const pqxx::sql_error& e) {
      count("failed");
      // The SQL and the server's message stay in the log; the caller gets INTERNAL.
      spdlog::error("transaction {}: SQL error [{}] {} (query: {})", txn_name, e.sqlstate(),
                    e.what(), e.query());
      if (!lease->connection().is_open()) lease->Discard();
      return absl::InternalError(absl::StrCat("database error in ", txn_name));
    } catch (const std::exception& e) {
      count("failed");
      spdlog::error("transaction {}: {}", txn_name, e.what());
      if (!lease->connection().is_open()) lease->Discard();
      return absl::InternalError(absl::StrCat("database error in ", txn_name));
    }
  }
}

absl::Status DbPool::Ping() {
  return Transact("ping", [](pqxx::work& txn) {
    txn.exec1("SELECT 1");
    return absl::OkStatus();
  });
}

}  // namespace parlor
