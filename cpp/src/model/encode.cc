#include "shuangkou/model/encode.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <tuple>

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
  // The whole observation is zeroed once, here: one memset, not one a slice.
  explicit Writer(float* out, int size) : out_(out) { std::memset(out, 0, sizeof(float) * size); }
  // Starts slice i (already zero); slices must be started in order.
  float* slice(int i) {
    if (i != next_++) throw std::logic_error("observation slices written out of order");
    float* p = out_ + cursor_;
    cursor_ += kSlices[i].size;
    return p;
  }
  int end() const { return cursor_; }

 private:
  float* out_;
  int cursor_ = 0;
  int next_ = 0;
};

// kEighths[n] = n / 8: a rank's count as the encoders write it, by table
// (no int-to-float conversion on the hot path).
constexpr std::array<float, 16> kEighths = [] {
  std::array<float, 16> t{};
  for (int n = 0; n < 16; ++n) t[n] = static_cast<float>(n) / 8;
  return t;
}();

// Counts per rank / 8.
void counts(CardCounts c, float* out) {
  uint64_t bits = c.bits();
  for (int r = 0; r < kNumRanks; ++r, bits >>= 4) out[r] = kEighths[bits & 0xF];
}

// A seat as seen from `seat`: 0 self, 1 next, 2 partner, 3 previous.
struct Relative {
  int seat;
  int operator()(int other) const { return (other - seat + kNumSeats) % kNumSeats; }
};

// Slices 0-5: own hand, the partner's where shown, cards left, cards played, unseen cards.
inline void write_cards(Writer& w, const Variant& v, const GameState& s, Relative rel) {
  const CardCounts own = s.hand(rel.seat);
  const CardCounts partner = s.hand(partner_of(rel.seat));
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
    const int deck = copies_in_two_decks(r);
    const int known = own.count(r) + played_all.count(r) + (v.partner_visible ? partner.count(r) : 0);
    p[r] = static_cast<float>(deck - known) / 8;
  }
}

// Slices 6-12: the play to beat (reading, kind, size, stars, owner), leading, passes.
inline void write_trick(Writer& w, const GameState& s, Relative rel) {
  const bool leading = s.is_leading();
  float* p = w.slice(6);
  if (!leading) counts(s.top().reading, p);
  p = w.slice(7);
  if (!leading) p[static_cast<int>(s.top().kind)] = 1;
  w.slice(8)[0] = leading ? 0.0f : static_cast<float>(s.top().size) / kHandSize;
  w.slice(9)[0] = leading ? 0.0f : static_cast<float>(s.top().stars) / 18;
  p = w.slice(10);
  if (!leading) p[rel(s.top_owner())] = 1;
  w.slice(11)[0] = leading ? 1.0f : 0.0f;
  w.slice(12)[0] = static_cast<float>(s.passes()) / 3;
}

// Slice 13: the last kRecentActions actions, oldest first, one row each.
inline void write_recent(Writer& w, std::span<const Action> recent, Relative rel) {
  float* p = w.slice(13);
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
}

// Slices 14-18: finishing places, bombs, most stars, star level and scores per seat.
inline void write_seat_tallies(Writer& w, const Variant& v, const GameState& s, Relative rel) {
  float* p = w.slice(14);
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
}

// Slice 19: the variant's rules.
inline void write_variant(Writer& w, const Variant& v) {
  float* p = w.slice(19);
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
}

}  // namespace

// --- observation ----------------------------------------------------------

int observation_size() {
  static const int n = [] {
    int total = 0;
    for (const auto& s : kSlices) total += s.size;
    return total;
  }();
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
  Writer w(out, observation_size());
  const Relative rel{seat};
  write_cards(w, v, s, rel);
  write_trick(w, s, rel);
  write_recent(w, recent, rel);
  write_seat_tallies(w, v, s, rel);
  write_variant(w, v);
  if (w.end() != observation_size()) throw std::logic_error("observation size mismatch");
}

int state_size() { return observation_size() + kNumSeats * kNumRanks; }

const std::vector<ObservationSlice>& state_layout() {
  static const std::vector<ObservationSlice> layout = [] {
    std::vector<ObservationSlice> out = observation_layout();
    out.push_back({"all_hands", observation_size(), kNumSeats * kNumRanks,
                   "every hand per rank / 8: self, next, partner, previous (15 each)"});
    return out;
  }();
  return layout;
}

void encode_state(const Variant& v, const GameState& s, std::span<const Action> recent, int seat,
                  float* out) {
  encode_observation(v, s, recent, seat, out);
  float* hands = out + observation_size();
  for (int i = 0; i < kNumSeats; ++i) counts(s.hand((seat + i) % kNumSeats), hands + kNumRanks * i);
}

const std::vector<ObservationSlice>& move_feature_layout() {
  static const std::vector<ObservationSlice> layout = [] {
    const std::vector<std::tuple<const char*, int, const char*>> rows = {
        {"reading", 15, "reading per rank 3..BJ / 8 (the ranks the pattern stands for; 0 for the pass)"},
        {"cards", 15, "cards used per rank 3..BJ / 8 (wild jokers counted as jokers; 0 for the pass)"},
        {"kind", kNumKinds, "kind one-hot in Kind order, single .. heavenly_kings (0 for the pass)"},
        {"size", 1, "cards in the play / 27"},
        {"stars", 1, "stars of the play / 18 (0 for non-bombs)"},
        {"is_pass", 1, "1 for the pass"},
    };
    std::vector<ObservationSlice> out;
    int offset = 0;
    for (const auto& [name, size, meaning] : rows) {
      out.push_back({name, offset, size, meaning});
      offset += size;
    }
    if (offset != kMoveFeatureSize) throw std::logic_error("move feature layout mismatch");
    return out;
  }();
  return layout;
}

void encode_move(const Play& p, float* out) {
  // Every feature written exactly once (no memset first: this runs for each
  // legal move of every step).
  static_assert(kMoveFeatureSize == 30 + kNumKinds + 3);
  const bool pass = is_pass(p);
  counts(p.reading, out);
  counts(p.cards, out + 15);
  for (int k = 0; k < kNumKinds; ++k) out[30 + k] = 0.0f;
  if (!pass) out[30 + static_cast<int>(p.kind)] = 1;
  out[30 + kNumKinds] = static_cast<float>(p.size) / kHandSize;
  out[31 + kNumKinds] = static_cast<float>(p.stars) / 18;
  out[32 + kNumKinds] = pass ? 1.0f : 0.0f;
}

}  // namespace shuangkou
