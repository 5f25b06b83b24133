// Fuzz target for the deal record reader, shuangkou::Game::from_json.
//
// Property: from_json returns a Game or throws std::invalid_argument; any
// other exception escapes (std::terminate aborts the run), and crashes and
// sanitizer reports are failures too. A record that replays must write
// itself back: from_json(g.to_json()) replays to the same to_json().
//
// Raw bytes alone rarely get past the JSON syntax and the first keys, so most
// inputs instead mutate one of a few real records built at start-up (seeded
// random deals of three variants, finished and unfinished, dealt and set):
//   byte 0      the mutation (below)
//   byte 1      which record
//   bytes 2..5  two 16-bit numbers: positions, lengths, table indices
//   bytes 6..   the payload the mutation inserts or draws from
// Builds as a libFuzzer target with clang (-fsanitize=fuzzer) or with the
// random-input driver record_driver.cc beside it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cards.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/rng.h"
#include "shuangkou/core/variant.h"

namespace {

using shuangkou::Game;

void check(bool ok, const char* what, const std::string& record) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\nrecord (%zu bytes): %.2000s\n", what, record.size(),
               record.c_str());
  std::abort();
}

// A real record and the spans [begin, end) of every JSON value in it (keys
// included), so mutations can replace whole values rather than random bytes.
struct Record {
  std::string text;
  std::vector<std::pair<size_t, size_t>> spans;
  // The spans outside the "moves" list (format, variant, seed, hands, leader,
  // finish_order, scores...): few, but each read once, so picked half the time.
  std::vector<std::pair<size_t, size_t>> header_spans;
};

// Records the value spans of well-formed JSON (our own records: shallow, so
// recursion is fine here; the input never goes through this).
class SpanScanner {
 public:
  SpanScanner(const std::string& s, std::vector<std::pair<size_t, size_t>>& out) : s_(s), out_(out) {}
  void run() { value(); }

 private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  void value() {
    ws();
    const size_t begin = i_;
    if (i_ >= s_.size()) return;
    const char c = s_[i_];
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++i_;
      ws();
      while (i_ < s_.size() && s_[i_] != close) {
        value();  // the key of an object member, or an element
        ws();
        if (c == '{' && i_ < s_.size() && s_[i_] == ':') {
          ++i_;
          value();
          ws();
        }
        if (i_ < s_.size() && s_[i_] == ',') ++i_;
        ws();
      }
      ++i_;
    } else if (c == '"') {
      ++i_;
      while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
      ++i_;
    } else {
      while (i_ < s_.size() && std::string_view(",]}: \n").find(s_[i_]) == std::string_view::npos) ++i_;
    }
    out_.emplace_back(begin, std::min(i_, s_.size()));
  }

  const std::string& s_;
  std::vector<std::pair<size_t, size_t>>& out_;
  size_t i_ = 0;
};

Record make_record(const Game& g) {
  Record r{g.to_json(), {}, {}};
  SpanScanner(r.text, r.spans).run();
  const size_t key = r.text.find("\"moves\":");
  size_t begin = 0, end = 0;
  for (const auto& s : r.spans)
    if (s.first == key + 8) begin = s.first, end = s.second;
  for (const auto& s : r.spans)
    if (s.second <= begin || s.first >= end) r.header_spans.push_back(s);
  return r;
}

// Plays random moves (the built-in random bot) until the deal is over or
// `max_actions` actions have been taken.
void play(Game& g, uint64_t seed, int max_actions) {
  shuangkou::SplitMix64 rng(seed ^ 0x5EEDULL);
  shuangkou::MoveList scratch;
  for (int n = 0; n < max_actions && !g.state().is_over(); ++n)
    g.apply(shuangkou::random_action(g.variant(), g.state(), scratch, rng));
}

const std::vector<Record>& records() {
  static const std::vector<Record> all = [] {
    using shuangkou::CardCounts;
    using shuangkou::preset;
    std::vector<Record> out;
    // classic: previous_winner first lead, bombs by count.
    // baibian: big jokers wild, revealed_card first lead, seat swaps.
    // qianbian: both jokers wild, chain bombs, bombs by stars.
    const char* kVariants[] = {"classic", "baibian", "qianbian"};
    uint64_t seed = 1;
    for (const char* name : kVariants) {
      const shuangkou::Variant v = preset(name);
      for (int k = 0; k < 2; ++k, ++seed) {
        Game full(v, seed, k == 1 ? 2 : -1);
        play(full, seed, 100000);
        out.push_back(make_record(full));
      }
      Game partial(v, seed * 7919, -1);  // unfinished: "over": false, null scores
      play(partial, seed, 9);
      out.push_back(make_record(partial));
    }
    // A set deal (hands given, "dealt": false), short enough to finish.
    const std::array<CardCounts, shuangkou::kNumSeats> hands = {
        CardCounts::parse("3 3 4 4 5 6 7 8 9"), CardCounts::parse("5 5 5 5 T J"),
        CardCounts::parse("Q Q K A 2"), CardCounts::parse("BJ SJ 2 2 9 9")};
    for (const char* name : kVariants) {
      Game set(preset(name), hands, 1);
      play(set, 77, 100000);
      out.push_back(make_record(set));
    }
    for (const Record& r : out) {
      // The seeds must themselves be valid records.
      const Game g = Game::from_json(r.text);
      check(g.to_json() == r.text, "a start-up record does not replay to itself", r.text);
      check(!r.header_spans.empty() && r.header_spans.size() < r.spans.size(), "no header spans", r.text);
    }
    return out;
  }();
  return all;
}

