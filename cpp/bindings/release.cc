#include "release.h"

#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

namespace shuangkou_py {

BusyGuard::BusyGuard(std::atomic<bool>& busy, const char* what) : busy_(busy) {
  if (busy_.exchange(true))
    throw std::runtime_error(std::string(what) +
                             ": the object is in use by another thread (its calls must not overlap; use one "
                             "object per thread, or a lock)");
}

void CallingThread::call(const std::function<void()>& fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) throw sk::Cancelled();
  request_ = &fn;
  served_ = false;
  cv_.notify_all();
  cv_.wait(lock, [&] { return served_; });
  request_ = nullptr;
  if (std::exception_ptr e = std::exchange(request_error_, nullptr)) {
    lock.unlock();
    std::rethrow_exception(e);
  }
}

void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work) {
  sk::CancelFlag cancel{false};
  CallingThread caller;
  std::exception_ptr failure;
  std::optional<py::error_already_set> signal;  // what a signal handler raised
  std::thread worker([&] {
    try {
      work(cancel, caller);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(caller.mutex_);
    caller.finished_ = true;
    caller.cv_.notify_all();
  });
  while (true) {
    bool finished = false, request = false;
    {
      py::gil_scoped_release nogil;  // (the mutex is never held while the GIL is awaited)
      std::unique_lock<std::mutex> lock(caller.mutex_);
      caller.cv_.wait_for(lock, std::chrono::milliseconds(100),
                          [&] { return caller.finished_ || (caller.request_ && !caller.served_); });
      finished = caller.finished_;
      request = caller.request_ && !caller.served_;
    }
    if (finished) break;
    if (request) {
      std::exception_ptr error;
      if (signal) {
        error = std::make_exception_ptr(sk::Cancelled());
      } else {
        try {
          (*caller.request_)();
        } catch (...) {
          error = std::current_exception();
        }
      }
      std::lock_guard<std::mutex> lock(caller.mutex_);
      caller.request_error_ = error;
      caller.served_ = true;
      caller.cv_.notify_all();
      continue;
    }
    if (!signal && PyErr_CheckSignals() != 0) {
      signal.emplace();  // takes the pending exception (KeyboardInterrupt)
      cancel.store(true);
      std::lock_guard<std::mutex> lock(caller.mutex_);
      caller.stopping_ = true;
    }
  }
  {
    py::gil_scoped_release nogil;
    worker.join();
  }
  if (signal) throw std::move(*signal);  // the worker's Cancelled, or anything else, gives way to it
  if (failure) std::rethrow_exception(failure);
}

void run_released(bool interruptible, const std::function<void(const sk::CancelFlag*)>& work) {
  if (interruptible) {
    run_interruptible([&](const sk::CancelFlag& cancel, CallingThread&) { work(&cancel); });
    return;
  }
  py::gil_scoped_release release;
  work(nullptr);
}

}  // namespace shuangkou_py
