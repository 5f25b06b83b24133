// Google Benchmark: reading a play, generating moves when leading and when
// following, per variant, on hands from real deals (27 cards each).
//   cmake -S . -B build/bench -DSHUANGKOU_BUILD_BENCH=ON && cmake --build build/bench
//   build/bench/bench/rules_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "shuangkou/core/movegen.h"
#include "shuangkou/core/pattern.h"

namespace sk = shuangkou;

namespace {

constexpr int kPositions = 4096;

// Four 27-card hands from one shuffled double deck.
std::vector<sk::CardCounts> deal(std::mt19937_64& rng) {
  std::vector<int> deck;
  for (int id = 0; id < sk::kNumPhysicalCards; ++id) deck.push_back(sk::physical_rank(id));
  std::shuffle(deck.begin(), deck.end(), rng);
  std::vector<sk::CardCounts> hands(4);
  for (int i = 0; i < sk::kNumPhysicalCards; ++i) hands[i / 27].add(deck[i]);
  return hands;
}

struct Position {
  sk::CardCounts hand;
  sk::Play previous;  // a lead another seat of the same deal could make
};

// Positions from real deals. The play to follow is a lead of another seat,
// drawn with the weights of a simple policy: a random non-bomb move (bombs are
// rarely led), so following mostly means "beat a single, pair, ... or bomb".
std::vector<Position> positions(const sk::Variant& v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  sk::MoveList moves;
  while (static_cast<int>(out.size()) < kPositions) {
    const auto hands = deal(rng);
    sk::generate_leads(v, hands[1], moves);
    std::vector<sk::Play> plain;
    for (const auto& m : moves)
      if (!sk::is_bomb(m.kind)) plain.push_back(m);
    out.push_back({hands[0], plain[rng() % plain.size()]});
  }
  return out;
}

// Generating moves for positions of real deals: leading, or following the
// position's play.
void BM_Generate(benchmark::State& state, const std::string& variant, bool following) {
  const sk::Variant v = sk::preset(variant);
  const auto pos = positions(v, following ? 2 : 1);
  sk::MoveList moves;
  size_t i = 0;
  long long total = 0;
  for (auto _ : state) {
    if (following)
      sk::generate_follows(v, pos[i].hand, pos[i].previous, moves);
    else
      sk::generate_leads(v, pos[i].hand, moves);
    benchmark::DoNotOptimize(moves.size());
    total += moves.size();
    i = (i + 1) % pos.size();
  }
  state.counters["moves"] = benchmark::Counter(static_cast<double>(total) / state.iterations());
}

// Reading the card set of a move (as the rules layer does for replays and
// human input): the strongest reading over every kind.
void BM_ReadBest(benchmark::State& state, const std::string& variant) {
  const sk::Variant v = sk::preset(variant);
  const auto pos = positions(v, 3);
  std::vector<sk::CardCounts> sets;
  sk::MoveList moves;
  for (const auto& p : pos) {
    sk::generate_leads(v, p.hand, moves);
    sets.push_back(moves[static_cast<int>(sets.size() * 7919 % moves.size())].cards);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sk::read_best(v, sets[i]));
    i = (i + 1) % sets.size();
  }
}

// Reading as a known kind (replaying a recorded move).
void BM_ReadAs(benchmark::State& state, const std::string& variant) {
  const sk::Variant v = sk::preset(variant);
  const auto pos = positions(v, 4);
  std::vector<sk::Play> plays;
  sk::MoveList moves;
  for (const auto& p : pos) {
    sk::generate_leads(v, p.hand, moves);
    plays.push_back(moves[static_cast<int>(plays.size() * 7919 % moves.size())]);
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sk::read_as(v, plays[i].cards, plays[i].kind));
    i = (i + 1) % plays.size();
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& name : sk::preset_names()) {
    benchmark::RegisterBenchmark(("read_best/" + name).c_str(), BM_ReadBest, name);
    benchmark::RegisterBenchmark(("read_as/" + name).c_str(), BM_ReadAs, name);
    benchmark::RegisterBenchmark(("leading/" + name).c_str(), BM_Generate, name, false);
    benchmark::RegisterBenchmark(("following/" + name).c_str(), BM_Generate, name, true);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
