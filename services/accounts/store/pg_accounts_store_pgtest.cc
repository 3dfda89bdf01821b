#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/accounts/store/pg_accounts_store.h"
#include "services/common/core/crypto.h"
#include "services/common/db/migrations.h"
#include "services/common/testing/status_matchers.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::accounts {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using Outcome = AccountsStore::RotationOutcome;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
// The sign-up budget says yes.
const std::function<absl::Status()> kAdmit = [] { return absl::OkStatus(); };

class PgAccountsStorePgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    absl::StatusOr<MigrationResult> migrated = ApplyMigrations(
        db_url(), {.schema = "accounts", .directory = PARLOR_SOURCE_DIR "/migrations/accounts"});
    ASSERT_TRUE(migrated.ok()) << migrated.status();
    DbOptions options;
    options.url = db_url();
    options.max_connections = 4;
    pool_ = std::make_unique<DbPool>(options, nullptr);
    store_ = std::make_unique<PgAccountsStore>(pool_.get());
  }

  NewRefreshToken Token(absl::Time now = kNow) {
    return {
        .hash = Sha256(RandomToken(32)), .issue_time = now, .expire_time = now + absl::Hours(1)};
  }

  AccountsStore::DeviceSignIn SignIn(const std::string& device, std::optional<std::string> name,
                                     const NewRefreshToken& token) {
    absl::StatusOr<AccountsStore::DeviceSignIn> result = store_->AuthenticateDevice(
        device, name, [] { return std::string("Player-fixed"); }, token, kNow, kAdmit);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(AccountsStore::DeviceSignIn());
  }

  std::unique_ptr<DbPool> pool_;
  std::unique_ptr<PgAccountsStore> store_;
};

TEST_F(PgAccountsStorePgTest, DeviceSignInCreatesOnceThenFinds) {
  AccountsStore::DeviceSignIn first = SignIn("device-0001", "Ada", Token());
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.account.display_name, "Ada");
  EXPECT_EQ(first.account.create_time, kNow);
  AccountsStore::DeviceSignIn second = SignIn("device-0001", std::nullopt, Token());
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.account.account_id, first.account.account_id);
  EXPECT_NE(second.session_id, first.session_id);
}

TEST_F(PgAccountsStorePgTest, DisplayNamesAreUniqueIgnoringCase) {
  SignIn("device-0001", "Ada", Token());
  EXPECT_THAT(store_->AuthenticateDevice(
                  "device-0002", "ADA", [] { return std::string("x"); }, Token(), kNow, kAdmit),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("taken")));
  AccountsStore::DeviceSignIn bob = SignIn("device-0002", "Bob", Token());
  EXPECT_THAT(store_->UpdateDisplayName(bob.account.account_id, bob.session_id, "aDa", kNow),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("\"aDa\" is taken")));
  // Changing only the case of one's own name is allowed.
  absl::StatusOr<Account> renamed =
      store_->UpdateDisplayName(bob.account.account_id, bob.session_id, "BOB", kNow);
  ASSERT_THAT(renamed, IsOk());
  EXPECT_EQ(renamed->display_name, "BOB");
}

TEST_F(PgAccountsStorePgTest, GeneratedNameCollisionTriesAgain) {
  SignIn("device-0001", "Player-fixed", Token());
  int calls = 0;
  absl::StatusOr<AccountsStore::DeviceSignIn> result = store_->AuthenticateDevice(
      "device-0002", std::nullopt,
      [&calls] { return ++calls == 1 ? std::string("Player-fixed") : std::string("Player-other"); },
      Token(), kNow, kAdmit);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->account.display_name, "Player-other");
  EXPECT_EQ(calls, 2);
}

// The sign-up budget is asked only before a new account is made; its refusal stores nothing.
TEST_F(PgAccountsStorePgTest, NewAccountsNeedTheSignUpBudgetKnownDevicesDoNot) {
  SignIn("device-0001", "Ada", Token());
  const std::string before = *parlor::testing::SchemaContentDigest(db_url(), "accounts");
  int asked = 0;
  const auto refuse = [&asked] {
    ++asked;
    return absl::ResourceExhaustedError("too many new accounts");
  };
  EXPECT_THAT(store_->AuthenticateDevice(
                  "device-0002", std::nullopt, [] { return std::string("Player-fixed"); }, Token(),
                  kNow, refuse),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("too many new accounts")));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(*parlor::testing::SchemaContentDigest(db_url(), "accounts"), before);
  absl::StatusOr<AccountsStore::DeviceSignIn> known = store_->AuthenticateDevice(
      "device-0001", std::nullopt, [] { return std::string("x"); }, Token(), kNow, refuse);
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_FALSE(known->created);
  EXPECT_EQ(asked, 1);
}

TEST_F(PgAccountsStorePgTest, DatabaseEnforcesDisplayNameRulesToo) {
  // Even if a caller skipped validation, the CHECK constraint holds; the client sees no SQL.
  absl::StatusOr<AccountsStore::DeviceSignIn> result = store_->AuthenticateDevice(
      "device-0001", std::string("x"), [] { return std::string("x"); }, Token(), kNow, kAdmit);
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kInternal, ::testing::Not(HasSubstr("INSERT"))));
}

