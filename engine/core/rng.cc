#include "engine/core/rng.h"

#include <openssl/sha.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace parlor::engine {
namespace {

constexpr uint32_t RotateLeft(uint32_t v, int c) { return (v << c) | (v >> (32 - c)); }

void QuarterRound(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  a += b;
  d = RotateLeft(d ^ a, 16);
  c += d;
  b = RotateLeft(b ^ c, 12);
  a += b;
  d = RotateLeft(d ^ a, 8);
  c += d;
  b = RotateLeft(b ^ c, 7);
}

uint32_t LoadLittleEndian32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The ChaCha20 block function (RFC 8439, 20 rounds) with a 64-bit counter in words 12–13 and a
// 64-bit nonce in words 14–15.
void ChaChaBlock(const Seed& key, uint64_t counter, uint64_t nonce, uint32_t out[16]) {
  uint32_t input[16];
  input[0] = 0x61707865;
  input[1] = 0x3320646e;
  input[2] = 0x79622d32;
  input[3] = 0x6b206574;
  for (int i = 0; i < 8; ++i) input[4 + i] = LoadLittleEndian32(&key.bytes[4 * i]);
  input[12] = static_cast<uint32_t>(counter);
  input[13] = static_cast<uint32_t>(counter >> 32);
  input[14] = static_cast<uint32_t>(nonce);
  input[15] = static_cast<uint32_t>(nonce >> 32);
  uint32_t x[16];
  std::memcpy(x, input, sizeof(x));
  for (int round = 0; round < 10; ++round) {
    QuarterRound(x[0], x[4], x[8], x[12]);
    QuarterRound(x[1], x[5], x[9], x[13]);
    QuarterRound(x[2], x[6], x[10], x[14]);
    QuarterRound(x[3], x[7], x[11], x[15]);
    QuarterRound(x[0], x[5], x[10], x[15]);
    QuarterRound(x[1], x[6], x[11], x[12]);
    QuarterRound(x[2], x[7], x[8], x[13]);
    QuarterRound(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) out[i] = x[i] + input[i];
}

}  // namespace

Seed Seed::FromUint64(uint64_t value) {
  Seed seed;
  for (int i = 0; i < 8; ++i) seed.bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  return seed;
}

std::string Seed::ToHex() const { return absl::BytesToHexString(AsBytes()); }

absl::StatusOr<Seed> Seed::FromHex(absl::string_view hex) {
  if (hex.size() != 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("a seed is 64 hex digits (32 bytes); got ", hex.size(), " characters"));
  }
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError("a seed is 64 hex digits; found a non-hex character");
    }
  }
  return FromBytes(absl::HexStringToBytes(hex));
}

absl::StatusOr<Seed> Seed::FromBytes(absl::string_view raw) {
  if (raw.size() != 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("a seed is 32 bytes; got ", raw.size(), " bytes"));
  }
  Seed seed;
  std::memcpy(seed.bytes.data(), raw.data(), 32);
  return seed;
}

uint64_t CounterRng::Bits(uint64_t draw, uint64_t attempt, int word) const {
  uint32_t block[16];
  ChaChaBlock(seed_, draw, attempt, block);
  return uint64_t{block[2 * word]} | uint64_t{block[2 * word + 1]} << 32;
}

uint64_t CounterRng::Uniform(uint64_t draw, uint64_t n) const {
  // Lemire, "Fast random integer generation in an interval" (2019): the high word of x·n is
  // uniform on [0, n) once the low word's biased region (below 2^64 mod n) is rejected.
  const uint64_t threshold = (0 - n) % n;
  for (uint64_t attempt = 0;; ++attempt) {
    uint32_t block[16];
    ChaChaBlock(seed_, draw, attempt, block);
    for (int word = 0; word < 8; ++word) {
      const uint64_t x = uint64_t{block[2 * word]} | uint64_t{block[2 * word + 1]} << 32;
      const unsigned __int128 m = static_cast<unsigned __int128>(x) * n;
      if (static_cast<uint64_t>(m) >= threshold) return static_cast<uint64_t>(m >> 64);
    }
  }
}

Rng Rng::Fast(uint64_t seed) {
  Rng rng(Seed{});
  rng.fast_ = true;
  for (uint64_t& word : rng.fast_state_) {
    // SplitMix64.
    seed += 0x9e3779b97f4a7c15ULL;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    word = z ^ (z >> 31);
  }
  return rng;
}

uint64_t Rng::FastNext() {
  // xoshiro256**.
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  std::array<uint64_t, 4>& s = fast_state_;
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t Rng::FastUniform(uint64_t n) {
  // Lemire's multiply-and-reject, as CounterRng::Uniform.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const unsigned __int128 m = static_cast<unsigned __int128>(FastNext()) * n;
    if (static_cast<uint64_t>(m) >= threshold) return static_cast<uint64_t>(m >> 64);
  }
}

std::string SeedCommitment(const Seed& seed) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(seed.bytes.data(), seed.bytes.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

Seed BotDecisionSeed(const Seed& game_seed, int seat, int64_t num_moves) {
  static constexpr absl::string_view kLabel = "parlor bot decision v1";
  unsigned char message[kLabel.size() + 32 + 4 + 8];
  size_t at = 0;
  std::memcpy(message + at, kLabel.data(), kLabel.size());
  at += kLabel.size();
  std::memcpy(message + at, game_seed.bytes.data(), game_seed.bytes.size());
  at += game_seed.bytes.size();
  // Little-endian, fixed width, so the encoding is unambiguous.
  const auto seat_bits = static_cast<uint32_t>(seat);
  for (int i = 0; i < 4; ++i) message[at++] = static_cast<unsigned char>(seat_bits >> (8 * i));
  const auto move_bits = static_cast<uint64_t>(num_moves);
  for (int i = 0; i < 8; ++i) message[at++] = static_cast<unsigned char>(move_bits >> (8 * i));
  Seed derived;
  SHA256(message, at, derived.bytes.data());
  return derived;
}

}  // namespace parlor::engine
