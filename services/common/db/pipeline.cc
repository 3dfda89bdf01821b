#include "services/common/db/pipeline.h"

#include <libpq-fe.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace parlor {
namespace {

std::string ConnectionError(PGconn* connection) {
  return connection == nullptr ? "out of memory" : PQerrorMessage(connection);
}

}  // namespace

bool PgField::is_null() const { return PQgetisnull(result_, row_, column_) != 0; }

const char* PgField::c_str() const { return PQgetvalue(result_, row_, column_); }

std::string PgField::bytes() const {
  if (is_null()) throw pqxx::conversion_error("a NULL bytea field read as bytes");
  size_t length = 0;
  unsigned char* raw = PQunescapeBytea(reinterpret_cast<const unsigned char*>(c_str()), &length);
  if (raw == nullptr) throw pqxx::conversion_error("a bytea field that does not decode");
  std::string decoded(reinterpret_cast<const char*>(raw), length);
  PQfreemem(raw);
  return decoded;
}

PgRows::PgRows(PGresult* result) : result_(result) {}

int PgRows::size() const { return PQntuples(result_.get()); }

void PgRows::Clear::operator()(PGresult* result) const { PQclear(result); }

PipelineConnection::PipelineConnection(const std::string& url, const std::string& settings)
    : connection_(PQconnectdb(url.c_str())) {
  if (connection_ == nullptr || PQstatus(connection_) != CONNECTION_OK) {
    const std::string error = ConnectionError(connection_);
    PQfinish(connection_);
    connection_ = nullptr;
    throw pqxx::broken_connection(error);
  }
  if (!settings.empty()) {
    PGresult* result = PQexec(connection_, settings.c_str());
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    const std::string error = ok ? "" : PQresultErrorMessage(result);
    PQclear(result);
    if (!ok) {
      PQfinish(connection_);
      connection_ = nullptr;
      throw pqxx::broken_connection(absl::StrCat("cannot set up the connection: ", error));
    }
  }
  if (PQenterPipelineMode(connection_) != 1) {
    const std::string error = ConnectionError(connection_);
    PQfinish(connection_);
    connection_ = nullptr;
    throw pqxx::broken_connection(absl::StrCat("cannot enter pipeline mode: ", error));
  }
}

PipelineConnection::~PipelineConnection() { PQfinish(connection_); }

bool PipelineConnection::is_open() const {
  return connection_ != nullptr && PQstatus(connection_) == CONNECTION_OK;
}

void PipelineTxn::Queue(const std::string& name, const std::string& sql,
                        std::vector<PgParam> params) {
  PGconn* c = connection_.connection_;
  if (!connection_.prepared_.contains(name)) {
    if (PQsendPrepare(c, name.c_str(), sql.c_str(), 0, nullptr) != 1) {
      throw pqxx::broken_connection(ConnectionError(c));
    }
    connection_.prepared_.insert(name);
    queued_.push_back("");
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const PgParam& p : params) {
    values.push_back(p.value ? p.value->data() : nullptr);
    lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
    formats.push_back(p.binary ? 1 : 0);
  }
  if (PQsendQueryPrepared(c, name.c_str(), static_cast<int>(params.size()), values.data(),
                          lengths.data(), formats.data(), 0) != 1) {
    throw pqxx::broken_connection(ConnectionError(c));
  }
  queued_.push_back(name);
}

std::vector<PgRows> PipelineTxn::Exchange() { return Send(false); }

void PipelineTxn::Commit() {
  const std::vector<PgRows> rows = Send(true);
  if (committed_) committed_(rows);
}

std::vector<PgRows> PipelineTxn::Send(bool end_transaction) {
  PGconn* c = connection_.connection_;
  // A Sync ends the implicit transaction; a flush request only asks for the results so far.
  const int sent = end_transaction ? PQpipelineSync(c) : PQsendFlushRequest(c);
  if (sent != 1 || PQflush(c) != 0) throw pqxx::broken_connection(ConnectionError(c));
  std::vector<std::string> statements;
  statements.swap(queued_);
  std::vector<PgRows> rows;
  for (const std::string& statement : statements) {
    PGresult* result = PQgetResult(c);
    if (result == nullptr) throw pqxx::broken_connection(ConnectionError(c));
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      ThrowFor(result, statement);
    }
    // Each statement's results end with a null result.
    PGresult* end = PQgetResult(c);
    if (end != nullptr) {
      PQclear(end);
      PQclear(result);
      throw pqxx::sql_error("a pipelined statement returned more than one result", statement);
    }
    if (!statement.empty())
      rows.emplace_back(result);
    else
      PQclear(result);
  }
  if (end_transaction) {
    PGresult* result = PQgetResult(c);
    if (result == nullptr) throw pqxx::broken_connection(ConnectionError(c));
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_PIPELINE_SYNC) ThrowFor(result, "COMMIT");
    PQclear(result);
  }
  return rows;
}

void PipelineTxn::ThrowFor(const PGresult* result, const std::string& statement) {
  PGconn* c = connection_.connection_;
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const std::string sqlstate = state == nullptr ? "" : state;
  const std::string message = PQresultStatus(result) == PGRES_PIPELINE_ABORTED
                                  ? "statement not run: the pipeline aborted"
                                  : PQresultErrorMessage(result);
  PQclear(const_cast<PGresult*>(result));
  // The connection is not used again (the server skips what else was sent up to a Sync, and
  // rolls the transaction back when the connection closes).
  if (PQstatus(c) != CONNECTION_OK) throw pqxx::broken_connection(message);
  if (sqlstate == "40001") throw pqxx::serialization_failure(message);
  if (sqlstate == "40P01") throw pqxx::deadlock_detected(message);
  throw pqxx::sql_error(message, statement, sqlstate.empty() ? nullptr : sqlstate.c_str());
}

}  // namespace parlor
