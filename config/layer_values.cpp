// One layer's values; see layer_values.hpp.
#include "config/layer_values.hpp"

namespace capstan::config {

Setting make_setting(std::string key, std::string text, Layer layer, std::string where, std::string label,
                     std::string base_dir) {
  Setting s;
  s.key = std::move(key);
  s.text = std::move(text);
  s.origin.layer = layer;
  s.origin.where = std::move(where);
  s.label = std::move(label);
  s.base_dir = std::move(base_dir);
  return s;
}

}  // namespace capstan::config
