// Cards and hands.
//
// Suits never matter in play, so a hand is a count per rank. `CardCounts`
// packs the 15 counts as 4-bit nibbles of one uint64_t (rank r in bits
// 4r..4r+3): compact, trivially copyable, cheap to compare, hash, add and
// subtract. Physical card ids (0..107, with suits) exist only for dealing and
// records.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shuangkou {

// Rank indices, low to high: 3 4 5 6 7 8 9 T J Q K A 2 SJ BJ.
inline constexpr int kNumRanks = 15;
inline constexpr int kNumNaturalRanks = 13;   // 3..2: ranks a wild may stand for
inline constexpr int kNumSequenceRanks = 12;  // 3..A: ranks allowed in sequences
inline constexpr int kRankAce = 11;
inline constexpr int kRankTwo = 12;
inline constexpr int kSmallJoker = 13;
inline constexpr int kBigJoker = 14;
inline constexpr int kCopiesPerRank = 8;   // 4 suits x 2 decks
inline constexpr int kCopiesPerJoker = 2;  // one per deck
// How many copies of `rank` two decks hold: the one rule behind every
// "more than two decks" check (CardCounts::fits_two_decks and the messages).
inline constexpr int copies_in_two_decks(int rank) {
  return rank >= kSmallJoker ? kCopiesPerJoker : kCopiesPerRank;
}
inline constexpr int kNumPhysicalCards = 108;
inline constexpr int kHandSize = 27;  // cards dealt to each player

// Token of a rank: "3".."9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ".
std::string_view rank_token(int rank);
// Rank of a token ("10" is accepted for "T"); -1 if unknown.
int parse_rank(std::string_view token);

namespace detail {
// kSpreadByte[b]: the 8 bits of b spread into 8 nibbles (bit i -> bit 4i).
inline constexpr std::array<uint64_t, 256> kSpreadByte = [] {
  std::array<uint64_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int i = 0; i < 8; ++i)
      if (b & (1 << i)) t[b] |= uint64_t{1} << (4 * i);
  return t;
}();
// kSpreadEven[b]: bit i of b -> bit 2i.
inline constexpr std::array<uint16_t, 256> kSpreadEven = [] {
  std::array<uint16_t, 256> t{};
  for (int b = 0; b < 256; ++b)
    for (int i = 0; i < 8; ++i)
      if (b & (1 << i)) t[b] = static_cast<uint16_t>(t[b] | (1u << (2 * i)));
  return t;
}();
// Gathers the low bit of each byte of x into an 8-bit mask (byte i -> bit i).
constexpr uint32_t gather_byte_lsbs(uint64_t x) {
  return static_cast<uint32_t>(((x & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
}
}  // namespace detail

// Spreads a 16-bit rank mask into nibbles: bit r set -> nibble r = 1.
constexpr uint64_t spread_mask(uint32_t mask) {
  return detail::kSpreadByte[mask & 0xFF] | (detail::kSpreadByte[(mask >> 8) & 0xFF] << 32);
}

// A multiset of cards by rank. Counts are 0..15 per rank (a hand never holds
// more than 8 of a rank; a reading of a bomb can hold up to 12).
class CardCounts {
 public:
  constexpr CardCounts() = default;
  constexpr explicit CardCounts(uint64_t bits) : bits_(bits) {}

  // Parses a card string ("5 6 T J BJ"); throws std::invalid_argument naming
  // the bad token, or the rank of which there are more copies than two decks
  // hold.
  static CardCounts parse(std::string_view text);

  constexpr uint64_t bits() const { return bits_; }
  constexpr int count(int rank) const { return static_cast<int>((bits_ >> (4 * rank)) & 0xF); }
  constexpr void add(int rank, int n = 1) { bits_ += static_cast<uint64_t>(n) << (4 * rank); }
  constexpr void remove(int rank, int n = 1) { bits_ -= static_cast<uint64_t>(n) << (4 * rank); }
  // Total number of cards: nibbles summed pairwise into bytes, then all
  // bytes with one multiply.
  constexpr int size() const {
    const uint64_t bytes = (bits_ & 0x0F0F0F0F0F0F0F0FULL) + ((bits_ >> 4) & 0x0F0F0F0F0F0F0F0FULL);
    return static_cast<int>((bytes * 0x0101010101010101ULL) >> 56);
  }
  constexpr bool empty() const { return bits_ == 0; }
  // Number of jokers (SJ + BJ).
  constexpr int jokers() const { return count(kSmallJoker) + count(kBigJoker); }
  // The cards without jokers.
  constexpr CardCounts naturals() const {
    return CardCounts(bits_ & ((uint64_t{1} << (4 * kNumNaturalRanks)) - 1));
  }
  // Mask of ranks holding at least `k` cards (1 <= k <= 15): count plane k.
  // SWAR: even and odd nibbles in 8-bit lanes, + (16 - k) carries into bit 4
  // exactly where count >= k.
  constexpr uint32_t plane(int k) const {
    constexpr uint64_t kLow = 0x0F0F0F0F0F0F0F0FULL;
    const uint64_t add = static_cast<uint64_t>(16 - k) * 0x0101010101010101ULL;
    const uint32_t even = detail::gather_byte_lsbs(((bits_ & kLow) + add) >> 4);
    const uint32_t odd = detail::gather_byte_lsbs((((bits_ >> 4) & kLow) + add) >> 4);
    return detail::kSpreadEven[even] | static_cast<uint32_t>(detail::kSpreadEven[odd]) << 1;
  }
  // True iff every rank holds at least as many cards here as in `other`.
  bool contains(CardCounts other) const;
  // True iff no rank exceeds what two decks hold (8 per rank, 2 per joker).
  bool fits_two_decks() const;

  // Card string, low to high, jokers last: "5 6 7 8 BJ".
  std::string to_string() const;

  constexpr CardCounts operator+(CardCounts o) const { return CardCounts(bits_ + o.bits_); }
  // Requires contains(o).
  constexpr CardCounts operator-(CardCounts o) const { return CardCounts(bits_ - o.bits_); }
  constexpr bool operator==(const CardCounts&) const = default;

 private:
  uint64_t bits_ = 0;
};

// Physical cards: id = deck * 54 + i, i in 0..53; i < 52 is suit i / 13
// (S H D C) and rank i % 13; 52 is SJ, 53 is BJ.
int physical_rank(int card_id);

}  // namespace shuangkou
