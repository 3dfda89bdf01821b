// parlor-notifications: devices' push tokens, preferences, the inbox, and delivery through APNs
// and FCM.
//
//   parlor-notifications [serve] --db_url=... [--apns_* ...] [--fcm_service_account_file=...]
//   parlor-notifications migrate --db_url=...      apply migrations, exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstring>

#include "services/notifications/notifications_server.h"

int main(int argc, char** argv) {
  parlor::notifications::NotificationsConfig config;
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return parlor::RunServiceMain(
      argc, argv,
      parlor::ServiceMain{
          .identity = parlor::notifications::NotificationsIdentity(),
          .add_flags =
              [&](parlor::Flags& flags) {
                if (!migrate) parlor::notifications::AddNotificationsFlags(flags, &config);
              },
          .server_defaults = nullptr,
          .finalize_config =
              [&](parlor::ServerConfig&) {
                if (migrate) return absl::OkStatus();
                return parlor::notifications::FinalizeNotificationsConfig(config);
              },
          .make_services =
              [&](parlor::ServiceHost& host) {
                return parlor::notifications::InstallNotifications(host, config);
              },
      });
}
