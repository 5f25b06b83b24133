// shuangkou._core: the one pybind11 module, re-exported by the Python package.
// It converts types and releases the GIL; logic lives in the C++ core. Each
// binding file registers one area.
#include "common.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Shuangkou (双扣) rules core: card parsing, pattern reading, comparison, move generation";
  shuangkou_py::bind_rules(m);
  shuangkou_py::bind_game(m);
  shuangkou_py::bind_infoset(m);
  shuangkou_py::bind_selfplay(m);
  shuangkou_py::bind_envs(m);
  shuangkou_py::bind_qnet(m);
  shuangkou_py::bind_bots(m);
  shuangkou_py::bind_label(m);
  // Which build this is: "x86-64-v2" (the baseline), "x86-64-v3" (chosen at
  // import where the CPU has AVX2 and FMA), "native" or "default".
  m.attr("ARCH") = SHUANGKOU_ARCH;
}
