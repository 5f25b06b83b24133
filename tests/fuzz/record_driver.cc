// Random-input driver for the mutation fuzz targets (record_fuzz.cc,
// qnet_fuzz.cc) where libFuzzer is not available (g++).
//   NAME [--runs N] [--seed S] [--memory-limit-mb M]   N random inputs from seed S
//   NAME FILE...                                       each file as one input (a crash file)
// Inputs are random bytes shaped for the targets' layout: a mutation byte, a
// subject byte, two 16-bit numbers, then a payload of random bytes, JSON-ish
// characters or JSON fragments. On a crash or an abort (an escaped exception,
// a broken invariant) the input is written to crash-NAME-S-N in the working
// directory and its name printed. --memory-limit-mb caps the address space
// (RLIMIT_AS): an allocation past it fails with std::bad_alloc, which no
// target accepts, so unbounded allocation is caught too.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

const std::string* g_input = nullptr;
char g_crash_name[128] = "";

void on_fatal_signal(int sig) {
  // Async-signal-safe only: write the input, say where, die by the signal.
  if (g_input && g_crash_name[0]) {
    const int fd = open(g_crash_name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = write(fd, g_input->data(), g_input->size());
      (void)ignored;
      close(fd);
    }
    const char msg[] = "\nfuzz: the failing input is in ";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    ignored = write(2, g_crash_name, std::strlen(g_crash_name));
    ignored = write(2, "\n", 1);
    (void)ignored;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_handlers() {
  // An alternate stack, so a stack overflow still reaches the handler.
  static std::vector<char> alt(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
}

// clang-format off
const char* const kFragments[] = {
    "[", "]", "{", "}", ",", ":", "\"", "\\", "\\u", "0", "1", "-1", "1e400", "18446744073709551616",
    "4294967296", "null", "true", "false", "\"pass\"", "\"seat\"", "\"kind\"", "\"cards\"", "\"reading\"",
    "\"stars\"", "\"moves\"", "\"hands\"", "\"3 3 3 3\"", "\"BJ\"", " ", "\n", "\\ud800", "\xff",
};
// clang-format on

}  // namespace

int main(int argc, char** argv) {
  install_handlers();
  long long runs = 40000;
  uint64_t seed = 1;
  long long memory_mb = 0;
  std::vector<std::string> files;
  const char* slash = std::strrchr(argv[0], '/');
  const char* name = slash ? slash + 1 : argv[0];
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--memory-limit-mb") && i + 1 < argc)
      memory_mb = std::atoll(argv[++i]);
    else if (argv[i][0] != '-')
      files.push_back(argv[i]);
    else {
      std::fprintf(stderr, "usage: %s [--runs N] [--seed S] [--memory-limit-mb M] | FILE...\n", argv[0]);
      return 2;
    }
  }
  if (memory_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(memory_mb) << 20;
    const struct rlimit limit { bytes, bytes };
    if (setrlimit(RLIMIT_AS, &limit) != 0) std::perror("setrlimit");
  }
  std::string input;
  g_input = &input;
  if (!files.empty()) {
    for (const std::string& file : files) {
      std::ifstream f(file, std::ios::binary);
      if (!f) {
        std::fprintf(stderr, "cannot read %s\n", file.c_str());
        return 2;
      }
      input.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
      std::printf("%s: %s passes\n", name, file.c_str());
    }
    return 0;
  }
  static const char kJsonChars[] = "[]{}\":,0123456789-+.eE tfnulrs\\";
  std::mt19937_64 rng(seed);
  for (long long run = 0; run < runs; ++run) {
    std::snprintf(g_crash_name, sizeof g_crash_name, "crash-%.64s-%llu-%lld", name,
                  static_cast<unsigned long long>(seed), run);
    input.clear();
    for (int i = 0; i < 6; ++i) input += static_cast<char>(rng() & 0xFF);
    const int mode = static_cast<int>(rng() % 4);
    const int n = static_cast<int>(rng() % 48);
    for (int i = 0; i < n; ++i) {
      const uint64_t x = rng();
      if (mode == 0)
        input += static_cast<char>(x & 0xFF);
      else if (mode == 1)
        input += kJsonChars[x % (sizeof kJsonChars - 1)];
      else
        input += kFragments[x % (sizeof kFragments / sizeof kFragments[0])];
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("%s: %lld inputs, no invariant broken\n", name, runs);
  return 0;
}
