#include "shuangkou/rl/selfplay.h"

#include <algorithm>
#include <stdexcept>

#include "shuangkou/rl/encode.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou {
namespace {

// Deals between progress reports: fewer where a search bot makes deals slow
// (about a second each), so that a progress bar moves.
constexpr int64_t kBlock = 8192;
constexpr int64_t kSlowBlock = 64;

}  // namespace

DealResult play_deal(const SelfPlayOptions& o, uint64_t index, MoveList& scratch, std::string* record) {
  const uint64_t seed = derive_seed(o.seed, index);
  SplitMix64 rng(agent_seed(seed));
  DealTally tally;
  RecentActions recent;  // for agents that read the observation (dmc)
  if (record) {
    Game g(o.variant, seed);
    while (!g.state().is_over()) {
      if (cancel_requested(o.cancel)) return DealResult{};
      const int seat = g.state().current_player();
      const Play a =
          choose_action(o.agents[seat], o.variant, g.state(), recent.view(), scratch, rng, o.cancel);
      tally.count(g.state(), a);
      recent.push(seat, a);
      g.apply(a);
    }
    *record = g.to_json();
    return make_deal_result(o.variant, g.state(), g.setup().leader, tally);
  }
  DealSetup setup;
  GameState s = GameState::deal(o.variant, seed, -1, &setup);
  while (!s.is_over()) {
    if (cancel_requested(o.cancel)) return DealResult{};
    const int seat = s.current_player();
    const Play a = choose_action(o.agents[seat], o.variant, s, recent.view(), scratch, rng, o.cancel);
    tally.count(s, a);
    recent.push(seat, a);
    s.apply_legal(o.variant, a);
  }
  return make_deal_result(o.variant, s, setup.leader, tally);
}

int64_t run_selfplay(const SelfPlayOptions& o, std::vector<DealResult>& results,
                     const std::function<bool(int64_t)>& progress) {
  if (o.games < 0) throw std::invalid_argument("games must be >= 0");
  results.assign(static_cast<size_t>(o.games), DealResult{});
  const int threads = resolve_threads(o.threads);
  const int64_t replays = o.replays < 0 ? o.games : std::min(o.replays, o.games);
  if (replays > 0 && !o.on_records) throw std::invalid_argument("replays requested but no record sink given");
  const bool slow =
      std::any_of(o.agents.begin(), o.agents.end(), [](const Bot& b) { return b.kind == BotKind::kSearch; });
  std::vector<std::string> records;
  int64_t done = 0;
  while (done < o.games) {
    const int64_t end = std::min(o.games, done + (slow ? kSlowBlock : kBlock));
    const int64_t recorded = std::max<int64_t>(0, std::min(end, replays) - done);
    records.assign(static_cast<size_t>(recorded), std::string());
#pragma omp parallel num_threads(threads)
    {
      MoveList scratch;
#pragma omp for schedule(dynamic, 4)  // small chunks: a search deal takes seconds
      for (int64_t i = done; i < end; ++i) {
        if (cancel_requested(o.cancel)) continue;  // (an OpenMP loop cannot be left early)
        std::string* record = i - done < recorded ? &records[i - done] : nullptr;
        results[i] = play_deal(o, static_cast<uint64_t>(i), scratch, record);
      }
    }
    if (cancel_requested(o.cancel)) throw Cancelled();
    if (!records.empty()) o.on_records(records);
    done = end;
    if (progress && !progress(done)) break;
  }
  results.resize(static_cast<size_t>(done));
  return done;
}

}  // namespace shuangkou
