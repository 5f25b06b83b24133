// The dmc bot: the legal move of highest Q under a trained network, the
// moves scored in the order the vector env lists them (the canonical plays,
// then the pass where legal), ties to the first.
#include <vector>

#include "bots_internal.h"
#include "shuangkou/rl/encode.h"

namespace shuangkou::detail {

Play dmc_action(const QNet& net, const Variant& v, const GameState& s, std::span<const Action> recent,
                const MoveList& moves) {
  thread_local std::vector<float> obs, features, q;  // grown once, then reused
  const int n = moves.size() + (s.can_pass() ? 1 : 0);
  obs.resize(static_cast<size_t>(observation_size()));
  if (features.size() < static_cast<size_t>(n) * kMoveFeatureSize)
    features.resize(static_cast<size_t>(n) * kMoveFeatureSize);
  if (q.size() < static_cast<size_t>(n)) q.resize(static_cast<size_t>(n));
  encode_observation(v, s, recent, s.current_player(), obs.data());
  for (int i = 0; i < moves.size(); ++i)
    encode_move(moves[i], features.data() + static_cast<size_t>(i) * kMoveFeatureSize);
  if (s.can_pass())
    encode_move(kPass, features.data() + static_cast<size_t>(moves.size()) * kMoveFeatureSize);
  net.q_values(obs.data(), features.data(), n, q.data());
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] > q[best]) best = i;
  return best < moves.size() ? moves[best] : kPass;
}

}  // namespace shuangkou::detail
