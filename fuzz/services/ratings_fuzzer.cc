// Arbitrary ReportResultRequest messages into the ratings domain: the request mapped to a
// GameResult as the api layer does, then ValidateResult (the real validation against the real
// ladders) and, for a result it accepts, model::Rate (the rating update the store applies) with
// fuzzed prior ratings and idle time. Also the account-id and season-id validators on raw text.
// Checks: no crash; a refusal is INVALID_ARGUMENT with a reason and a message; an accepted
// result has seats 0..N-1 with canonical ids and ranks in 1..N, a 32-byte digest, and validates
// again to the same digest; Rate accepts every validated result and gives finite ratings with a
// positive deviation and one more game.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_support.h"
#include "parlor/ratings/v1/ratings.pb.h"
#include "services/ratings/domain/validation.h"
#include "services/ratings/model/ladder.h"

namespace parlor::fuzz {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

ratings::GameResult ToResult(const ratings::v1::ReportResultRequest& request) {
  ratings::GameResult result;
  result.game_id = request.game_id();
  result.game = request.game();
  result.ladder = request.ladder();
  result.ranked = request.ranked();
  for (const ratings::v1::ResultSeat& s : request.seats()) {
    result.seats.push_back({s.seat(), s.account_id(), s.team()});
  }
  for (const ratings::v1::Placement& p : request.placements()) {
    result.placements.push_back({p.account_id(), p.rank()});
  }
  if (request.has_finish_time()) {
    result.finish_time = absl::FromUnixSeconds(request.finish_time().seconds()) +
                         absl::Nanoseconds(request.finish_time().nanos());
  }
  return result;
}

bool Finite(const ratings::model::Rating& r) {
  return std::isfinite(r.value) && std::isfinite(r.deviation) && std::isfinite(r.volatility);
}

void CheckAccepted(const ratings::GameResult& result, const ratings::ValidatedResult& valid,
                   const ratings::model::LadderRegistry& ladders, FuzzedDataProvider& in) {
  PARLOR_FUZZ_CHECK(valid.ladder != nullptr, "an accepted result without a ladder");
  PARLOR_FUZZ_CHECK(valid.digest.size() == 32, "the digest is not 32 bytes");
  const int n = static_cast<int>(valid.seats.size());
  PARLOR_FUZZ_CHECK(n >= valid.ladder->min_seats && n <= valid.ladder->max_seats,
                    "the seats do not fit the ladder");
  for (int i = 0; i < n; ++i) {
    const ratings::SeatedPlayer& p = valid.seats[i];
    PARLOR_FUZZ_CHECK(p.seat == i, "seats are not 0..N-1 in order");
    PARLOR_FUZZ_CHECK(p.rank >= 1 && p.rank <= n, absl::StrCat("rank ", p.rank));
    PARLOR_FUZZ_CHECK(p.account_id == absl::AsciiStrToLower(p.account_id) &&
                          ratings::CanonicalAccountId(p.account_id, "id").ok(),
                      "an account id is not canonical");
  }
  ratings::RejectReason again = ratings::RejectReason::kNone;
  absl::StatusOr<ratings::ValidatedResult> revalidated =
      ratings::ValidateResult(result, ladders, kNow, &again);
  PARLOR_FUZZ_CHECK(revalidated.ok() && revalidated->digest == valid.digest,
                    "validation is not deterministic");

  std::vector<ratings::model::Participant> participants;
  for (const ratings::SeatedPlayer& p : valid.seats) {
    ratings::model::Rating prior = valid.ladder->Initial();
    if (in.ConsumeBool()) {
      // A prior as a stored row could hold it after many games.
      prior.value += in.ConsumeFloatingPointInRange(-3.0, 3.0) * prior.deviation * 4;
      prior.deviation *= in.ConsumeFloatingPointInRange(0.01, 1.0);
      prior.games = in.ConsumeIntegralInRange<int64_t>(0, 100000);
    }
    participants.push_back({prior, in.ConsumeFloatingPointInRange(0.0, 3650.0), p.side, p.rank});
  }
  absl::StatusOr<std::vector<ratings::model::Rating>> rated =
      ratings::model::Rate(*valid.ladder, participants);
  PARLOR_FUZZ_CHECK(rated.ok(), "Rate refuses a validated result: " + rated.status().ToString());
  PARLOR_FUZZ_CHECK(static_cast<int>(rated->size()) == n, "one new rating per seat");
  for (int i = 0; i < n; ++i) {
    const ratings::model::Rating& after = (*rated)[i];
    PARLOR_FUZZ_CHECK(Finite(after), absl::StrCat("a rating is not finite: ", after.value, " ",
                                                  after.deviation, " ", after.volatility));
    PARLOR_FUZZ_CHECK(after.deviation > 0, "a deviation is not positive");
    PARLOR_FUZZ_CHECK(after.games == participants[i].rating.games + 1, "games not incremented");
    PARLOR_FUZZ_CHECK(std::isfinite(valid.ladder->Conservative(after)), "conservative rating");
  }
}

void Run(FuzzedDataProvider& in) {
  static const ratings::model::LadderRegistry* const ladders =
      new ratings::model::LadderRegistry(ratings::model::LadderRegistry::Default());
  const int what = in.ConsumeIntegralInRange(0, 7);
  if (what == 0) {
    const std::string text = in.ConsumeRandomLengthString(80);
    absl::StatusOr<std::string> id = ratings::CanonicalAccountId(text, "account_id");
    if (id.ok()) {
      PARLOR_FUZZ_CHECK(ratings::CanonicalAccountId(*id, "account_id").value() == *id,
                        "a canonical id is not its own canonical form");
    } else {
      PARLOR_FUZZ_CHECK(id.status().code() == absl::StatusCode::kInvalidArgument,
                        "CanonicalAccountId refused with " + id.status().ToString());
    }
    (void)ratings::ValidSeasonId(text);
    return;
  }
  ratings::v1::ReportResultRequest request;
  if (!request.ParseFromString(in.ConsumeRandomLengthString(1024))) return;
  const ratings::GameResult result = ToResult(request);
  ratings::RejectReason reason = ratings::RejectReason::kNone;
  absl::StatusOr<ratings::ValidatedResult> valid =
      ratings::ValidateResult(result, *ladders, kNow, &reason);
  if (!valid.ok()) {
    PARLOR_FUZZ_CHECK(valid.status().code() == absl::StatusCode::kInvalidArgument,
                      "ValidateResult refused with " + valid.status().ToString());
    PARLOR_FUZZ_CHECK(!valid.status().message().empty(), "a refusal without a message");
    PARLOR_FUZZ_CHECK(reason != ratings::RejectReason::kNone, "a refusal without a reason");
    (void)ratings::RejectReasonName(reason);
    return;
  }
  CheckAccepted(result, *valid, *ladders, in);
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  parlor::fuzz::Run(in);
  return 0;
}
