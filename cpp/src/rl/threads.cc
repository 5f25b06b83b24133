#include "shuangkou/rl/threads.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shuangkou {

int resolve_threads(int requested) {
  if (requested < 0 || requested > kMaxThreads)
    throw std::invalid_argument("threads must be 0 (every core) or 1.." + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(requested));
  if (requested == 0) return std::clamp(omp_get_max_threads(), 1, kMaxThreads);
  return requested;
}

}  // namespace shuangkou
