#include "shuangkou/core/cards.h"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

namespace shuangkou {
namespace {

constexpr std::array<std::string_view, kNumRanks> kRankTokens = {"3", "4", "5", "6", "7", "8",  "9", "T",
                                                                 "J", "Q", "K", "A", "2", "SJ", "BJ"};

}  // namespace

std::string_view rank_token(int rank) {
  if (rank < 0 || rank >= kNumRanks) throw std::out_of_range("rank index out of range");
  return kRankTokens[rank];
}

int parse_rank(std::string_view token) {
  std::string upper(token);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "10") return 7;
  for (int r = 0; r < kNumRanks; ++r)
    if (upper == kRankTokens[r]) return r;
  return -1;
}

CardCounts CardCounts::parse(std::string_view text) {
  CardCounts out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t') ++j;
    std::string_view token = text.substr(i, j - i);
    int rank = parse_rank(token);
    if (rank < 0)
      throw std::invalid_argument("unknown card '" + std::string(token) +
                                  "' (cards are 3 4 5 6 7 8 9 T/10 J Q K A 2 SJ BJ)");
    const int limit = copies_in_two_decks(rank);
    if (out.count(rank) >= limit)
      throw std::invalid_argument("more than " + std::to_string(limit) + " copies of '" +
                                  std::string(rank_token(rank)) + "': two decks hold only " +
                                  std::to_string(limit));
    out.add(rank);
    i = j;
  }
  return out;
}

bool CardCounts::contains(CardCounts other) const {
  // Per-nibble a >= b, in 8-bit lanes (even and odd nibbles) so no borrow
  // crosses a lane: (a | 0x10) - b keeps bit 4 iff a >= b.
  constexpr uint64_t kLow = 0x0F0F0F0F0F0F0F0FULL;
  constexpr uint64_t kGuard = 0x1010101010101010ULL;
  const uint64_t even = ((bits_ & kLow) | kGuard) - (other.bits_ & kLow);
  const uint64_t odd = (((bits_ >> 4) & kLow) | kGuard) - ((other.bits_ >> 4) & kLow);
  return (even & odd & kGuard) == kGuard;
}

bool CardCounts::fits_two_decks() const {
  for (int r = 0; r < kNumRanks; ++r)
    if (count(r) > copies_in_two_decks(r)) return false;
  return (bits_ >> (4 * kNumRanks)) == 0;
}

std::string CardCounts::to_string() const {
  std::string s;
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = count(r); k > 0; --k) {
      if (!s.empty()) s += ' ';
      s += kRankTokens[r];
    }
  return s;
}

int physical_rank(int card_id) {
  if (card_id < 0 || card_id >= kNumPhysicalCards) throw std::out_of_range("card id out of range");
  const int i = card_id % 54;
  return i < 52 ? i % 13 : kSmallJoker + (i - 52);
}

}  // namespace shuangkou
