// The largest change one tick may make to a variant (issue 9: "a maximum step per tick,
// up and down, configurable"), so one bad estimate cannot swing a fleet.
#pragma once

#include <algorithm>

namespace capstan {

// 0 means unlimited in that direction.
inline int limit_step(int current, int target, int max_up, int max_down) {
  if (max_up > 0) target = std::min(target, current + max_up);
  if (max_down > 0) target = std::max(target, current - max_down);
  return target;
}

}  // namespace capstan
