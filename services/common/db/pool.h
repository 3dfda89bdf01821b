#ifndef PARLOR_SERVICES_COMMON_DB_POOL_H_
#define PARLOR_SERVICES_COMMON_DB_POOL_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "pqxx/pqxx"
#include "services/common/db/pipeline.h"

namespace parlor {

class Metrics;

struct DbOptions {
  // libpq connection string or URI, e.g. "host=/run/pg port=5432 dbname=parlor user=parlor".
  std::string url;
  int max_connections = 8;
  // How long a request waits for a free connection before RESOURCE_EXHAUSTED.
  absl::Duration acquire_timeout = absl::Seconds(5);
  // Server-side cap on one statement, so a stuck query cannot hold a worker forever.
  absl::Duration statement_timeout = absl::Seconds(10);
  // Shows up in pg_stat_activity.
  std::string application_name = "parlor";
  // Called (from the failing request's thread, no lock held) when a connection is found broken,
  // e.g. because PostgreSQL restarted; readiness uses it to re-check at once. May be empty.
  std::function<void()> on_connection_lost = nullptr;
  // False when `url` is a PgBouncer in transaction mode, which hands each transaction to any
  // server connection: then no named prepared statements (Run() sends unnamed ones), and the
  // statement timeout is set per transaction (SET LOCAL) instead of once per connection.
  bool prepared_statements = true;
  // For work that needs one server session longer than a transaction (LISTEN, session advisory
  // locks): PostgreSQL itself, not a transaction pooler. Empty: `url`.
  std::string direct_url = "";
  // Whether stores may use TransactPipelined() (libpq's pipeline mode); it also needs
  // prepared_statements (PostgreSQL itself).
  bool pipelining = true;
  // The pipelined connections, beyond max_connections: a budget of their own, so that neither
  // kind closes the other's connections to make room (each pipelined connection holds its
  // prepared statements; reconnecting costs a PostgreSQL backend's start).
  int max_pipelined_connections = 4;
};

struct TransactionOptions {
  // SERIALIZABLE instead of READ COMMITTED.
  bool serializable = false;
  // Total attempts when PostgreSQL reports a serialization failure or a deadlock.
  int max_attempts = 4;
};

// A bounded pool of libpqxx connections plus the transaction helper every store uses.
//
// Store code never sees a libpqxx exception escape: Transact() catches them and turns them into
// absl::Status, so that a database fault is never reported as a wrong answer or INTERNAL:
//   - server unreachable, restarting or shutting down, connection lost: UNAVAILABLE;
//   - a statement cancelled by statement_timeout, or a lock not obtained: UNAVAILABLE;
//   - every connection busy for longer than acquire_timeout: RESOURCE_EXHAUSTED;
//   - serialization failure or deadlock after max_attempts: ABORTED;
//   - anything else (a bug: bad SQL, a violated constraint): INTERNAL, the detail logged only.
// The transient ones carry a retry delay (grpc_status.h WithRetryDelay → google.rpc.RetryInfo).
// A connection found broken also closes the idle ones (after a PostgreSQL restart they are all
// dead), and a transaction whose connection broke before COMMIT was sent re-runs once on a fresh
// connection, so a service recovers on its own at the first request after the server is back.
// Calls block, so they belong on a service's worker pool, never on a gRPC thread.
class DbPool {
 public:
  // Does not connect yet; connections open on demand. `metrics` may be null.
  DbPool(DbOptions options, Metrics* metrics);
  ~DbPool();
  DbPool(const DbPool&) = delete;
  DbPool& operator=(const DbPool&) = delete;

  // A checked-out connection; returns to the pool when destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    pqxx::connection& connection() { return *connection_; }
    bool is_open() const { return connection_ != nullptr && connection_->is_open(); }
    // The connection is unusable (e.g. the server went away): close it instead of pooling it.
    void Discard() { discard_ = true; }

   private:
    friend class DbPool;
    Lease(DbPool* pool, std::unique_ptr<pqxx::connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    DbPool* pool_;
    std::unique_ptr<pqxx::connection> connection_;
    bool discard_ = false;
  };

  absl::StatusOr<Lease> Acquire();

  // A connection of its own to options().direct_url (session_url()), closed when the lease ends,
  // for work that holds session state across transactions. Without a direct_url: Acquire().
  absl::StatusOr<Lease> AcquireSession();

  // The connection string for session-level work (LISTEN): direct_url, else url.
  const std::string& session_url() const {
    return options_.direct_url.empty() ? options_.url : options_.direct_url;
  }

  // Runs the fixed statement `sql` with `args`: as the connection's prepared statement `name`
  // (parsed and planned once per connection) when options().prepared_statements, otherwise as an
  // unnamed statement (PQexecParams), the only kind a transaction-pooling PgBouncer allows.
  template <typename... Args>
  pqxx::result Run(pqxx::transaction_base& txn, const std::string& name, const std::string& sql,
                   Args&&... args) const {
    if (!options_.prepared_statements) return txn.exec_params(sql, std::forward<Args>(args)...);
    txn.conn().prepare(name, sql);
    return txn.exec_prepared(name, std::forward<Args>(args)...);
  }

