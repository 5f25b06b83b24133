#include "shuangkou/encode.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace shuangkou {
namespace {

constexpr int kMaxCards = kHandSize;  // no pattern can hold more cards than a hand

constexpr uint64_t nibble(int rank, int count) { return static_cast<uint64_t>(count) << (4 * rank); }

// The observation, slice by slice. The encoder writes the slices in this
// order, and a check at the end keeps the two in step.
struct SliceSpec {
  const char* name;
  int size;
  const char* meaning;
};
constexpr int kRecentRow = 4 + 1 + 15 + kNumKinds;
constexpr SliceSpec kSlices[] = {
    {"hand", 15, "own cards per rank 3..BJ, count / 8"},
    {"partner_hand", 15, "partner's cards per rank / 8 where the variant shows them (JJ 双明), else 0"},
    {"partner_visible", 1, "1 if the partner's hand is shown"},
    {"cards_left", 4, "cards held by self, next, partner, previous / 27"},
    {"played", 60, "cards played so far per rank / 8, for self, next, partner, previous (15 each)"},
    {"unseen", 15, "cards per rank / 8 neither in own hand, nor played, nor in a shown partner hand"},
    {"trick_reading", 15, "reading of the play to beat per rank / 8 (0 when leading)"},
    {"trick_kind", kNumKinds, "kind of the play to beat, one-hot in Kind order (0 when leading)"},
    {"trick_size", 1, "cards in the play to beat / 27"},
    {"trick_stars", 1, "stars of the play to beat / 18"},
    {"trick_owner", 4, "who made the play to beat: self, next, partner, previous, one-hot"},
    {"leading", 1, "1 if this seat opens the trick (may not pass)"},
    {"passes", 1, "passes since the play to beat / 3"},
    {"recent", kRecentActions* kRecentRow,
     "last 8 actions, oldest first, each: actor one-hot (self, next, partner, previous), pass flag, "
     "reading per rank / 8, kind one-hot; unused rows 0"},
    {"places", 16, "finishing place one-hot (1st..4th) of self, next, partner, previous; 0 while playing"},
    {"bombs", 4, "bombs played by self, next, partner, previous / 8"},
    {"max_stars", 4, "most stars of one bomb of self, next, partner, previous / 18"},
    {"star_level", 4, "star level (docs/rules.md §12 with star collection, else max stars) / 18"},
    {"scores", 4, "points credited so far (bomb contributions) / 100"},
    {"variant", 21,
     "wild_jokers one-hot (none, BJ, both), max_bomb / 12, chain_bomb, uneven_chain, uneven_star min, "
     "three_kings, bomb_order stars, tianwang bottom, multiplier one-hot (bomb_count_max, star_max, "
     "star_product), multiplier_from all, contribution one-hot (none, player, team), collect_stars, "
     "base_table one-hot (classic, common, jj)"},
};

class Writer {
 public:
  explicit Writer(float* out) : out_(out) {}
  // Starts slice i (zeroed); slices must be started in order.
  float* slice(int i) {
    if (i != next_++) throw std::logic_error("observation slices written out of order");
    float* p = out_ + cursor_;
    std::memset(p, 0, sizeof(float) * kSlices[i].size);
    cursor_ += kSlices[i].size;
    return p;
  }
  int end() const { return cursor_; }

 private:
  float* out_;
  int cursor_ = 0;
  int next_ = 0;
};

void counts(CardCounts c, float* out, float scale = 1.0f / 8) {
  for (int r = 0; r < kNumRanks; ++r) out[r] = static_cast<float>(c.count(r)) * scale;
}

}  // namespace

// --- catalogue ------------------------------------------------------------

void ActionCatalogue::add(const Variant& v, Kind kind, CardCounts reading) {
  patterns_.push_back(make_play(v, kind, reading, reading));
}

