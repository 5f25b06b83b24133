// How many OpenMP threads a batch runner uses, and how an error leaves them.
#pragma once

#include <atomic>
#include <exception>
#include <mutex>

namespace shuangkou {

// The most threads any runner (self-play, vector env) starts. Far above the
// cores of any machine the simulator runs on; a bound so a typo (200000)
// is an error instead of an OpenMP start-up that exhausts memory.
inline constexpr int kMaxThreads = 1024;

// The thread count to use for a request: 0 means every core OpenMP sees
// (omp_get_max_threads(), at most kMaxThreads); 1..kMaxThreads as given.
// Throws std::invalid_argument naming the limit for anything else, and also
// std::invalid_argument when that many threads cannot start together (the
// process's limits): OpenMP would abort the process there.
int resolve_threads(int requested);

// Carries an exception out of an OpenMP parallel region. One that escapes a
// region's thread ends the whole process (std::terminate), so each iteration's
// work runs through `run`: the first exception is kept, `failed()` tells the
// other iterations to skip their work (an OpenMP loop cannot be left early),
// and `rethrow()`, called after the region, throws it in the calling thread.
// Costs nothing while nothing throws.
class FirstError {
 public:
  template <class F>
  void run(F&& work) noexcept {
    if (failed()) return;
    try {
      work();
    } catch (...) {
      keep(std::current_exception());
    }
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // Throws the first exception kept, if any.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void keep(std::exception_ptr e);
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

}  // namespace shuangkou
