#ifndef PARLOR_SERVICES_SESSIONS_API_MAPPING_H_
#define PARLOR_SERVICES_SESSIONS_API_MAPPING_H_

#include <string>

#include "absl/time/time.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/records.h"
#include "services/sessions/domain/requests.h"
#include "services/sessions/domain/summary.h"

// The sessions API's messages to and from the domain's types (domain/sessions.h speaks no
// service proto): the transport maps a request to the domain call's arguments and its result to
// the response, and nothing else. A request maps field by field without any check (the domain
// checks, naming the API's fields); enums travel as their numbers.
namespace parlor::sessions {

// Exact: seconds and nanos (a range check is the domain's).
absl::Duration FromProto(const google::protobuf::Duration& d);
// To the microsecond, as the store keeps times.
google::protobuf::Timestamp ToProto(absl::Time t);
absl::Time FromProto(const google::protobuf::Timestamp& t);

// Requests.
TimeControlSpec FromProto(const v1::TimeControl& tc);
CreateGameRequest FromProto(const v1::CreateGameRequest& request);
CreateBotGameRequest FromProto(const v1::CreateBotGameRequest& request);
SubmitRequest FromProto(const v1::SubmitActionRequest& request);
MyGamesQuery FromProto(const v1::ListMyGamesRequest& request);
PublicGamesQuery FromProto(const v1::ListPublicGamesRequest& request);
HistoryQuery FromProto(const v1::GetHistoryRequest& request);
ChatQuery FromProto(const v1::ListChatMessagesRequest& request);

// Answers.
void ToProto(const PlayerRecord& record, v1::PlayerRecord* out);
v1::TimeControl ToProto(const TimeControlRow& row);
v1::EventKind ToProto(LogRow::Kind kind);
v1::EventCause ToProto(LogRow::Cause cause);
void ToProto(const HistoryEvent& event, v1::HistoryEvent* out);
void ToProto(const GameSummary& game, v1::Game* out);
v1::Game ToProto(const GameSummary& game);
void ToProto(const FeedItem& item, v1::WatchGameResponse* out);
void ToProto(const ChatMessage& message, v1::ChatMessage* out);
void ToProto(const Rematch& rematch, v1::Rematch* out);
void ToProto(const GameWithView& game, v1::GetGameResponse* out);
void ToProto(const GameWithView& game, v1::SubmitActionResponse* out);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_MAPPING_H_
