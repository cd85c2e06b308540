// sdk/nn_python.h: torch/python.h's counterpart: sdk/extension.h plus python::bind_module, which
// binds an nn::Module subclass to pybind11 with its forward and its parameters as sdk Tensors.
#ifndef SDK_NN_PYTHON_H_
#define SDK_NN_PYTHON_H_

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "sdk/extension.h"
#include "sdk/nn.h"

namespace sdk {
namespace python {

namespace detail {

template <typename M, typename = void>
struct has_single_forward : std::false_type {};
template <typename M>
struct has_single_forward<M, std::void_t<decltype(&M::forward)>> : std::true_type {};

inline pybind11::dict to_dict(const OrderedDict<std::string, Tensor>& items) {
  pybind11::dict out;
  for (const auto& item : items) out[pybind11::str(item.key())] = item.value();
  return out;
}

// The Module methods every bound module gets (Python spelling as torch.nn.Module's).
template <typename M, typename Class>
void add_module_methods(Class& cls) {
  namespace py = pybind11;
  cls.def("parameters", &M::parameters, py::arg("recurse") = true)
      .def(
          "named_parameters",
          [](M& m, bool recurse) { return to_dict(m.named_parameters(recurse)); },
          py::arg("recurse") = true)
      .def("buffers", &M::buffers, py::arg("recurse") = true)
      .def(
          "named_buffers", [](M& m, bool recurse) { return to_dict(m.named_buffers(recurse)); },
          py::arg("recurse") = true)
      .def(
          "train", [](M& m, bool on) { m.train(on); }, py::arg("mode") = true)
      .def("eval", [](M& m) { m.eval(); })
      .def_property_readonly("training", [](const M& m) { return m.is_training(); })
      .def(
          "zero_grad", [](M& m, bool set_to_none) { m.zero_grad(set_to_none); },
          py::arg("set_to_none") = true)
      .def("name", [](const M& m) { return m.name(); })
      .def("children", [](M& m) {
        py::list out;
        for (const auto& child : m.named_children()) out.append(py::str(child.key()));
        return out;
      });
}

}  // namespace detail

/*! \brief `py::class_<M, std::shared_ptr<M>>` named `name` with the Module methods bound, and
 *  `forward` / `__call__` when M has one (non-overloaded) forward. Add constructors with
 *  `.def(py::init<...>())` as in torch. */
template <typename M, typename... Extra>
pybind11::class_<M, std::shared_ptr<M>> bind_module(pybind11::module_ module, const char* name,
                                                    const Extra&... extra) {
  static_assert(std::is_base_of<nn::Module, M>::value,
                "bind_module: M must derive from nn::Module");
  pybind11::class_<M, std::shared_ptr<M>> cls(module, name, extra...);
  detail::add_module_methods<M>(cls);
  if constexpr (detail::has_single_forward<M>::value) {
    cls.def("forward", &M::forward).def("__call__", &M::forward);
  }
  return cls;
}

}  // namespace python
}  // namespace sdk

#endif  // SDK_NN_PYTHON_H_
