#include "services/common/db/pool.h"

#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "services/common/core/logging.h"
#include "services/common/grpc_status.h"
#include "services/common/metrics.h"
#include "spdlog/spdlog.h"

namespace parlor {
namespace {

constexpr char kUnavailable[] = "database unavailable; retry with backoff";
// What the transient refusals suggest as the first retry delay.
constexpr absl::Duration kRetryAfterOutage = absl::Seconds(1);
constexpr absl::Duration kRetryAfterBusy = absl::Milliseconds(500);

absl::Status Unavailable(absl::string_view message) {
  return WithRetryDelay(absl::UnavailableError(message), kRetryAfterOutage);
}

// SQLSTATEs that mean "the server or the connection is going away", not "the SQL is wrong":
// class 08 (connection exception) and 57P01-57P03 (admin/crash shutdown, cannot connect now).
bool IsConnectionFailure(const std::string& sqlstate) {
  return sqlstate.rfind("08", 0) == 0 || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

// The connection itself failed (as opposed to the SQL), with no COMMIT in doubt. An error
// without SQLSTATE was made by libpq, not sent by the server: a server that went away in the
// middle of a statement ("server closed the connection unexpectedly") is one, which libpqxx
// throws as sql_error.
bool IsLostConnection(const std::exception& error) {
  if (dynamic_cast<const pqxx::broken_connection*>(&error) != nullptr) return true;
  const auto* sql = dynamic_cast<const pqxx::sql_error*>(&error);
  return sql != nullptr && (sql->sqlstate().empty() || IsConnectionFailure(sql->sqlstate()));
}

// Runs `body` in a transaction of isolation level L. Exceptions propagate to Transact();
// `*committing` tells it whether COMMIT may have reached the server.
template <pqxx::isolation_level L>
absl::Status RunOnce(pqxx::connection& connection, const std::string& name,
                     const std::function<absl::Status(pqxx::work&)>& body,
                     const std::string& local_settings, bool* committing) {
  // pqxx::work is transaction<read_committed>; for serializable we still hand the body a
  // pqxx::work& by setting the level at the start of the transaction.
  pqxx::work txn(connection, name);
  if constexpr (L == pqxx::serializable) {
    txn.exec0("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
  }
  if (!local_settings.empty()) txn.exec0(local_settings);
  absl::Status status = body(txn);
  if (status.ok()) {
    *committing = true;
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

absl::StatusOr<std::unique_ptr<pqxx::connection>> DbPool::Connect(const std::string& url) {
  try {
    auto connection = std::make_unique<pqxx::connection>(url);
    // Behind a transaction pooler a session SET would land on whichever server connection
    // serves it and stay there for other clients: the settings go with each transaction.
    if (!options_.prepared_statements && url == options_.url) return connection;
    pqxx::nontransaction setup(*connection);
    setup.exec0(absl::StrCat("SET statement_timeout = ",
                             absl::ToInt64Milliseconds(options_.statement_timeout)));
    setup.exec0(absl::StrCat("SET application_name = ", setup.quote(options_.application_name)));
    setup.commit();
    return connection;
  } catch (const std::exception& e) {
    spdlog::warn("cannot connect to PostgreSQL: {}", e.what());
    return Unavailable(kUnavailable);
  }
}

// A pipelined connection checked out of the pool; unless Keep() is called (after a clean commit),
// it is closed when the lease ends, as after a failure no pipelined connection is reused.
class DbPool::PipelineLease {
 public:
  PipelineLease(DbPool* pool, std::unique_ptr<PipelineConnection> connection)
      : pool_(pool), connection_(std::move(connection)) {}
  PipelineLease(PipelineLease&& other) noexcept
      : pool_(other.pool_), connection_(std::move(other.connection_)), keep_(other.keep_) {
    other.pool_ = nullptr;
  }
  PipelineLease& operator=(PipelineLease&&) = delete;
  ~PipelineLease() {
    if (pool_ != nullptr && connection_ != nullptr) {
      pool_->ReleasePipeline(std::move(connection_), !keep_);
    }
  }
  PipelineConnection& connection() { return *connection_; }
  bool is_open() const { return connection_ != nullptr && connection_->is_open(); }
  void Keep() { keep_ = true; }
  void Discard() { keep_ = false; }

 private:
  DbPool* pool_;
  std::unique_ptr<PipelineConnection> connection_;
  bool keep_ = false;
};

template <typename Connection, typename ConnectFn>
absl::StatusOr<std::unique_ptr<Connection>> DbPool::Checkout(
    std::vector<std::unique_ptr<Connection>>& idle, int& open, int max,
    std::condition_variable& released, const ConnectFn& connect) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline =
      std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(options_.acquire_timeout);
  for (;;) {
    if (!idle.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle.back());
      idle.pop_back();
      UpdateGauges();
      return connection;
    }
    if (open < max) {
      ++open;  // reserve the slot, connect without holding the lock
      UpdateGauges();
      lock.unlock();
      absl::StatusOr<std::unique_ptr<Connection>> connection = connect();
      lock.lock();
      if (!connection.ok()) {
        --open;
        UpdateGauges();
        released.notify_one();
      }
      return connection;
    }
    if (released.wait_until(lock, deadline) == std::cv_status::timeout) {
      return WithRetryDelay(
          absl::ResourceExhaustedError(
              absl::StrCat("database busy: all ", max, " connections stayed in use for ",
                           absl::FormatDuration(options_.acquire_timeout), "; retry with backoff")),
          kRetryAfterBusy);
    }
  }
}

absl::StatusOr<DbPool::Lease> DbPool::Acquire() {
  absl::StatusOr<std::unique_ptr<pqxx::connection>> connection = Checkout(
      idle_, open_, options_.max_connections, released_, [this] { return Connect(options_.url); });
  if (!connection.ok()) return connection.status();
  return Lease(this, *std::move(connection));
}

absl::StatusOr<DbPool::PipelineLease> DbPool::AcquirePipeline() {
  absl::StatusOr<std::unique_ptr<PipelineConnection>> connection = Checkout(
      idle_pipelines_, open_pipelines_, options_.max_pipelined_connections, pipeline_released_,
      [this]() -> absl::StatusOr<std::unique_ptr<PipelineConnection>> {
        try {
          return std::make_unique<PipelineConnection>(
              options_.url,
              absl::StrCat(
                  "SET statement_timeout = ", absl::ToInt64Milliseconds(options_.statement_timeout),
                  "; SET application_name = '",
                  absl::StrReplaceAll(options_.application_name, {{"'", "''"}}),
                  "'; SET plan_cache_mode = force_generic_plan; "
                  "SET enable_seqscan = off"));
        } catch (const std::exception& e) {
          spdlog::warn("cannot connect to PostgreSQL: {}", e.what());
          return Unavailable(kUnavailable);
        }
      });
  if (!connection.ok()) return connection.status();
  return PipelineLease(this, *std::move(connection));
}

absl::StatusOr<DbPool::Lease> DbPool::AcquireSession() {
  if (options_.direct_url.empty()) return Acquire();
  absl::StatusOr<std::unique_ptr<pqxx::connection>> connection = Connect(options_.direct_url);
  if (!connection.ok()) return connection.status();
  return Lease(nullptr, *std::move(connection));  // not pooled: closed when the lease ends
}

std::string DbPool::LocalSettings() const {
  if (options_.prepared_statements) return "";
  return absl::StrCat("SET LOCAL statement_timeout = ",
                      absl::ToInt64Milliseconds(options_.statement_timeout));
}

template <typename Connection>
void DbPool::CheckIn(std::unique_ptr<Connection> connection, bool discard,
                     std::vector<std::unique_ptr<Connection>>& idle, int& open,
                     std::condition_variable& released) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (discard || !connection->is_open()) {
      --open;
    } else {
      idle.push_back(std::move(connection));
    }
    UpdateGauges();
  }
  released.notify_one();
}

void DbPool::Release(std::unique_ptr<pqxx::connection> connection, bool discard) {
  CheckIn(std::move(connection), discard, idle_, open_, released_);
}

void DbPool::ReleasePipeline(std::unique_ptr<PipelineConnection> connection, bool discard) {
  CheckIn(std::move(connection), discard, idle_pipelines_, open_pipelines_, pipeline_released_);
}

void DbPool::UpdateGauges() {
  if (metrics_ == nullptr) return;
  const size_t idle = idle_.size() + idle_pipelines_.size();
  metrics_->db_connections_idle().Set(static_cast<double>(idle));
  metrics_->db_connections_in_use().Set(
      static_cast<double>(open_ + open_pipelines_ - static_cast<int>(idle)));
}

void DbPool::ConnectionLost() {
  std::vector<std::unique_ptr<pqxx::connection>> dead;
  std::vector<std::unique_ptr<PipelineConnection>> dead_pipelines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dead.swap(idle_);
    dead_pipelines.swap(idle_pipelines_);
    open_ -= static_cast<int>(dead.size());
    open_pipelines_ -= static_cast<int>(dead_pipelines.size());
    UpdateGauges();
  }
  released_.notify_all();
  pipeline_released_.notify_all();
  dead.clear();  // closes them without holding the lock
  dead_pipelines.clear();
  if (options_.on_connection_lost) options_.on_connection_lost();
}

absl::Status DbPool::FailureStatus(absl::string_view name, const std::exception& error,
                                   Lease& lease) {
  const Failure failure = Classify(name, error, lease.is_open());
  if (failure.discard) lease.Discard();
  return failure.status;
}

DbPool::Failure DbPool::Classify(absl::string_view name, const std::exception& error,
                                 bool connection_open) {
  if (dynamic_cast<const pqxx::in_doubt_error*>(&error) != nullptr ||
      dynamic_cast<const pqxx::statement_completion_unknown*>(&error) != nullptr) {
    spdlog::error("{}: commit outcome unknown: {}", name, error.what());
    return {
        Unavailable(
            "database connection lost during commit; the change may or may not have been saved: "
            "retry with the same idempotency key"),
        true};
  }
  if (IsLostConnection(error)) {
    spdlog::warn("{}: connection lost: {}", name, error.what());
    ConnectionLost();
    return {Unavailable(kUnavailable), true};
  }
  if (const auto* sql = dynamic_cast<const pqxx::sql_error*>(&error); sql != nullptr) {
    const std::string& state = sql->sqlstate();
    if (state == "57014" || state == "55P03") {  // statement_timeout, lock_not_available
      spdlog::warn("{}: statement timed out [{}] {}", name, state, error.what());
      return {Unavailable("database too slow to answer in time; retry with backoff"),
              !connection_open};
    }
    if (state.rfind("53", 0) == 0) {  // insufficient resources: disk full, out of memory, ...
      spdlog::error("{}: database out of resources [{}] {}", name, state, error.what());
      return {Unavailable("database out of resources; retry with backoff"), !connection_open};
    }
    // The SQL and the server's message stay in the log; the caller gets INTERNAL.
    spdlog::error("{}: SQL error [{}] {} (query: {})", name, state, error.what(), sql->query());
  } else {
    spdlog::error("{}: {}", name, error.what());
  }
  return {absl::InternalError(absl::StrCat("database error in ", name)), !connection_open};
}

absl::Status DbPool::Read(absl::string_view name,
                          const std::function<absl::Status(pqxx::nontransaction&)>& body) {
  absl::StatusOr<Lease> lease = Acquire();
  if (!lease.ok()) return lease.status();
  try {
    pqxx::nontransaction txn(lease->connection(), std::string(name));
    const std::string settings = LocalSettings();
    if (settings.empty()) return body(txn);
    // Behind a transaction pooler: one transaction, so that the statement timeout applies and
    // the statements share a server connection (READ COMMITTED: each still sees its own
    // snapshot, as in autocommit). COMMIT of a failed transaction just ends it.
    txn.exec0(absl::StrCat("BEGIN; ", settings));
    absl::Status status;
    try {
      status = body(txn);
    } catch (...) {
      try {
        txn.exec0("ROLLBACK");
      } catch (const std::exception&) {
        lease->Discard();
      }
      throw;
    }
    txn.exec0("COMMIT");
    return status;
  } catch (const std::exception& e) {
    // A lost connection, a restart or a statement timeout is UNAVAILABLE with a retry delay,
    // never INTERNAL.
    return FailureStatus(absl::StrCat("read ", name), e, *lease);
  }
}

template <typename LeaseT>
absl::Status DbPool::RunAttempts(const std::string& txn_name, const TransactionOptions& options,
                                 const std::function<absl::StatusOr<LeaseT>()>& acquire,
                                 const std::function<absl::Status(LeaseT&, bool*)>& attempt) {
  auto count = [&](absl::string_view outcome) {
    if (metrics_ != nullptr) metrics_->db_transactions(txn_name, outcome).Increment();
  };
  const std::string label = absl::StrCat("transaction ", txn_name);
  bool rerun_after_lost_connection = false;
  for (int attempt_number = 1;; ++attempt_number) {
    absl::StatusOr<LeaseT> lease = acquire();
    if (!lease.ok()) {
      count("failed");
      return lease.status();
    }
    auto fail = [&](const std::exception& error) {
      const Failure failure = Classify(label, error, lease->is_open());
      if (failure.discard) lease->Discard();
      return failure.status;
    };
    bool committing = false;
    try {
      absl::Status status = attempt(*lease, &committing);
      count(status.ok() ? "committed" : "rolled_back");
      return status;
    } catch (const pqxx::transaction_rollback& e) {
      // Serialization failure or deadlock: the server rolled back; the whole body may re-run.
      const bool retryable = dynamic_cast<const pqxx::serialization_failure*>(&e) != nullptr ||
                             dynamic_cast<const pqxx::deadlock_detected*>(&e) != nullptr;
      if (!retryable) {
        count("failed");
        return fail(e);
      }
      if (attempt_number >= options.max_attempts) {
        count("failed");
        spdlog::warn("transaction {} gave up after {} attempts: {}", txn_name, attempt_number,
                     e.what());
        return WithRetryDelay(
            absl::AbortedError("too much contention on the same data; retry the request"),
            kRetryAfterBusy);
      }
      count("retried");
      spdlog::debug("transaction {} retrying (attempt {}): {}", txn_name, attempt_number, e.what());
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * attempt_number * attempt_number));
    } catch (const std::exception& e) {
      const bool lost = IsLostConnection(e);
      if (committing && lost) {
        // The connection broke while COMMIT was under way: report it like libpqxx's in-doubt.
        count("failed");
        return fail(pqxx::in_doubt_error(e.what()));
      }
      absl::Status status = fail(e);
      // A connection that broke before COMMIT was sent took its transaction with it: nothing
      // was saved, so the body may run again, once, on a fresh connection (the pooled ones were
      // just closed). This is what makes the first request after a PostgreSQL restart succeed.
      if (lost && !committing && !rerun_after_lost_connection) {
        rerun_after_lost_connection = true;
        count("retried");
        continue;
      }
      count("failed");
      return status;
    }
  }
}