TEST_F(PgAccountsStorePgTest, RotationThenReuseRevokesTheFamily) {
  NewRefreshToken first = Token();
  AccountsStore::DeviceSignIn ada = SignIn("device-0001", "Ada", first);
  NewRefreshToken second = Token(kNow + absl::Minutes(1));
  absl::StatusOr<AccountsStore::Rotation> rotated =
      store_->RotateRefreshToken(first.hash, second, kNow + absl::Minutes(1));
  ASSERT_THAT(rotated, IsOk());
  EXPECT_EQ(rotated->outcome, Outcome::kRotated);
  EXPECT_EQ(rotated->session_id, ada.session_id);

  absl::StatusOr<AccountsStore::Rotation> reused =
      store_->RotateRefreshToken(first.hash, Token(), kNow + absl::Minutes(2));
  ASSERT_THAT(reused, IsOk());
  EXPECT_EQ(reused->outcome, Outcome::kReused);
  // The newest token of the family is dead too, and so is the session for profile calls.
  EXPECT_EQ(store_->RotateRefreshToken(second.hash, Token(), kNow + absl::Minutes(3))->outcome,
            Outcome::kRevoked);
  EXPECT_THAT(store_->GetAccount(ada.account.account_id, ada.session_id),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("sign in again")));
}

TEST_F(PgAccountsStorePgTest, UnknownAndExpiredTokens) {
  NewRefreshToken first = Token();
  SignIn("device-0001", "Ada", first);
  EXPECT_EQ(store_->RotateRefreshToken(Sha256("nope"), Token(), kNow)->outcome, Outcome::kUnknown);
  EXPECT_EQ(store_->RotateRefreshToken(first.hash, Token(), kNow + absl::Hours(2))->outcome,
            Outcome::kExpired);
}

TEST_F(PgAccountsStorePgTest, ConcurrentRefreshesWithOneTokenRotateExactlyOnce) {
  NewRefreshToken first = Token();
  SignIn("device-0001", "Ada", first);
  std::atomic<int> rotated{0};
  std::atomic<int> reused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      absl::StatusOr<AccountsStore::Rotation> result =
          store_->RotateRefreshToken(first.hash, Token(), kNow);
      ASSERT_TRUE(result.ok()) << result.status();
      if (result->outcome == Outcome::kRotated) rotated++;
      if (result->outcome == Outcome::kReused || result->outcome == Outcome::kRevoked) reused++;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(rotated.load(), 1);
  EXPECT_EQ(reused.load(), 3);
}

TEST_F(PgAccountsStorePgTest, SignOutAllRevokesEverySession) {
  AccountsStore::DeviceSignIn one = SignIn("device-0001", "Ada", Token());
  AccountsStore::DeviceSignIn two = SignIn("device-0001", std::nullopt, Token());
  ASSERT_THAT(store_->GetAccount(one.account.account_id, two.session_id), IsOk());
  ASSERT_THAT(store_->RevokeSession(one.account.account_id, one.session_id, kNow), IsOk());
  EXPECT_THAT(store_->GetAccount(one.account.account_id, one.session_id),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signed out")));
  EXPECT_THAT(store_->GetAccount(one.account.account_id, two.session_id), IsOk());
  ASSERT_THAT(store_->RevokeAllSessions(one.account.account_id, kNow), IsOk());
  EXPECT_THAT(store_->GetAccount(one.account.account_id, two.session_id),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signed out")));
  // A session of one account does not unlock another account.
  AccountsStore::DeviceSignIn bob = SignIn("device-0002", "Bob", Token());
  EXPECT_THAT(store_->GetAccount(one.account.account_id, bob.session_id),
              StatusIs(absl::StatusCode::kUnauthenticated, ::testing::_));
}

TEST_F(PgAccountsStorePgTest, BatchGetKeepsRequestOrder) {
  AccountsStore::DeviceSignIn ada = SignIn("device-0001", "Ada", Token());
  AccountsStore::DeviceSignIn bob = SignIn("device-0002", "Bob", Token());
  absl::StatusOr<std::vector<Account>> accounts = store_->GetAccounts(
      {bob.account.account_id, "00000000-0000-0000-0000-000000000000", ada.account.account_id});
  ASSERT_THAT(accounts, IsOk());
  ASSERT_EQ(accounts->size(), 2u);
  EXPECT_EQ((*accounts)[0].display_name, "Bob");
  EXPECT_EQ((*accounts)[1].display_name, "Ada");
}

TEST_F(PgAccountsStorePgTest, UnreachableDatabaseIsUnavailable) {
  DbOptions options;
  options.url = "host=127.0.0.1 port=1 connect_timeout=2";
  options.acquire_timeout = absl::Milliseconds(100);
  DbPool dead(options, nullptr);
  PgAccountsStore store(&dead);
  EXPECT_THAT(store.GetAccounts({"00000000-0000-0000-0000-000000000000"}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
}

}  // namespace
}  // namespace parlor::accounts
