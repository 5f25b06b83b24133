#include "shuangkou/core/rules.h"

#include <utility>

namespace shuangkou {

Rules::Rules() : Rules(preset("classic")) {}

Rules::Rules(std::string name, const Variant& v) {
  auto body = std::make_shared<Body>();
  body->name = std::move(name);
  body->variant = v;
  body_ = std::move(body);
}

Rules Rules::preset(std::string_view name) { return Rules(std::string(name), shuangkou::preset(name)); }

const ActionCatalogue& Rules::catalogue() const {
  std::call_once(body_->once,
                 [this] { body_->catalogue = std::make_unique<const ActionCatalogue>(body_->variant); });
  return *body_->catalogue;
}

}  // namespace shuangkou