// Values worth splicing in: boundaries of the integer types the reader casts
// to, overflowing and non-finite numbers, wrong types, names it knows.
// clang-format off
const char* const kTokens[] = {
    "1e400", "-1e400", "1e-400", "-1", "0", "-0", "-0.0", "1", "2", "3", "4", "5", "7", "-2", "0.5", "1.5",
    "3.0", "127", "128", "255", "256", "-129", "32767", "32768", "65535", "65536", "2147483647",
    "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296", "4294967297",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "1e19", "1e20", "123456789012345678901234567890",
    "NaN", "Infinity", "-Infinity", "true", "false", "null", "\"\"", "\" \"", "\"0\"", "\"-1\"",
    "\"true\"", "\"pass\"", "\"single\"", "\"pair\"", "\"bomb\"", "\"chain_bomb\"",
    "\"uneven_chain_bomb\"", "\"three_kings\"", "\"heavenly_kings\"", "\"double\"", "\"draw\"",
    "\"none\"", "\"BJ\"", "\"both\"", "\"stars\"", "\"count\"", "\"revealed_card\"", "\"previous_winner\"",
    "\"random\"", "\"fixed\"", "\"3\"", "\"BJ BJ SJ SJ\"", "\"3 3 3 3 3 3 3 3 3\"", "\"2 2 2 2 2 2 2 2\"",
    "\"3 4 5 6 7 8 9 T J Q K A 2\"", "\"10 10 10\"", "\"X\"", "\"\\u0000\"", "\"\\ud800\"",
    "\"\\udfff\\ud800\"", "\"\xff\xfe\"", "\"\xc0\x80\"", "\"\xed\xa0\x80\"", "[]", "{}", "[0]", "[-1]",
    "[0,1,2,3]", "[0,0,0,0]", "[4,5]", "[[]]", "{\"\":0}", "{\"seat\":0,\"kind\":\"pass\"}",
    "{\"seat\":0,\"kind\":\"single\",\"cards\":\"3\"}", "{\"seat\":-1,\"kind\":\"pass\"}",
    "{\"seat\":4294967296,\"kind\":\"pass\"}", "\"shuangkou-deal/1\"", "\"format\"", "\"moves\"",
    "\"variant\"", "\"hands\"", "\"leader\"", "\"seed\"", "\"dealt\"", "\"over\"",
};
// clang-format on
constexpr size_t kNumTokens = sizeof(kTokens) / sizeof(kTokens[0]);

// Nesting depths: the shallow ones reach the reader's type checks, the deep
// ones its recursion (nlohmann's dump and comparisons recurse per level).
constexpr size_t kDepths[] = {1, 2, 16, 200, 1000, 10000, 50000, 100000, 200000, 500000};
constexpr size_t kNumDepths = sizeof(kDepths) / sizeof(kDepths[0]);

std::string nesting(size_t depth, int form, std::string_view inner) {
  std::string s;
  switch (form % 4) {
    case 0:  // [[[...inner...]]]
      s.reserve(2 * depth + inner.size());
      s.append(depth, '[').append(inner).append(depth, ']');
      break;
    case 1: {  // {"a":{"a":...inner...}}
      s.reserve(6 * depth + inner.size());
      for (size_t i = 0; i < depth; ++i) s += "{\"a\":";
      s.append(inner).append(depth, '}');
      break;
    }
    case 2:  // [{"a":[{"a":...]}]  mixed
      for (size_t i = 0; i < depth; ++i) s += i % 2 ? "{\"a\":" : "[";
      s.append(inner);
      for (size_t i = depth; i-- > 0;) s += i % 2 ? '}' : ']';
      break;
    default:  // unclosed: the parser must reject it
      s.append(depth, '[').append(inner);
      break;
  }
  return s;
}

