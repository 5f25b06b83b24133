// A resolved rule set: a validated Variant, the name it was made from, and
// its action catalogue. Every front end (Game, Match, VectorEnv, self-play,
// the environments) takes one; the Python package's `Rules` is this object.
//
// Copies are cheap and share one immutable body: the catalogue is built on
// first use (thread-safe) and then shared by every copy, so a VectorEnv, the
// envs over it and the Python `Rules` they came from never build it twice.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "shuangkou/core/catalogue.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

class Rules {
 public:
  // The classic preset.
  Rules();
  // `name` labels the rule set in summaries and reprs ("qianbian max_bomb=10").
  Rules(std::string name, const Variant& v);
  // A preset by name; throws std::invalid_argument naming the known ones.
  static Rules preset(std::string_view name);

  const std::string& name() const { return body_->name; }
  const Variant& variant() const { return body_->variant; }
  // The fixed action space of this rule set (built on first call).
  const ActionCatalogue& catalogue() const;
  // True when the catalogue has been built (for tests of sharing).
  bool catalogue_built() const { return body_->catalogue != nullptr; }

  // Same variant (names may differ).
  bool operator==(const Rules& o) const { return variant() == o.variant(); }

 private:
  struct Body {
    std::string name;
    Variant variant;
    mutable std::once_flag once;
    mutable std::unique_ptr<const ActionCatalogue> catalogue;
  };
  std::shared_ptr<const Body> body_;
};

}  // namespace shuangkou
