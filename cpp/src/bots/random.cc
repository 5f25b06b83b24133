// The random bot: uniform over the canonical plays and, when allowed, the
// pass (a draw is made even when the pass is the only legal action).
#include "bots_internal.h"

namespace shuangkou::detail {
namespace {

class RandomBot final : public Bot {
 public:
  Play step(const Decision& d) const override {
    const int options = d.moves.size() + (d.state.can_pass() ? 1 : 0);
    const int pick = static_cast<int>(d.rng.below(static_cast<uint32_t>(options)));
    return pick < d.moves.size() ? d.moves[pick] : kPass;
  }
  std::string label() const override { return "random"; }
};

}  // namespace

BotPtr make_random_bot(std::string_view) { return std::make_shared<const RandomBot>(); }

}  // namespace shuangkou::detail
