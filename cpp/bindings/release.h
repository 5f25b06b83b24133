// The GIL and Ctrl-C: calls that release the GIL, the guard that keeps two
// threads out of one object, and the worker thread that lets the calling
// thread check for signals while C++ plays.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>

#include "shuangkou/core/cancel.h"

namespace py = pybind11;
namespace shuangkou {}
namespace sk = shuangkou;

namespace shuangkou_py {

// Marks an object busy for the length of a call that releases the GIL (and
// of any call touching the same state meanwhile): a second such call from
// another thread raises RuntimeError naming `what` ("VectorEnv.step")
// instead of racing.
class BusyGuard {
 public:
  BusyGuard(std::atomic<bool>& busy, const char* what);
  ~BusyGuard() { busy_.store(false); }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  std::atomic<bool>& busy_;
};

// The thread that called run_interruptible, as seen from its worker.
class CallingThread {
 public:
  // From the worker: runs `fn` on the calling thread, with the GIL held, and
  // waits for it; rethrows here what it threw. Python callbacks (progress,
  // record writers) go through this, so they run where they always ran.
  // Throws sk::Cancelled once the run is being interrupted.
  void call(const std::function<void()>& fn);

 private:
  friend void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work);
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<void()>* request_ = nullptr;  // a call waiting to run
  std::exception_ptr request_error_;
  bool served_ = false;    // the request has run
  bool finished_ = false;  // the worker is done
  bool stopping_ = false;  // interrupted: no more calls
};

// Runs `work` with the GIL released, on a worker thread, while the calling
// thread waits in slices of 100 ms and checks for signals between them
// (PyErr_CheckSignals: on the main thread Python's handlers run, and Ctrl-C
// raises KeyboardInterrupt). When a handler raises, it sets the cancel flag
// `work` is given, which the C++ loops poll, waits for the worker to stop
// (within a move), and raises the handler's exception. Otherwise it returns or
// rethrows as `work` did.
void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work);

// `work` with the GIL released: through run_interruptible where `interruptible`
// (built-in search seats: calls of seconds), else directly on this thread
// (a thread a call would cost the fast paths), with no cancel flag.
void run_released(bool interruptible, const std::function<void(const sk::CancelFlag*)>& work);

}  // namespace shuangkou_py
