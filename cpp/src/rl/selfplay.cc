#include "shuangkou/rl/selfplay.h"

#include <algorithm>
#include <stdexcept>

#include "shuangkou/rl/deal.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou {
namespace {

// Deals between progress reports: fewer where a slow bot (search) makes deals slow
// (about a second each), so that a progress bar moves.
constexpr int64_t kBlock = 8192;
constexpr int64_t kSlowBlock = 64;

}  // namespace

DealResult play_deal(const SelfPlayOptions& o, uint64_t index, MoveList& scratch, std::string* record) {
  const uint64_t seed = derive_seed(o.seed, index);
  SplitMix64 rng(agent_seed(seed));
  DealSetup setup;
  DealInProgress d{GameState::deal(o.variant, seed, -1, &setup), {}, {}};
  std::vector<Action> history;  // the record's actions (only when one is written)
  while (!d.state.is_over()) {
    const int seat = d.state.current_player();
    const std::optional<Play> a = bot_step(*o.agents[seat], o.variant, d, scratch, rng, o.cancel);
    if (!a) return DealResult{};
    if (record) history.push_back({seat, *a});
  }
  if (record) *record = Game::replay(Rules("custom", o.variant), seed, history).to_json();
  return make_deal_result(o.variant, d.state, setup.leader, d.tally);
}

int64_t run_selfplay(const SelfPlayOptions& o, std::vector<DealResult>& results,
                     const std::function<bool(int64_t)>& progress) {
  if (o.games < 0) throw std::invalid_argument("games must be >= 0");
  results.assign(static_cast<size_t>(o.games), DealResult{});
  const int threads = resolve_threads(o.threads);
  const int64_t replays = o.replays < 0 ? o.games : std::min(o.replays, o.games);
  if (replays > 0 && !o.on_records) throw std::invalid_argument("replays requested but no record sink given");
  for (int seat = 0; seat < kNumSeats; ++seat) {
    if (!o.agents[seat]) throw std::invalid_argument("no bot for seat " + std::to_string(seat));
    o.agents[seat]->check_variant(o.variant);
  }
  const bool slow = std::any_of(o.agents.begin(), o.agents.end(), [](const BotPtr& b) { return b->slow(); });
  std::vector<std::string> records;
  int64_t done = 0;
  while (done < o.games) {
    const int64_t end = std::min(o.games, done + (slow ? kSlowBlock : kBlock));
    const int64_t recorded = std::max<int64_t>(0, std::min(end, replays) - done);
    records.assign(static_cast<size_t>(recorded), std::string());
    FirstError error;
#pragma omp parallel num_threads(threads)
    {
      MoveList scratch;
#pragma omp for schedule(dynamic, 4)  // small chunks: a search deal takes seconds
      for (int64_t i = done; i < end; ++i) {
        if (cancel_requested(o.cancel)) continue;  // (an OpenMP loop cannot be left early)
        std::string* record = i - done < recorded ? &records[i - done] : nullptr;
        error.run([&] { results[i] = play_deal(o, o.first + static_cast<uint64_t>(i), scratch, record); });
      }
    }
    error.rethrow();
    if (cancel_requested(o.cancel)) throw Cancelled();
    if (!records.empty()) o.on_records(records);
    done = end;
    if (progress && !progress(done)) break;
  }
  results.resize(static_cast<size_t>(done));
  return done;
}

}  // namespace shuangkou
