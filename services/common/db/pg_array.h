#ifndef PARLOR_SERVICES_COMMON_DB_PG_ARRAY_H_
#define PARLOR_SERVICES_COMMON_DB_PG_ARRAY_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor {

// PostgreSQL array literals, for lists bound as one text parameter and cast in SQL
// ($1::text[], $1::uuid[], $1::boolean[], $1::bigint[], ...).

// Every element double-quoted, with `"` and `\` escaped: any text is safe.
std::string PgTextArray(const std::vector<std::string>& values);

template <typename Int>
std::string PgIntArray(const std::vector<Int>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DB_PG_ARRAY_H_
