#include "shuangkou/rl/threads.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace shuangkou {
namespace {

// The most threads shown to start together so far (OpenMP keeps its threads
// once made, so a count that started once starts again).
std::atomic<int> started{1};

// Throws std::invalid_argument unless `n` threads can run at once: OpenMP aborts
// the whole process when it cannot create a thread (libgomp: "Thread creation
// failed"), so runners try first with threads that wait for each other and end.
void check_threads_start(int n) {
  if (n <= started.load(std::memory_order_relaxed)) return;
  std::latch all_made(1);
  std::vector<std::thread> made;
  made.reserve(static_cast<size_t>(n - 1));
  std::string failed;
  try {
    for (int i = 1; i < n; ++i) made.emplace_back([&all_made] { all_made.wait(); });
  } catch (const std::system_error& e) {
    failed = e.what();
  }
  all_made.count_down();
  for (std::thread& t : made) t.join();
  if (!failed.empty())
    throw std::invalid_argument(
        "cannot start " + std::to_string(n) + " threads (only " + std::to_string(made.size() + 1) +
        " started: " + failed +
        "): the process's limits (ulimit -u, ulimit -v, a container's pids limit) allow fewer; "
        "ask for fewer threads");
  int seen = started.load();
  while (seen < n && !started.compare_exchange_weak(seen, n)) {
  }
}

}  // namespace

void FirstError::keep(std::exception_ptr e) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error_) error_ = std::move(e);
  failed_.store(true, std::memory_order_relaxed);
}

int resolve_threads(int requested) {
  if (requested < 0 || requested > kMaxThreads)
    throw std::invalid_argument("threads must be 0 (every core) or 1.." + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(requested));
  const int n = requested == 0 ? std::clamp(omp_get_max_threads(), 1, kMaxThreads) : requested;
  check_threads_start(n);
  return n;
}

}  // namespace shuangkou