ActionCatalogue::ActionCatalogue(const Variant& v) : max_bomb_(v.max_bomb) {
  patterns_.push_back(Play{});  // id 0: the pass
  base_[static_cast<int>(Kind::kSingle)] = size();
  for (int r = 0; r < kNumRanks; ++r) add(v, Kind::kSingle, CardCounts(nibble(r, 1)));
  base_[static_cast<int>(Kind::kPair)] = size();
  for (int r = 0; r < kNumRanks; ++r) add(v, Kind::kPair, CardCounts(nibble(r, 2)));
  base_[static_cast<int>(Kind::kTriple)] = size();
  for (int r = 0; r < kNumNaturalRanks; ++r) add(v, Kind::kTriple, CardCounts(nibble(r, 3)));
  auto sequences = [&](Kind kind, int per_rank, int min_len, std::array<int, 13>& bases) {
    base_[static_cast<int>(kind)] = size();
    for (int len = min_len; len <= kNumSequenceRanks && len * per_rank <= kMaxCards; ++len) {
      bases[len] = size();
      for (int top = len - 1; top <= kRankAce; ++top)
        add(v, kind, CardCounts(spread_mask(((1u << len) - 1) << (top - len + 1)) * per_rank));
    }
  };
  sequences(Kind::kStraight, 1, 5, straight_base_);
  sequences(Kind::kPairChain, 2, 3, pair_chain_base_);
  sequences(Kind::kTripleChain, 3, 3, triple_chain_base_);
  base_[static_cast<int>(Kind::kBomb)] = size();
  for (int r = 0; r < kNumNaturalRanks; ++r)
    for (int n = 4; n <= v.max_bomb; ++n) add(v, Kind::kBomb, CardCounts(nibble(r, n)));
  base_[static_cast<int>(Kind::kChainBomb)] = size();
  if (v.chain_bomb)
    for (int x = 4; x <= v.max_bomb; ++x)
      for (int y = 3; y <= 6 && x * y <= kMaxCards; ++y) {
        chain_bomb_base_[x][y] = size();
        for (int top = y - 1; top <= kRankAce; ++top)
          add(v, Kind::kChainBomb, CardCounts(spread_mask(((1u << y) - 1) << (top - y + 1)) * x));
      }
  base_[static_cast<int>(Kind::kUnevenChainBomb)] = size();
  if (v.uneven_chain) {
    for (int y = 3; y <= 6; ++y)
      for (int bottom = 0; bottom + y <= kNumSequenceRanks; ++bottom) {
        std::array<int, 6> c{};
        // Odometer over counts 4..max_bomb per rank, total at most 27.
        c.fill(4);
        while (true) {
          int total = 0;
          bool equal = true;
          uint64_t bits = 0;
          for (int j = 0; j < y; ++j) {
            total += c[j];
            equal &= c[j] == c[0];
            bits |= nibble(bottom + j, c[j]);
          }
          if (total <= kMaxCards && !equal) {
            uneven_.emplace_back(bits, size());
            add(v, Kind::kUnevenChainBomb, CardCounts(bits));
          }
          int j = 0;
          while (j < y && ++c[j] > v.max_bomb) c[j++] = 4;
          if (j == y) break;
        }
      }
    std::sort(uneven_.begin(), uneven_.end());
  }
  base_[static_cast<int>(Kind::kThreeKings)] = size();
  if (v.three_kings) add(v, Kind::kThreeKings, CardCounts(nibble(kSmallJoker, 2) | nibble(kBigJoker, 1)));
  base_[static_cast<int>(Kind::kHeavenlyKings)] = size();
  add(v, Kind::kHeavenlyKings, CardCounts(nibble(kSmallJoker, 2) | nibble(kBigJoker, 2)));
}

int ActionCatalogue::id_of(const Play& p) const {
  if (is_pass(p)) return kPass;
  // The arithmetic below assumes a pattern of this catalogue's variant; a play
  // of another (a larger bomb, a kind this variant lacks) lands on some other
  // id or outside, so the answer is checked against the pattern stored there.
  const int id = index_of(p);
  if (id <= kPass || id >= size()) return -1;
  const Play& at = patterns_[id];
  if (at.kind != p.kind) return -1;
  const bool kings = p.kind == Kind::kThreeKings || p.kind == Kind::kHeavenlyKings;  // one pattern each
  return kings || at.reading == p.reading ? id : -1;
}

int ActionCatalogue::index_of(const Play& p) const {
  const int base = base_[static_cast<int>(p.kind)];
  switch (p.kind) {
    case Kind::kSingle:
    case Kind::kPair:
    case Kind::kTriple:
      return base + p.key;
    case Kind::kStraight:
      return straight_base_[p.size] + p.key - (p.size - 1);
    case Kind::kPairChain:
      return pair_chain_base_[p.size / 2] + p.key - (p.size / 2 - 1);
    case Kind::kTripleChain:
      if (p.size > kMaxCards) return -1;
      return triple_chain_base_[p.size / 3] + p.key - (p.size / 3 - 1);
    case Kind::kBomb:
      return base + p.key * (max_bomb_ - 3) + p.size - 4;
    case Kind::kChainBomb: {
      if (p.size > kMaxCards) return -1;
      const int x = p.reading.count(p.key), y = p.size / x;
      return chain_bomb_base_[x][y] + p.key - (y - 1);
    }
    case Kind::kUnevenChainBomb: {
      const auto it = std::lower_bound(uneven_.begin(), uneven_.end(), std::make_pair(p.reading.bits(), 0));
      return it != uneven_.end() && it->first == p.reading.bits() ? it->second : -1;
    }
    case Kind::kThreeKings:
    case Kind::kHeavenlyKings:
      return base;
  }
  return -1;
}

// --- observation ----------------------------------------------------------

int observation_size() {
  int n = 0;
  for (const auto& s : kSlices) n += s.size;
  return n;
}

const std::vector<ObservationSlice>& observation_layout() {
  static const std::vector<ObservationSlice> layout = [] {
    std::vector<ObservationSlice> out;
    int offset = 0;
    for (const auto& s : kSlices) {
      out.push_back({s.name, offset, s.size, s.meaning});
      offset += s.size;
    }
    return out;
  }();
  return layout;
}

