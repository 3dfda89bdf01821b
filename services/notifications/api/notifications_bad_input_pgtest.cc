// Bad input, notifications: every RPC of NotificationsService and NotificationsInternalService
// gets bad input of every kind through a real gRPC client against a real server on a real
// PostgreSQL, and must answer the precise code with an actionable message while changing no
// table of the schema.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/notifications/testing/notifications_fixture.h"

namespace parlor::notifications {
namespace {

using grpc::StatusCode;
using ::parlor::testing::BadInputCase;
using ::parlor::testing::Bearer;
using testing::NewUuid;

class NotificationsBadInputPgTest : public testing::NotificationsPgTest {
 protected:
  std::string Checksum() {
    absl::StatusOr<std::string> checksum =
        parlor::testing::SchemaChecksum(db_url(), "notifications");
    EXPECT_TRUE(checksum.ok()) << checksum.status();
    return checksum.value_or("");
  }
};

TEST_F(NotificationsBadInputPgTest, EveryRpcRefusesBadInputPreciselyAndChangesNothing) {
  // Existing state the bad requests must not disturb.
  const std::string ada = NewUuid();
  const std::string bob = NewUuid();
  const std::string ada_token = testing::ApnsToken();
  Register(ada, v1::PLATFORM_APNS, ada_token);
  Register(bob, v1::PLATFORM_FCM, testing::FcmToken());
  const std::string game = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 1)}).ok());

  const std::string player = Player(ada);
  const std::string expired = keys_.ExpiredPlayerToken(ada);
  const std::string forged = keys_.ForgedPlayerToken(ada);
  const std::string service = keys_.ServiceToken("sessions");
  const std::string huge(100 * 1024, 'a');

  auto register_device = [this](std::string bearer, v1::Platform platform, std::string token,
                                std::string locale, std::string zone, std::string app) {
    return [=, this] {
      v1::RegisterDeviceRequest request;
      request.set_platform(platform);
      request.set_token(token);
      request.set_locale(locale);
      request.set_time_zone(zone);
      request.set_app_id(app);
      v1::RegisterDeviceResponse response;
      return api_->RegisterDevice(Bearer(bearer).get(), request, &response);
    };
  };
  const std::string apns = testing::ApnsToken();
  auto reg = [&](v1::Platform platform, std::string token, std::string locale, std::string zone,
                 std::string app) {
    return register_device(player, platform, token, locale, zone, app);
  };
  auto unregister = [this, player](std::string device_id, std::string token) {
    return [=, this] {
      v1::UnregisterDeviceRequest request;
      request.set_device_id(device_id);
      request.set_token(token);
      v1::UnregisterDeviceResponse response;
      return api_->UnregisterDevice(Bearer(player).get(), request, &response);
    };
  };
  auto list_devices = [this](std::string bearer) {
    return [=, this] {
      v1::ListMyDevicesResponse response;
      return api_->ListMyDevices(Bearer(bearer).get(), {}, &response);
    };
  };
  auto get_preferences = [this](std::string bearer) {
    return [=, this] {
      v1::GetPreferencesResponse response;
      return api_->GetPreferences(Bearer(bearer).get(), {}, &response);
    };
  };
  auto update = [this, player](std::function<void(v1::Preferences*)> edit) {
    return [=, this] {
      v1::UpdatePreferencesRequest request;
      edit(request.mutable_preferences());
      v1::UpdatePreferencesResponse response;
      return api_->UpdatePreferences(Bearer(player).get(), request, &response);
    };
  };
  auto list = [this, player](int page_size, std::string page_token) {
    return [=, this] {
      v1::ListNotificationsRequest request;
      request.set_page_size(page_size);
      request.set_page_token(page_token);
      v1::ListNotificationsResponse response;
      return api_->ListNotifications(Bearer(player).get(), request, &response);
    };
  };
  auto mark = [this, player](std::vector<int64_t> ids, int64_t up_to) {
    return [=, this] {
      v1::MarkReadRequest request;
      for (int64_t id : ids) request.add_notification_ids(id);
      request.set_up_to_notification_id(up_to);
      v1::MarkReadResponse response;
      return api_->MarkRead(Bearer(player).get(), request, &response);
    };
  };
  // Opens WatchNotifications and returns how the stream ended (the refusal, or CANCELLED after
  // the first message when it was accepted).
  auto watch = [this](std::string bearer, int64_t after) {
    return [=, this] {
      v1::WatchNotificationsRequest request;
      request.set_after_notification_id(after);
      auto context = Bearer(bearer);
      auto reader = api_->WatchNotifications(context.get(), request);
      v1::WatchNotificationsResponse first;
      if (reader->Read(&first)) context->TryCancel();
      while (reader->Read(&first)) {
      }
      return reader->Finish();
    };
  };
  // A valid event (for `ada`, in a new game) edited by `edit`, sent with `bearer`; `first`
  // valid events go before it in the same request (and must not be stored either).
  auto accept = [this, ada](std::string bearer, std::function<void(v1::Event*)> edit,
                            int first = 0) {
    return [=, this] {
      v1::AcceptEventsRequest request;
      for (int i = 0; i < first; ++i) {
        *request.add_events() = GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), 9);
      }
      v1::Event* event = request.add_events();
      *event = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 2);
      edit(event);
      v1::AcceptEventsResponse response;
      return internal_->AcceptEvents(Bearer(bearer).get(), request, &response);
    };
  };
  auto events = [this, ada, service](int count) {
    return [=, this] {
      v1::AcceptEventsRequest request;
      for (int i = 0; i < count; ++i) {
        *request.add_events() = GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), i);
      }
      v1::AcceptEventsResponse response;
      return internal_->AcceptEvents(Bearer(service).get(), request, &response);
    };
  };
  auto raw = [this](std::string method, std::string bytes, std::string bearer) {
    return [=, this] {
      return parlor::testing::RawUnaryCall(server_->channel(), "/parlor.notifications.v1." + method,
                                           bytes, bearer);
    };
  };
  const v1::Platform kApns = v1::PLATFORM_APNS;
  const v1::Platform kFcm = v1::PLATFORM_FCM;

  const std::vector<BadInputCase> cases = {
      // RegisterDevice.
      {"RegisterDevice: no credential", register_device("", kApns, apns, "", "", "com.parlor.app"),
       StatusCode::UNAUTHENTICATED, "missing credentials"},
      {"RegisterDevice: expired token",
       register_device(expired, kApns, apns, "", "", "com.parlor.app"), StatusCode::UNAUTHENTICATED,
       "expired at"},
      {"RegisterDevice: forged token",
       register_device(forged, kApns, apns, "", "", "com.parlor.app"), StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"RegisterDevice: service credential instead of a player token",
       register_device(service, kApns, apns, "", "", "com.parlor.app"), StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"RegisterDevice: no platform", reg(v1::PLATFORM_UNSPECIFIED, apns, "", "", "a.b"),
       StatusCode::INVALID_ARGUMENT, "platform is required: PLATFORM_APNS or PLATFORM_FCM"},
      {"RegisterDevice: unknown platform number",
       reg(static_cast<v1::Platform>(7), apns, "", "", "a.b"), StatusCode::INVALID_ARGUMENT,
       "platform is required"},
      {"RegisterDevice: no token", reg(kApns, "", "", "", "a.b"), StatusCode::INVALID_ARGUMENT,
       "token is required"},
      {"RegisterDevice: APNs token that is not hex",
       reg(kApns, std::string(64, 'z'), "", "", "a.b"), StatusCode::INVALID_ARGUMENT,
       "must be the device token as 64-200 hex digits; it has 64"},
      {"RegisterDevice: short APNs token", reg(kApns, "abcdef", "", "", "a.b"),
       StatusCode::INVALID_ARGUMENT, "64-200 hex digits; it has 6 characters"},
      {"RegisterDevice: huge token", reg(kFcm, huge, "", "", "a.b"), StatusCode::INVALID_ARGUMENT,
       "20-4096 characters of [A-Za-z0-9_:.-]; it has 102400 characters"},
      {"RegisterDevice: FCM token with a space",
       reg(kFcm, "fcm token with a space ok", "", "", "a.b"), StatusCode::INVALID_ARGUMENT,
       "must be the registration token"},
      {"RegisterDevice: bad locale", reg(kApns, apns, "en_GB!", "", "a.b"),
       StatusCode::INVALID_ARGUMENT, "locale must be a BCP 47 language tag"},
      {"RegisterDevice: unknown time zone", reg(kApns, apns, "", "Mars/Olympus_Mons", "a.b"),
       StatusCode::INVALID_ARGUMENT,
       "time_zone \"Mars/Olympus_Mons\" is not an IANA time zone this server knows"},
      {"RegisterDevice: path as a time zone", reg(kApns, apns, "", "../../etc/passwd", "a.b"),
       StatusCode::INVALID_ARGUMENT, "is not an IANA time zone"},
      {"RegisterDevice: no app id", reg(kApns, apns, "", "", ""), StatusCode::INVALID_ARGUMENT,
       "app_id is required"},
      {"RegisterDevice: app id with a slash", reg(kApns, apns, "", "", "com/parlor"),
       StatusCode::INVALID_ARGUMENT, "app_id must be 1-255 characters of [A-Za-z0-9._-]"},
      {"RegisterDevice: request bytes that do not parse (gRPC's own answer)",
       raw("NotificationsService/RegisterDevice", "\x12\xff\xff\xff", player),
       StatusCode::UNIMPLEMENTED, ""},

      // UnregisterDevice.
      {"UnregisterDevice: neither id nor token", unregister("", ""), StatusCode::INVALID_ARGUMENT,
       "set exactly one of device_id (from ListMyDevices) and token"},
      {"UnregisterDevice: both", unregister(NewUuid(), ada_token), StatusCode::INVALID_ARGUMENT,
       "set exactly one of device_id"},
      {"UnregisterDevice: malformed id", unregister("'; DROP TABLE x", ""),
       StatusCode::INVALID_ARGUMENT, "device_id must be a device id from ListMyDevices"},
      {"UnregisterDevice: someone else's or no device", unregister(NewUuid(), ""),
       StatusCode::NOT_FOUND, "(ListMyDevices lists yours)"},
      {"UnregisterDevice: unknown token", unregister("", testing::ApnsToken()),
       StatusCode::NOT_FOUND, "you have no device with this token"},
      {"UnregisterDevice: huge token", unregister("", huge), StatusCode::INVALID_ARGUMENT,
       "token is longer than any push token"},

      // ListMyDevices, GetPreferences.
      {"ListMyDevices: no credential", list_devices(""), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"ListMyDevices: garbage token", list_devices("not-a-jwt"), StatusCode::UNAUTHENTICATED,
       "access token is malformed"},
      {"GetPreferences: expired token", get_preferences(expired), StatusCode::UNAUTHENTICATED,
       "expired at"},

      // UpdatePreferences.
      {"UpdatePreferences: unknown time zone",
       update([](v1::Preferences* p) { p->set_time_zone("Europe/Atlantis"); }),
       StatusCode::INVALID_ARGUMENT, "time_zone \"Europe/Atlantis\" is not an IANA time zone"},
      {"UpdatePreferences: quiet hours past midnight", update([](v1::Preferences* p) {
         p->mutable_quiet_hours()->set_start_minute(1440);
         p->mutable_quiet_hours()->set_end_minute(60);
       }),
       StatusCode::INVALID_ARGUMENT, "minutes after midnight, 0-1439; got 1440 and 60"},
      {"UpdatePreferences: negative quiet hours", update([](v1::Preferences* p) {
         p->mutable_quiet_hours()->set_start_minute(-5);
         p->mutable_quiet_hours()->set_end_minute(60);
       }),
       StatusCode::INVALID_ARGUMENT, "got -5 and 60"},
      {"UpdatePreferences: empty quiet hours", update([](v1::Preferences* p) {
         p->mutable_quiet_hours()->set_start_minute(600);
         p->mutable_quiet_hours()->set_end_minute(600);
       }),
       StatusCode::INVALID_ARGUMENT, "start_minute equals end_minute"},
      {"UpdatePreferences: unspecified kind",
       update([](v1::Preferences* p) { p->add_disabled_kinds(v1::EVENT_KIND_UNSPECIFIED); }),
       StatusCode::INVALID_ARGUMENT, "disabled_kinds: 0 is not a kind that is pushed"},
      {"UpdatePreferences: unknown kind number",
       update([](v1::Preferences* p) { p->add_disabled_kinds(static_cast<v1::EventKind>(99)); }),
       StatusCode::INVALID_ARGUMENT, "disabled_kinds: 99 is not a kind that is pushed"},
      {"UpdatePreferences: turn_over is never pushed",
       update([](v1::Preferences* p) { p->add_disabled_kinds(v1::EVENT_KIND_TURN_OVER); }),
       StatusCode::INVALID_ARGUMENT, "disabled_kinds: 9 is not a kind that is pushed"},
      {"UpdatePreferences: a kind twice", update([](v1::Preferences* p) {
         p->add_disabled_kinds(v1::EVENT_KIND_REMINDER);
         p->add_disabled_kinds(v1::EVENT_KIND_REMINDER);
       }),
       StatusCode::INVALID_ARGUMENT, "disabled_kinds: reminder is listed twice"},
      {"UpdatePreferences: malformed game id",
       update([](v1::Preferences* p) { p->add_muted_game_ids("game-1"); }),
       StatusCode::INVALID_ARGUMENT, "muted_game_ids: \"game-1\" is not a game id"},
      {"UpdatePreferences: a game twice", update([game](v1::Preferences* p) {
         p->add_muted_game_ids(game);
         p->add_muted_game_ids(game);
       }),
       StatusCode::INVALID_ARGUMENT, "is listed twice"},
      {"UpdatePreferences: 201 muted games", update([](v1::Preferences* p) {
         for (int i = 0; i < 201; ++i) p->add_muted_game_ids(NewUuid());
       }),
       StatusCode::INVALID_ARGUMENT, "muted_game_ids holds at most 200 games; it has 201"},

      // ListNotifications.
      {"ListNotifications: negative page_size", list(-1, ""), StatusCode::INVALID_ARGUMENT,
       "page_size must be 0 to 100 (0 means 20); got -1"},
      {"ListNotifications: page_size 101", list(101, ""), StatusCode::INVALID_ARGUMENT,
       "page_size must be 0 to 100"},
      {"ListNotifications: garbage page_token", list(0, "x:y:z"), StatusCode::INVALID_ARGUMENT,
       "page_token was not issued by ListNotifications"},
      {"ListNotifications: huge page_token", list(0, huge), StatusCode::INVALID_ARGUMENT,
       "page_token was not issued by ListNotifications"},
      {"ListNotifications: page_token with a negative cursor", list(0, Base64UrlEncode("inbox:-5")),
       StatusCode::INVALID_ARGUMENT, "page_token was not issued by ListNotifications"},

      // MarkRead.
      {"MarkRead: nothing named", mark({}, 0), StatusCode::INVALID_ARGUMENT,
       "set exactly one of notification_ids and up_to_notification_id"},
      {"MarkRead: both", mark({1}, 5), StatusCode::INVALID_ARGUMENT, "set exactly one of"},
      {"MarkRead: 101 ids", mark(std::vector<int64_t>(101, 1), 0), StatusCode::INVALID_ARGUMENT,
       "notification_ids holds at most 100 ids; it has 101"},
      {"MarkRead: id 0", mark({0}, 0), StatusCode::INVALID_ARGUMENT,
       "notification_ids: 0 is not a notification id"},
      {"MarkRead: negative up_to", mark({}, -3), StatusCode::INVALID_ARGUMENT,
       "up_to_notification_id must be a notification id"},

      // WatchNotifications.
      {"WatchNotifications: negative after_notification_id", watch(player, -1),
       StatusCode::INVALID_ARGUMENT,
       "after_notification_id must be 0 (from now on) or a notification id; got -1"},
      {"WatchNotifications: no credential", watch("", 0), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"WatchNotifications: expired token", watch(expired, 0), StatusCode::UNAUTHENTICATED,
       "expired at"},
      {"WatchNotifications: forged token", watch(forged, 0), StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"WatchNotifications: service credential instead of a player token", watch(service, 0),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},

      // AcceptEvents (internal).
      {"AcceptEvents: player token on an internal RPC", accept(player, [](v1::Event*) {}),
       StatusCode::PERMISSION_DENIED, "a player's access token is never accepted"},
      {"AcceptEvents: no credential", accept("", [](v1::Event*) {}), StatusCode::UNAUTHENTICATED,
       "needs `authorization: Bearer <service credential>`"},
      {"AcceptEvents: forged service credential",
       accept(keys_.ForgedServiceToken(), [](v1::Event*) {}), StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"AcceptEvents: no events", events(0), StatusCode::INVALID_ARGUMENT,
       "events must hold 1-500 events; it has 0"},
      {"AcceptEvents: 501 events", events(501), StatusCode::INVALID_ARGUMENT,
       "events must hold 1-500 events; it has 501"},
      {"AcceptEvents: no dedupe key", accept(service, [](v1::Event* e) { e->clear_dedupe_key(); }),
       StatusCode::INVALID_ARGUMENT,
       "events[0].dedupe_key must be 1-200 printable ASCII characters"},
      {"AcceptEvents: dedupe key with a space",
       accept(service, [](v1::Event* e) { e->set_dedupe_key("turn 1"); }),
       StatusCode::INVALID_ARGUMENT, "events[0].dedupe_key"},
      {"AcceptEvents: huge dedupe key",
       accept(service, [&](v1::Event* e) { e->set_dedupe_key(huge); }),
       StatusCode::INVALID_ARGUMENT, "events[0].dedupe_key"},
      {"AcceptEvents: malformed account id (after two good events: none stored)",
       accept(
           service, [](v1::Event* e) { e->set_account_id("ada"); }, 2),
       StatusCode::INVALID_ARGUMENT,
       "events[2].account_id must be an account id (a lower-case UUID)"},
      {"AcceptEvents: unspecified kind",
       accept(service, [](v1::Event* e) { e->set_kind(v1::EVENT_KIND_UNSPECIFIED); }),
       StatusCode::INVALID_ARGUMENT, "events[0].kind 0 is not an EventKind"},
      {"AcceptEvents: unknown kind",
       accept(service, [](v1::Event* e) { e->set_kind(static_cast<v1::EventKind>(40)); }),
       StatusCode::INVALID_ARGUMENT, "events[0].kind 40 is not an EventKind"},
      {"AcceptEvents: your turn without a game",
       accept(service, [](v1::Event* e) { e->clear_game_id(); }), StatusCode::INVALID_ARGUMENT,
       "events[0].game_id must be a game id (a lower-case UUID) for your_turn"},
      {"AcceptEvents: game name with capitals",
       accept(service, [](v1::Event* e) { e->set_game("Pico"); }), StatusCode::INVALID_ARGUMENT,
       "events[0].game must be the game's name, e.g. \"pico\""},
      {"AcceptEvents: negative version", accept(service, [](v1::Event* e) { e->set_version(-1); }),
       StatusCode::INVALID_ARGUMENT, "events[0].version must be >= 0"},
      {"AcceptEvents: nine opponents",
       accept(service,
              [](v1::Event* e) {
                for (int i = 0; i < 8; ++i) e->add_opponent_names("Ugo");
              }),
       StatusCode::INVALID_ARGUMENT, "events[0].opponent_names holds at most 8 names; it has 9"},
      {"AcceptEvents: an empty opponent name",
       accept(service, [](v1::Event* e) { e->add_opponent_names(""); }),
       StatusCode::INVALID_ARGUMENT, "events[0].opponent_names: each name is 1-64 characters"},
      {"AcceptEvents: a last move of 201 characters",
       accept(service,
              [](v1::Event* e) { e->mutable_last_move()->set_description(std::string(201, 'x')); }),
       StatusCode::INVALID_ARGUMENT,
       "events[0].last_move.description must be empty or 1-200 characters (UTF-8)"},
      {"AcceptEvents: a last move naming a player but no move",
       accept(service, [](v1::Event* e) { e->mutable_last_move()->set_player_name("Tess"); }),
       StatusCode::INVALID_ARGUMENT,
       "events[0].last_move.description is required when last_move.player_name is set"},
      {"AcceptEvents: a last move on a timeout",
       accept(service,
              [](v1::Event* e) {
                e->set_kind(v1::EVENT_KIND_TIMEOUT);
                e->mutable_last_move()->set_description("pass");
              }),
       StatusCode::INVALID_ARGUMENT,
       "events[0].last_move is only for your_turn, reminder and game_over, not timeout"},
      {"AcceptEvents: challenge without who from",
       accept(service,
              [](v1::Event* e) {
                e->set_kind(v1::EVENT_KIND_CHALLENGE_RECEIVED);
                e->clear_game_id();
              }),
       StatusCode::INVALID_ARGUMENT,
       "events[0].from_name must be 1-64 characters for challenge_received"},
      {"AcceptEvents: party invite without a party",
       accept(service,
              [](v1::Event* e) {
                e->set_kind(v1::EVENT_KIND_PARTY_INVITE);
                e->clear_game_id();
                e->set_from_name("Tess");
              }),
       StatusCode::INVALID_ARGUMENT, "events[0].party_id must be a party id"},
      {"AcceptEvents: expires before it was committed",
       accept(service,
              [](v1::Event* e) {
                e->mutable_commit_time()->set_seconds(2'000'000'000);
                e->mutable_expire_time()->set_seconds(1'999'999'999);
              }),
       StatusCode::INVALID_ARGUMENT, "events[0].expire_time is before commit_time"},
      {"AcceptEvents: request bytes that do not parse (gRPC's own answer)",
       raw("NotificationsInternalService/AcceptEvents", "\x0a\xff\xff\xff\xff\x0f", service),
       StatusCode::UNIMPLEMENTED, ""},
  };
  parlor::testing::RunBadInputCases("notifications", cases, [this] { return Checksum(); });
}

}  // namespace
}  // namespace parlor::notifications