std::string huge_string(size_t n, int form) {
  static const char* const kUnits[] = {"A", "\\u0041", "\\\"", "3 ", "\\ud83c\\udca1", "\xe5\x8f\x8c"};
  std::string s = "\"";
  const std::string_view unit = kUnits[form % 6];
  s.reserve(n * unit.size() + 2);
  for (size_t i = 0; i < n; ++i) s += unit;
  return s + "\"";
}

void replace(std::string& s, size_t begin, size_t end, std::string_view with) {
  s.replace(begin, end - begin, with);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<Record>& recs = records();
  if (size == 0) return 0;
  const uint8_t op = data[0];
  const auto byte = [&](size_t i) -> unsigned { return i < size ? data[i] : 0; };
  const Record& rec = recs[byte(1) % recs.size()];
  const unsigned a = byte(2) | byte(3) << 8;
  const unsigned b = byte(4) | byte(5) << 8;
  const std::string_view payload =
      size > 6 ? std::string_view(reinterpret_cast<const char*>(data) + 6, size - 6) : std::string_view();
  const auto& spans = a & 0x8000 ? rec.header_spans : rec.spans;
  const std::pair<size_t, size_t> span = spans[(a & 0x7FFF) % spans.size()];

  std::string text;
  switch (op % 12) {
    case 0:  // raw bytes
      text.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
      break;
    case 1: {  // overwrite a byte range with the payload
      text = rec.text;
      const size_t at = a % (text.size() + 1);
      replace(text, at, std::min(text.size(), at + b % 64), payload);
      break;
    }
    case 2:  // insert the payload
      text = rec.text;
      text.insert(a % (text.size() + 1), payload);
      break;
    case 3: {  // delete a byte range
      text = rec.text;
      const size_t at = a % (text.size() + 1);
      text.erase(at, b % 256);
      break;
    }
    case 4:  // a value replaced by the payload
      text = rec.text;
      replace(text, span.first, span.second, payload);
      break;
    case 5:  // a value replaced by a token
      text = rec.text;
      replace(text, span.first, span.second, kTokens[b % kNumTokens]);
      break;
    case 6:  // a value replaced by nesting, the payload or a token inside
      text = rec.text;
      replace(text, span.first, span.second,
              nesting(kDepths[b % kNumDepths] + (b >> 8) % 7, static_cast<int>(b >> 4),
                      b & 0x8000 && !payload.empty() ? payload.substr(0, 64)
                                                     : std::string_view(kTokens[(b >> 6) % kNumTokens])));
      break;
    case 7:  // a value replaced by a long string
      text = rec.text;
      replace(text, span.first, span.second, huge_string(size_t{1} << (b % 21), static_cast<int>(b >> 5)));
      break;
    case 8: {  // a value replaced by another value of the record
      text = rec.text;
      const auto other = spans[b % spans.size()];
      replace(text, span.first, span.second, rec.text.substr(other.first, other.second - other.first));
      break;
    }
    case 9: {  // the text between two values removed (a "key": value pair, list items)
      text = rec.text;
      const size_t other = spans[b % spans.size()].first;
      replace(text, std::min(span.first, other), std::max(span.first, other), "");
      break;
    }
    case 10: {  // two records spliced: a prefix of one, a suffix of another
      const Record& other = recs[byte(6) % recs.size()];
      text = rec.text.substr(0, a % (rec.text.size() + 1)) + other.text.substr(b % (other.text.size() + 1));
      break;
    }
    default: {  // several values replaced by tokens, one per payload pair
      text = rec.text;
      // Replace from the last span back so earlier spans stay where they are.
      std::vector<std::pair<std::pair<size_t, size_t>, const char*>> edits;
      for (size_t i = 0; i + 1 < payload.size() && edits.size() < 8; i += 2) {
        const auto s = spans[(static_cast<uint8_t>(payload[i]) * 131u + a) % spans.size()];
        edits.push_back({s, kTokens[static_cast<uint8_t>(payload[i + 1]) % kNumTokens]});
      }
      std::sort(edits.begin(), edits.end(),
                [](const auto& x, const auto& y) { return x.first.first > y.first.first; });
      size_t limit = text.size();
      for (const auto& [s, token] : edits) {
        if (s.second > limit) continue;  // nested in one already replaced
        replace(text, s.first, s.second, token);
        limit = s.first;
      }
      break;
    }
  }

  std::string written;
  try {
    written = Game::from_json(text).to_json();
  } catch (const std::invalid_argument&) {
    return 0;  // rejected cleanly; any other exception escapes
  }
  // It replayed: its own record must replay to the same record.
  std::string again;
  try {
    again = Game::from_json(written).to_json();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "rejected: %s\n", e.what());
    check(false, "the record of a replayed deal does not replay", written);
  }
  check(again == written, "the record of a replayed deal replays differently", written);
  return 0;
}
