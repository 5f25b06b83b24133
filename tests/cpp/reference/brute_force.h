// Brute-force reference for the Shuangkou (双扣) pattern rules.
//
// Deliberately slow and written straight from the rules (docs/rules.md §1, §3, §4, §5,
// 9, 10, 11) and docs/rule_readings.md, independently of the fast move
// generator in cpp/. Tests use it to cross-check that generator.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>
namespace skref {
// Rank index: 0..14 = 3 4 5 6 7 8 9 T J Q K A 2 SJ BJ. Sequence ranks are 0..11.
using Counts = std::array<int, 15>;
enum class Kind {
  kSingle,
  kPair,
  kTriple,
  kStraight,
  kPairChain,
  kTripleChain,
  kBomb,
  kChainBomb,
  kUnevenChainBomb,
  kThreeKings,
  kHeavenlyKings
};
struct RefVariant {
  int wild = 0;                 // 0: no joker is wild; 1: BJ only; 2: SJ and BJ
  int max_bomb = 8;             // largest count of one rank in a bomb / chain-bomb rank
  bool chain_bomb = false;      // equal-count chain bombs allowed
  bool uneven_chain = false;    // uneven chain bombs allowed
  bool uneven_star_max = true;  // uneven stars = largest count + Y (true) or smallest count + Y (false)
  bool three_kings = false;
  bool bomb_order_stars = false;  // false: "count" order; true: "stars" order
  bool tianwang_top = true;
};
RefVariant preset(
    const std::string& name);  // classic baibian qianbian qianbian_collect jj (docs/rules.md §13)
struct RefPlay {
  Kind kind;
  Counts reading{};  // counts per rank after wild substitution
  Counts cards{};    // the physical cards used (jokers at 13, 14)
  int key = 0;       // rank index of the key
  int stars = 0;     // 0 for non-bombs
  int size = 0;      // number of cards
};
bool is_bomb(Kind k);
// Every kind the card set can be read as, each with its highest reading (at most one per kind).
std::vector<RefPlay> all_readings(const RefVariant& v, const Counts& cards);
// The highest reading of the set as this kind, if any.
std::optional<RefPlay> reading_as(const RefVariant& v, const Counts& cards, Kind kind);
// True iff play a may be played on play b (both as already-read plays).
bool beats(const RefVariant& v, const RefPlay& a, const RefPlay& b);
// Canonical move generation (docs/rules.md §14): all canonical moves when previous == nullptr,
// otherwise only the canonical moves that beat *previous. Order does not matter.
std::vector<RefPlay> canonical_moves(const RefVariant& v, const Counts& hand, const RefPlay* previous);
// For messages: "7 7 8 BJ" style strings; kind names: single pair triple straight pair_chain
// triple_chain bomb chain_bomb uneven_chain_bomb three_kings heavenly_kings
std::string to_string(const Counts& c);
std::string kind_name(Kind k);
}  // namespace skref
