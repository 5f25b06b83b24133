// Shared by the binding files of shuangkou._core, one header a concern:
// argument conversion (args.h), the GIL and Ctrl-C (release.h), the rule set
// of a variant argument (rules_arg.h) and result shapes (shapes.h). Type
// conversion only; the rules live in the C++ core.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "args.h"
#include "release.h"
#include "rules_arg.h"
#include "shapes.h"

namespace shuangkou_py {

// Each file registers its part of the module.
void bind_rules(py::module_& m);
void bind_infoset(py::module_& m);
void bind_game(py::module_& m);
void bind_selfplay(py::module_& m);
void bind_envs(py::module_& m);
void bind_qnet(py::module_& m);
void bind_bots(py::module_& m);
void bind_label(py::module_& m);

}  // namespace shuangkou_py
