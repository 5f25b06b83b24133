// Records of deals and matches: the JSON that Game::to_json / Match::to_json
// write and Game::from_json / Match::from_json read back exactly. The deal
// record's reader and writer live in record.cc, apart from the game's state
// machine; what they share with the match record is here.
#pragma once

#include <cstddef>
#include <string_view>

namespace shuangkou {

// Bounds on a record, far above any real one (a deal has at most a few hundred
// actions: records are a few KB, four levels deep).
inline constexpr size_t kMaxRecordBytes = 1 << 20;
inline constexpr int kMaxRecordDepth = 16;
// A match record holds every deal of the match.
inline constexpr size_t kMaxMatchRecordBytes = size_t{1} << 26;

// Refuses (std::invalid_argument) a text larger than `max_bytes` or nested
// deeper than kMaxRecordDepth, before a JSON library sees it: its recursive
// printer would overflow the stack on deep values. `what` names the kind of
// record in the message ("a deal record").
void check_record_shape(std::string_view text, size_t max_bytes = kMaxRecordBytes,
                        std::string_view what = "a deal record");

}  // namespace shuangkou
