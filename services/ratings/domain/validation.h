#ifndef PARLOR_SERVICES_RATINGS_DOMAIN_VALIDATION_H_
#define PARLOR_SERVICES_RATINGS_DOMAIN_VALIDATION_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/ratings/domain/types.h"
#include "services/ratings/model/ladder.h"

namespace parlor::ratings {

// How far in the future a finish_time may be (clock skew between replicas).
inline constexpr absl::Duration kMaxFinishTimeSkew = absl::Minutes(5);
// The most seats a reported game may have, and the longest ladder name a request may carry.
inline constexpr int kMaxSeats = 64;
inline constexpr size_t kMaxLadderNameLength = 64;

// Checks a reported result against itself and the ladders: INVALID_ARGUMENT naming the problem,
// with `*reason` set, for anything wrong; otherwise the validated result with its ladder, every
// seat's side and rank, and the digest that makes replays recognisable.
absl::StatusOr<ValidatedResult> ValidateResult(const GameResult& result,
                                               const model::LadderRegistry& ladders, absl::Time now,
                                               RejectReason* reason);

// Checks a void request: game_id as a reported one (1-128 printable ASCII characters without
// spaces), a reason of 1-1000 characters that is not only blanks, and an operator_id of 1-128
// printable ASCII characters without spaces. INVALID_ARGUMENT naming the field otherwise.
absl::Status ValidateVoid(const VoidRequest& request);

// The canonical lower-case form of a UUID account id, or INVALID_ARGUMENT naming `field`.
absl::StatusOr<std::string> CanonicalAccountId(absl::string_view id, absl::string_view field);

// Season ids: 1-32 of [a-z0-9-], starting with a letter or digit.
bool ValidSeasonId(absl::string_view id);

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_DOMAIN_VALIDATION_H_
