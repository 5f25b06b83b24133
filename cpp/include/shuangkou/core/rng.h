// Random numbers: splitmix64, small (8 bytes of state), fast and statistically
// sound (passes BigCrush). Every random choice of a game comes from its own
// generator, seeded from (base seed, game index), so results never depend on
// thread count or scheduling.
#pragma once

#include <cstdint>

namespace shuangkou {

// The splitmix64 output function: a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The seed of game `index` of a run seeded with `base`.
constexpr uint64_t derive_seed(uint64_t base, uint64_t index) {
  return mix64(base ^ mix64(index + 0x9E3779B97F4A7C15ULL));
}

// The agents' random stream of deal `deal_seed` (bots draw from it).
constexpr uint64_t agent_seed(uint64_t deal_seed) { return mix64(deal_seed ^ 0xA6E47B07ULL); }

class SplitMix64 {
 public:
  constexpr explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
  constexpr uint64_t next() { return mix64(state_ += 0x9E3779B97F4A7C15ULL); }
  // Uniform in [0, n), n >= 1, without bias (Lemire's multiply-and-reject).
  constexpr uint32_t below(uint32_t n) {
    uint64_t m = (next() >> 32) * n;
    if (static_cast<uint32_t>(m) < n) {
      const uint32_t threshold = (0u - n) % n;
      while (static_cast<uint32_t>(m) < threshold) m = (next() >> 32) * n;
    }
    return static_cast<uint32_t>(m >> 32);
  }
  constexpr uint64_t state() const { return state_; }
  constexpr bool operator==(const SplitMix64&) const = default;

 private:
  uint64_t state_;
};

}  // namespace shuangkou
