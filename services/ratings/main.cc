// parlor-ratings: Glicko-2 and Weng-Lin ladders, leaderboards and seasons.
//
//   parlor-ratings [serve] --db_url=... --access_token_public_key=...
//   --service_token_public_key=... parlor-ratings migrate --db_url=...   apply the migrations of
//   schema `ratings` and exit parlor-ratings add-season --db_url=... --season_id=s2
//   --display_name="Season 2"
//                  --start_time=2027-01-01T00:00:00Z
//                                         schedule the next season (it must start after every
//                                         existing one); prints the season list
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "services/common/db/pool.h"
#include "services/ratings/model/game_ladders.h"
#include "services/ratings/ratings_server.h"
#include "services/ratings/store/pg_ratings_store.h"

namespace {

int AddSeason(int argc, char** argv) {
  std::string db_url;
  std::string season_id;
  std::string display_name;
  std::string start;
  parlor::Flags flags("parlor-ratings add-season");
  flags.Secret("db_url", &db_url, "libpq connection string of the database", true);
  flags.String("season_id", &season_id, "id of the new season, e.g. s2", true);
  flags.String("display_name", &display_name, "name shown to players, e.g. \"Season 2\"", true);
  flags.String("start_time", &start, "RFC 3339 start, e.g. 2027-01-01T00:00:00Z", true);
  std::vector<std::string> positional;
  if (absl::Status s = flags.Parse(argc, argv, &positional); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return s.code() == absl::StatusCode::kNotFound ? 0 : 2;
  }
  absl::Time start_time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, start, &start_time, &error)) {
    std::fprintf(stderr, "--start_time: %s\n", error.c_str());
    return 2;
  }
  parlor::DbOptions options;
  options.url = db_url;
  options.max_connections = 1;
  options.application_name = "parlor-ratings add-season";
  parlor::DbPool db(options, nullptr);
  parlor::ratings::PgRatingsStore store(&db);
  const parlor::ratings::model::LadderRegistry ladders =
      parlor::ratings::model::LaddersForGames(parlor::engine::AllGames());
  parlor::ratings::RatingsService service(&ladders, &store, nullptr, [] { return absl::Now(); },
                                          {});
  if (absl::Status s = service.AddSeason(season_id, display_name, start_time); !s.ok()) {
    std::fprintf(stderr, "add-season: %s\n", s.ToString().c_str());
    return 1;
  }
  absl::StatusOr<std::vector<parlor::ratings::Season>> seasons = service.ListSeasons();
  if (!seasons.ok()) return 1;
  for (const parlor::ratings::Season& s : *seasons) {
    std::printf("%-12s %-24s %s%s\n", s.season_id.c_str(), s.display_name.c_str(),
                absl::FormatTime(absl::RFC3339_sec, s.start_time, absl::UTCTimeZone()).c_str(),
                s.current ? "  (current)" : "");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "add-season") == 0) {
    return AddSeason(argc - 1, argv + 1);
  }
  return parlor::ratings::RunRatingsServer(argc, argv, {});
}
