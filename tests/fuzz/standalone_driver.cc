// Random-input driver for LLVMFuzzerTestOneInput where libFuzzer is not
// available (g++): feeds card-like and raw random strings.
//   reader_fuzz [--runs N] [--seed S]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  long long runs = 100000;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--runs N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  static const char* kTokens[] = {"3", "4",  "5",  "6",  "7", "8", "9", "T",  "J", "Q", "K", "A",
                                  "2", "SJ", "BJ", "10", "X", "",  ",", "  ", "s", "j", "1"};
  std::mt19937_64 rng(seed);
  std::string input;
  for (long long run = 0; run < runs; ++run) {
    input.assign(1, static_cast<char>(rng() & 0xFF));  // variant selector
    const int mode = static_cast<int>(rng() % 8);
    const int n = static_cast<int>(rng() % 30);
    if (mode == 0) {
      for (int i = 0; i < n; ++i) input += static_cast<char>(rng() & 0xFF);
    } else {
      // Mostly valid tokens, concentrated on a few ranks so patterns appear.
      const int base = static_cast<int>(rng() % 13);
      for (int i = 0; i < n; ++i) {
        const uint64_t x = rng();
        uint64_t t = (x % 4 == 0) ? (x >> 8) % 23 : (base + (x >> 8) % 4) % 15;
        if (x % 16 == 1) t = 13 + (x >> 20) % 2;
        input += kTokens[t];
        input += ' ';
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("reader_fuzz: %lld inputs, no invariant broken\n", runs);
  return 0;
}
