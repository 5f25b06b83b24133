// Fuzz target for the card parser, the pattern reader and the move generator.
// Builds as a libFuzzer target with clang (-fsanitize=fuzzer) or with the
// standalone random-input driver beside it. Any invariant broken aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "shuangkou/core/cards.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/variant.h"

namespace {

void check(bool ok, const char* what, const std::string& input) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\ninput: '%s'\n", what, input.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shuangkou;
  if (size == 0) return 0;
  static const Variant kVariants[] = {preset("classic"), preset("baibian"), preset("qianbian"),
                                      preset("qianbian_collect"), preset("jj")};
  const Variant& v = kVariants[data[0] % 5];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  CardCounts cards;
  try {
    cards = CardCounts::parse(text);
  } catch (const std::invalid_argument&) {
    return 0;  // rejected cleanly
  }
  check(cards.fits_two_decks(), "parse accepted more than two decks hold", text);
  check(CardCounts::parse(cards.to_string()) == cards, "to_string does not parse back", text);

  const Readings all = read_all(v, cards);
  const auto best = read_best(v, cards);
  check(best.has_value() == (all.mask != 0), "read_best disagrees with read_all", text);
  for (int k = 0; k < kNumKinds; ++k) {
    if (!all.has(static_cast<Kind>(k))) continue;
    const Play& p = all.by_kind[k];
    check(p.cards == cards, "reading changed the cards", text);
    check(p.reading.size() == cards.size(), "reading has a different size", text);
    check(!beats(p, p), "a play beats itself", text);
    check(is_bomb(p.kind) == (p.stars > 0), "stars on a non-bomb or none on a bomb", text);
    if (best && is_bomb(best->kind) && is_bomb(p.kind))
      check(!beats(p, *best), "a reading beats the best", text);
  }
  // The cards as a hand: every move comes from it and reads back as itself.
  static MoveList moves;
  generate_leads(v, cards, moves);
  for (const Play& m : moves) {
    check(cards.contains(m.cards), "move uses cards not in the hand", text);
    const auto again = read_as(v, m.cards, m.kind);
    check(again.has_value() && *again == m, "move does not read back as itself", text);
  }
  if (best) {
    generate_follows(v, cards, *best, moves);
    for (const Play& m : moves) check(beats(m, *best), "follow does not beat the play", text);
  }
  return 0;
}
