// Cooperative cancellation of long runs (Ctrl-C from Python; docs/errors.md).
// The runners (run_selfplay, VectorEnv, DmcActors) and the search bot poll a
// flag that another thread may set: a runner stops within one move (the
// search bot within one sample of its rollouts) and throws Cancelled. Polling
// is one relaxed atomic load; a null flag is never set.
#pragma once

#include <atomic>
#include <stdexcept>

namespace shuangkou {

using CancelFlag = std::atomic<bool>;

// True once `flag` (null: never) has been set.
inline bool cancel_requested(const CancelFlag* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

// Thrown by a run that stopped because its cancel flag was set.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("interrupted") {}
};

}  // namespace shuangkou
