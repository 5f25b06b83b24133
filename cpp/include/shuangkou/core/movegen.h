// Canonical move generation (docs/rules.md §14).
//
// One move per pattern (kind + per-rank counts of the reading). The cards of a
// move are chosen natural first, then wild SJ, then wild BJ; a pattern whose
// cards so chosen read higher as another pattern of the same kind is not a
// move of its own. Output goes into a caller-provided MoveList: the hot path
// allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <new>

#include "shuangkou/core/cards.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// Capacity of a MoveList. No 27-card hand in any preset comes close (the
// largest seen in an adversarial search is recorded in
// tests/cpp/movegen_test.cc); a generator that would exceed it throws
// std::length_error rather than drop moves.
inline constexpr int kMaxMoves = 2048;

// A fixed-capacity list of plays. Constructing one initialises nothing, so
// keep one per thread and reuse it.
class MoveList {
 public:
  MoveList() {}
  MoveList(const MoveList&) = delete;
  MoveList& operator=(const MoveList&) = delete;

  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Play& operator[](int i) const { return storage_.plays[i]; }
  const Play* begin() const { return storage_.plays; }
  const Play* end() const { return storage_.plays + size_; }

  void clear() { size_ = 0; }
  void push_back(const Play& p) {
    if (size_ == kMaxMoves) overflow();
    new (&storage_.plays[size_++]) Play(p);
  }

 private:
  [[noreturn]] static void overflow();
  union Storage {
    Storage() {}
    Play plays[kMaxMoves];
  } storage_;
  int size_ = 0;
};

// Every canonical move when leading a trick (`out` is cleared first).
void generate_leads(const Variant& v, CardCounts hand, MoveList& out);

// Every canonical move that beats `previous` (`out` is cleared first). Passing
// is always allowed and is not listed.
void generate_follows(const Variant& v, CardCounts hand, const Play& previous, MoveList& out);

}  // namespace shuangkou