absl::Status DbPool::Transact(absl::string_view name,
                              const std::function<absl::Status(pqxx::work&)>& body,
                              TransactionOptions options) {
  const std::string txn_name(name);
  return RunAttempts<Lease>(
      txn_name, options, [this] { return Acquire(); },
      [&](Lease& lease, bool* committing) {
        const std::string settings = LocalSettings();
        return options.serializable ? RunOnce<pqxx::serializable>(lease.connection(), txn_name,
                                                                  body, settings, committing)
                                    : RunOnce<pqxx::read_committed>(lease.connection(), txn_name,
                                                                    body, settings, committing);
      });
}

absl::Status DbPool::TransactPipelined(absl::string_view name,
                                       const std::function<absl::Status(PipelineTxn&)>& body,
                                       TransactionOptions options) {
  if (options.serializable || !pipelining()) {
    return absl::InternalError("pipelined transactions run at READ COMMITTED on PostgreSQL itself");
  }
  return RunAttempts<PipelineLease>(
      std::string(name), options, [this] { return AcquirePipeline(); },
      [&](PipelineLease& lease, bool* committing) {
        PipelineTxn txn(lease.connection());
        absl::Status status = body(txn);
        // Not OK: the connection closes with its transaction open, which PostgreSQL rolls back.
        if (!status.ok()) return status;
        *committing = true;
        txn.Commit();
        lease.Keep();
        return status;
      });
}

absl::Status DbPool::Ping() {
  return Transact("ping", [](pqxx::work& txn) {
    txn.exec1("SELECT 1");
    return absl::OkStatus();
  });
}

}  // namespace parlor