void encode_observation(const Variant& v, const GameState& s, std::span<const Action> recent, int seat,
                        float* out) {
  Writer w(out);
  auto rel = [seat](int other) { return (other - seat + kNumSeats) % kNumSeats; };
  const CardCounts own = s.hand(seat);
  const CardCounts partner = s.hand(partner_of(seat));

  counts(own, w.slice(0));
  float* p = w.slice(1);
  if (v.partner_visible) counts(partner, p);
  w.slice(2)[0] = v.partner_visible ? 1.0f : 0.0f;
  p = w.slice(3);
  for (int i = 0; i < kNumSeats; ++i) p[rel(i)] = static_cast<float>(s.hand(i).size()) / kHandSize;
  p = w.slice(4);
  CardCounts played_all;
  for (int i = 0; i < kNumSeats; ++i) {
    counts(s.played(i), p + 15 * rel(i));
    played_all = played_all + s.played(i);
  }
  p = w.slice(5);
  for (int r = 0; r < kNumRanks; ++r) {
    const int deck = r >= kSmallJoker ? kCopiesPerJoker : kCopiesPerRank;
    const int known = own.count(r) + played_all.count(r) + (v.partner_visible ? partner.count(r) : 0);
    p[r] = static_cast<float>(deck - known) / 8;
  }
  const bool leading = s.is_leading();
  p = w.slice(6);
  if (!leading) counts(s.top().reading, p);
  p = w.slice(7);
  if (!leading) p[static_cast<int>(s.top().kind)] = 1;
  w.slice(8)[0] = leading ? 0.0f : static_cast<float>(s.top().size) / kHandSize;
  w.slice(9)[0] = leading ? 0.0f : static_cast<float>(s.top().stars) / 18;
  p = w.slice(10);
  if (!leading) p[rel(s.top_owner())] = 1;
  w.slice(11)[0] = leading ? 1.0f : 0.0f;
  w.slice(12)[0] = static_cast<float>(s.passes()) / 3;
  p = w.slice(13);
  const size_t first = recent.size() > kRecentActions ? recent.size() - kRecentActions : 0;
  for (size_t i = first; i < recent.size(); ++i) {
    float* row = p + kRecentRow * (i - first);
    const Action& a = recent[i];
    row[rel(a.seat)] = 1;
    if (is_pass(a.play)) {
      row[4] = 1;
    } else {
      counts(a.play.reading, row + 5);
      row[5 + 15 + static_cast<int>(a.play.kind)] = 1;
    }
  }
  p = w.slice(14);
  for (int place = 0; place < s.num_finished(); ++place) p[4 * rel(s.finish_order()[place]) + place] = 1;
  float* bombs = w.slice(15);
  float* max_stars = w.slice(16);
  float* level = w.slice(17);
  for (int i = 0; i < kNumSeats; ++i) {
    bombs[rel(i)] = static_cast<float>(s.bombs().count[i]) / 8;
    max_stars[rel(i)] = static_cast<float>(s.bombs().max_stars(i)) / 18;
    level[rel(i)] =
        static_cast<float>(v.collect_stars ? star_level(s.bombs(), i) : s.bombs().max_stars(i)) / 18;
  }
  p = w.slice(18);
  const auto scores = running_contribution(v, s.bombs());
  for (int i = 0; i < kNumSeats; ++i) p[rel(i)] = static_cast<float>(scores[i]) / 100;
  p = w.slice(19);
  p[static_cast<int>(v.wild_jokers)] = 1;
  p[3] = static_cast<float>(v.max_bomb) / 12;
  p[4] = v.chain_bomb;
  p[5] = v.uneven_chain;
  p[6] = v.uneven_star == UnevenStar::kMin;
  p[7] = v.three_kings;
  p[8] = v.bomb_order == BombOrder::kStars;
  p[9] = v.tianwang == Tianwang::kBottom;
  p[10 + static_cast<int>(v.multiplier)] = 1;
  p[13] = v.multiplier_from == MultiplierFrom::kAll;
  p[14 + static_cast<int>(v.contribution)] = 1;
  p[17] = v.collect_stars;
  p[18 + static_cast<int>(v.base_table)] = 1;
  if (w.end() != observation_size()) throw std::logic_error("observation size mismatch");
}

void encode_move(const Play& p, float* out) {
  std::memset(out, 0, sizeof(float) * kMoveFeatureSize);
  if (is_pass(p)) {
    out[kMoveFeatureSize - 1] = 1;
    return;
  }
  counts(p.reading, out);
  counts(p.cards, out + 15);
  out[30 + static_cast<int>(p.kind)] = 1;
  out[30 + kNumKinds] = static_cast<float>(p.size) / kHandSize;
  out[31 + kNumKinds] = static_cast<float>(p.stars) / 18;
}

}  // namespace shuangkou