  // For the rest of `txn`, for statements that reach their rows by key (key lookups, batches of
  // keys as arrays): the statements of Run() use their one generic plan, made once per connection
  // for any arguments (plan_cache_mode = force_generic_plan), instead of PostgreSQL's default of
  // re-planning a call whenever the plan for its own arguments looks cheaper, which for a batch of
  // a few rows in arrays it often does; and that plan reaches the rows through their indexes
  // (enable_seqscan = off). A connection keeps its generic plan until the table's statistics
  // change, so one made while a table was nearly empty (a new deployment, a test database)
  // would otherwise scan the whole table, dead row versions included, on every call for minutes
  // after the table has grown. A statement with optional filters wants its custom plans: not
  // here. One round trip; nothing without prepared statements (Run() then sends unnamed
  // statements, planned per call for their own arguments).
  void PlanKeyLookupsOnce(pqxx::transaction_base& txn) const {
    if (options_.prepared_statements) {
      txn.exec0("SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off");
    }
  }

  // Runs `body` in a transaction named `name` (the name shows in logs and metrics), commits if it
  // returns OK and rolls back otherwise. Serialization failures and deadlocks re-run the whole
  // body, up to options.max_attempts times, so the body must have no effects outside the
  // transaction. `body` may catch specific libpqxx errors it expects (e.g. unique_violation) and
  // return a domain status; everything else is handled here.
  absl::Status Transact(absl::string_view name,
                        const std::function<absl::Status(pqxx::work&)>& body,
                        TransactionOptions options = {});

  // Whether TransactPipelined() can run: it is on (options().pipelining) and has named prepared
  // statements on PostgreSQL itself, so not behind a transaction pooler.
  bool pipelining() const { return options_.pipelining && options_.prepared_statements; }

  // Runs `body` in one transaction on a connection in libpq's pipeline mode (PipelineTxn): the
  // body queues its statements and exchanges them as it needs their rows; if it returns OK, what
  // it queued last goes out with the end of the transaction, in one round trip, and commits
  // unless a statement fails (the body never sees those statements' rows: a check belongs in
  // their SQL). Otherwise the transaction rolls back. Failures are classified and retried as in
  // Transact(). These connections hold their settings for the whole session, planning as
  // PlanKeyLookupsOnce() does: they are for fixed statements over keys. At most
  // max_pipelined_connections. READ COMMITTED only; requires pipelining().
  absl::Status TransactPipelined(absl::string_view name,
                                 const std::function<absl::Status(PipelineTxn&)>& body,
                                 TransactionOptions options = {});

  // Runs read-only `body` outside any transaction (autocommit: each statement sees its own
  // snapshot, one round trip each, no BEGIN/COMMIT), with failures classified as in Transact().
  absl::Status Read(absl::string_view name,
                    const std::function<absl::Status(pqxx::nontransaction&)>& body);

  // A cheap round trip ("SELECT 1"), for readiness.
  absl::Status Ping();

  // The status for a libpqxx (or other) exception thrown by work on `lease` outside Transact()
  // (e.g. a store's read-only nontransaction), classified as Transact() does; discards the
  // connection when it is broken. `name` labels the log line.
  absl::Status FailureStatus(absl::string_view name, const std::exception& error, Lease& lease);

  const DbOptions& options() const { return options_; }

 private:
  class PipelineLease;
  // How a failed attempt ends: the caller's status, and whether its connection must be closed.
  struct Failure {
    absl::Status status;
    bool discard = false;
  };
  Failure Classify(absl::string_view name, const std::exception& error, bool connection_open);
  // Runs `attempt` on a connection from `acquire` until it returns, retrying as Transact()
  // documents.
  template <typename LeaseT>
  absl::Status RunAttempts(const std::string& txn_name, const TransactionOptions& options,
                           const std::function<absl::StatusOr<LeaseT>()>& acquire,
                           const std::function<absl::Status(LeaseT&, bool*)>& attempt);
  // A connection of the kind `idle` holds: an idle one, else a new one (`connect`) while fewer
  // than `max` of the kind are `open`, else the first one `released` (until acquire_timeout).
  template <typename Connection, typename ConnectFn>
  absl::StatusOr<std::unique_ptr<Connection>> Checkout(
      std::vector<std::unique_ptr<Connection>>& idle, int& open, int max,
      std::condition_variable& released, const ConnectFn& connect);
  // Puts a connection back among `idle` (or closes it: `discard`, or found closed) and wakes one
  // waiter of its kind.
  template <typename Connection>
  void CheckIn(std::unique_ptr<Connection> connection, bool discard,
               std::vector<std::unique_ptr<Connection>>& idle, int& open,
               std::condition_variable& released);
  absl::StatusOr<PipelineLease> AcquirePipeline();
  void ReleasePipeline(std::unique_ptr<PipelineConnection> connection, bool discard);
  void Release(std::unique_ptr<pqxx::connection> connection, bool discard);
  // Closes every idle connection (they are presumably as dead as the one just found broken).
  void ConnectionLost();
  absl::StatusOr<std::unique_ptr<pqxx::connection>> Connect(const std::string& url);
  void UpdateGauges();  // requires mu_
  // "SET LOCAL ..." for the start of each transaction behind a pooler, else empty.
  std::string LocalSettings() const;

  const DbOptions options_;
  Metrics* const metrics_;
  std::mutex mu_;
  std::condition_variable released_;           // a plain connection was released
  std::condition_variable pipeline_released_;  // a pipelined one was
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
  std::vector<std::unique_ptr<PipelineConnection>> idle_pipelines_;
  int open_ = 0;            // idle + in use + being opened
  int open_pipelines_ = 0;  // the same, of the pipelined connections
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DB_POOL_H_
