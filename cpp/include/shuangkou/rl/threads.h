// How many OpenMP threads a batch runner uses.
#pragma once

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

}  // namespace shuangkou
