// What PostgreSQL spends reading an array of composite values bound as one parameter, in its text
// form (array_in, record_in and each field's text input) against its binary form
// (PgBinaryRecordArray: array_recv, record_recv). The rows have the shape of a move's seat rows
// (sessions.seat_write: a UUID, numbers, booleans, timestamps as microseconds, NULLs, a status),
// 14 to a batch as in a batch of seven two-player moves. Each iteration is one round trip of a
// prepared statement that only binds the array (Bind reads every parameter) and returns its
// length; BM_BindNothing is the round trip alone. Needs a PostgreSQL server:
//
//   PARLOR_BENCH_DB_URL="host=... dbname=postgres" parlor_pg_binary_bench
#include <libpq-fe.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "services/common/db/pg_binary.h"

namespace parlor {
namespace {

constexpr int kRowsPerBatch = 14;

// The text form of the same rows, as the write sent them before (quoted twice: for the record,
// then for the array).
class TextRows {
 public:
  TextRows& Row() {
    if (rows_++ > 0) out_ += ',';
    out_ += "\"(";
    fields_ = 0;
    return *this;
  }
  TextRows& Field(absl::string_view value) {
    if (fields_++ > 0) out_ += ',';
    out_.append(value.data(), value.size());
    return *this;
  }
  TextRows& Quoted(absl::string_view value) {
    if (fields_++ > 0) out_ += ',';
    absl::StrAppend(&out_, "\\\"", value, "\\\"");
    return *this;
  }
  void EndRow() { out_ += ")\""; }
  std::string Take() { return out_ + "}"; }

 private:
  std::string out_ = "{";
  int rows_ = 0;
  int fields_ = 0;
};

struct Connection {
  PGconn* conn = nullptr;
  uint32_t row_type = 0;
  std::string error;

  Connection() {
    const char* url = std::getenv("PARLOR_BENCH_DB_URL");
    if (url == nullptr) {
      error = "set PARLOR_BENCH_DB_URL to a PostgreSQL connection string";
      return;
    }
    conn = PQconnectdb(url);
    if (PQstatus(conn) != CONNECTION_OK) {
      error = PQerrorMessage(conn);
      return;
    }
    PGresult* r = PQexec(conn,
                         "CREATE TYPE pg_temp.seat_row AS (game_id UUID, seat INTEGER, "
                         "forfeited BOOLEAN, my_turn BOOLEAN, turn_started_us BIGINT, "
                         "deadline_us BIGINT, reminders_sent SMALLINT, time_bank_ms BIGINT, "
                         "vacation_used_ms BIGINT, status TEXT, at_us BIGINT, "
                         "vacation_until_us BIGINT, paused_until_us BIGINT, "
                         "timeouts_in_a_row SMALLINT)");
    PQclear(r);
    r = PQexec(conn, "SELECT 'pg_temp.seat_row'::regtype::oid");
    row_type = static_cast<uint32_t>(std::strtoul(PQgetvalue(r, 0, 0), nullptr, 10));
    PQclear(r);
    PQclear(PQprepare(conn, "bind_rows", "SELECT cardinality($1::pg_temp.seat_row[])", 1, nullptr));
    PQclear(PQprepare(conn, "bind_nothing", "SELECT cardinality($1::int[])", 1, nullptr));
  }
  ~Connection() { PQfinish(conn); }
};

Connection& Db() {
  static Connection* const connection = new Connection();
  return *connection;
}

std::string GameId(int i) { return absl::StrCat("0f8fad5b-d9cb-469f-a165-7086772895", 10 + i); }

constexpr int64_t kNow = 1796000000000000;

std::string TextBatch() {
  TextRows rows;
  for (int i = 0; i < kRowsPerBatch; ++i) {
    rows.Row().Field(GameId(i / 2)).Field(absl::StrCat(i % 2)).Field("f").Field(i % 2 ? "t" : "f");
    rows.Field(absl::StrCat(kNow)).Field(absl::StrCat(kNow + 86400000000)).Field("0").Field("");
    rows.Field("0").Quoted("active").Field(absl::StrCat(kNow)).Field("").Field("").Field("0");
    rows.EndRow();
  }
  return rows.Take();
}

std::string BinaryBatch(uint32_t row_type) {
  PgBinaryRecordArray rows(row_type);
  for (int i = 0; i < kRowsPerBatch; ++i) {
    rows.Row().Uuid(GameId(i / 2)).Int4(i % 2).Bool(false).Bool(i % 2 == 1);
    rows.Int8(kNow).Int8(kNow + 86400000000).Int2(0).Null(pg_oid::kInt8);
    rows.Int8(0).Text("active").Int8(kNow).Null(pg_oid::kInt8).Null(pg_oid::kInt8).Int2(0);
    rows.EndRow();
  }
  return *rows.Take();
}

void Bind(benchmark::State& state, const char* statement, const std::string& value, int format) {
  Connection& db = Db();
  if (!db.error.empty()) {
    state.SkipWithError(db.error.c_str());
    return;
  }
  const char* values[] = {value.data()};
  const int lengths[] = {static_cast<int>(value.size())};
  const int formats[] = {format};
  while (state.KeepRunning()) {
    PGresult* r = PQexecPrepared(db.conn, statement, 1, values, lengths, formats, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      state.SkipWithError(PQresultErrorMessage(r));
      PQclear(r);
      return;
    }
    PQclear(r);
  }
  state.counters["param_bytes"] = static_cast<double>(value.size());
}

void BM_BindNothing(benchmark::State& state) { Bind(state, "bind_nothing", "{}", 0); }
void BM_BindSeatRowsAsText(benchmark::State& state) { Bind(state, "bind_rows", TextBatch(), 0); }
void BM_BindSeatRowsAsBinary(benchmark::State& state) {
  Bind(state, "bind_rows", BinaryBatch(Db().row_type), 1);
}

BENCHMARK(BM_BindNothing)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BindSeatRowsAsText)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BindSeatRowsAsBinary)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace parlor

BENCHMARK_MAIN();
