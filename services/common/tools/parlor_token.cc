// parlor-token: key and credential tool for operators and scripts.
//
//   parlor-token keygen
//       Prints a new Ed25519 key pair (base64) as PRIVATE_KEY=... / PUBLIC_KEY=... lines.
//   parlor-token service --private_key=KEY --subject=NAME [--ttl=1h]
//       Prints a service credential for internal RPCs, signed with the service key.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "services/common/core/flags.h"
#include "services/common/core/token.h"

int main(int argc, char** argv) {
  std::string private_key;
  std::string subject;
  absl::Duration ttl = absl::Hours(1);
  parlor::Flags flags("parlor-token", [](const std::string&) { return std::nullopt; });
  flags.Secret("private_key", &private_key, "Ed25519 service private key (base64)");
  flags.String("subject", &subject, "calling service's name");
  flags.Duration("ttl", &ttl, "credential lifetime", absl::Minutes(1), absl::Hours(24));
  std::vector<std::string> commands;
  if (absl::Status status = flags.Parse(argc, argv, &commands); !status.ok()) {
    std::fprintf(stderr, "%s\ncommands: keygen | service\n", std::string(status.message()).c_str());
    return 2;
  }
  const std::string command = commands.empty() ? "" : commands.front();
  if (command == "keygen") {
    const parlor::auth::KeyPairBase64 keys = parlor::auth::GenerateKeyPair();
    std::printf("PRIVATE_KEY=%s\nPUBLIC_KEY=%s\n", keys.private_key.c_str(),
                keys.public_key.c_str());
    return 0;
  }
  if (command == "service") {
    absl::StatusOr<parlor::auth::TokenSigner> signer =
        parlor::auth::TokenSigner::Create(parlor::auth::TokenKind::kService, private_key);
    if (!signer.ok() || subject.empty()) {
      std::fprintf(
          stderr, "parlor-token service needs --private_key and --subject: %s\n",
          signer.ok() ? "subject missing" : std::string(signer.status().message()).c_str());
      return 2;
    }
    absl::StatusOr<std::string> token = signer->Sign(subject, "", absl::Now(), ttl);
    if (!token.ok()) return 1;
    std::printf("%s\n", token->c_str());
    return 0;
  }
  std::fprintf(stderr, "usage: parlor-token keygen | service --private_key=K --subject=NAME\n");
  return 2;
}
