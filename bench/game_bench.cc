// Google Benchmark: whole random-play deals on one thread, per variant.
// Counters: deals/s and decisions/s (a decision is one play or pass).
//   build/bench/bench/game_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/rng.h"

namespace sk = shuangkou;

namespace {

void BM_RandomDeal(benchmark::State& state, const std::string& variant) {
  const sk::Variant v = sk::preset(variant);
  sk::MoveList moves;
  uint64_t index = 0;
  int64_t decisions = 0;
  for (auto _ : state) {
    const uint64_t seed = sk::derive_seed(1, index++);
    sk::GameState s = sk::GameState::deal(v, seed);
    sk::SplitMix64 rng(seed ^ 0xB07);
    while (!s.is_over()) {
      s.apply_legal(v, sk::random_action(v, s, moves, rng));
      ++decisions;
    }
    benchmark::DoNotOptimize(s);
  }
  state.counters["deals/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["decisions/deal"] = static_cast<double>(decisions) / state.iterations();
}

// Dealing alone (shuffle, deal, first-lead rule).
void BM_Deal(benchmark::State& state, const std::string& variant) {
  const sk::Variant v = sk::preset(variant);
  uint64_t index = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sk::GameState::deal(v, sk::derive_seed(2, index++)));
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& name : sk::preset_names()) {
    benchmark::RegisterBenchmark(("random_deal/" + name).c_str(), BM_RandomDeal, name);
    benchmark::RegisterBenchmark(("deal_only/" + name).c_str(), BM_Deal, name);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
