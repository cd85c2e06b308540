// The torch-style glue of the headers in one pybind11 module (tests/core/test_cpp_glue.py):
// util.h, acc_type.h, the error/warning macros, the dispatch variants, parallel_reduce,
// the py alias and the ArrayRef casters of extension.h.
#include <sdk/extension.h>

#include <atomic>
#include <string>
#include <vector>

namespace {

// ---- util.h
int64_t irange_sum(int64_t n) {
  int64_t s = 0;
  for (const auto i : sdk::irange(n)) s += i;
  for (const auto i : sdk::irange(int32_t{2}, int64_t{4})) s += 100 * i;  // 200 + 300
  return s;
}

std::vector<int64_t> dimvector_of(const sdk::Tensor& x) {
  sdk::DimVector sizes(x.sizes());
  sizes.push_back(sdk::ceil_div(x.numel(), int64_t{4}));
  sizes.append(sdk::IntArrayRef({7, 8}));
  sdk::IntArrayRef view = sizes;  // a DimVector goes where an IntArrayRef goes
  return view.vec();
}

std::string optional_and_str(sdk::optional<sdk::Tensor> t, sdk::optional<double> scale) {
  const auto device = sdk::device_of(t ? *t : sdk::Tensor());
  return sdk::str(t.has_value() ? "tensor" : "none", "/", scale.value_or(-1.0), "/",
                  device ? device->str() : std::string("no device"));
}

// ---- error.h
void fail(const std::string& which, int64_t a, int64_t b) {
  if (which == "error") SDK_ERROR("custom failure ", a, " and ", b);
  if (which == "assert") SDK_ASSERT(a == b);
  if (which == "assertm") SDK_ASSERTM(a == b, "values ", a, ", ", b);
  if (which == "eq") SDK_CHECK_EQ(a, b) << "extra " << a + b;
  if (which == "ne") SDK_CHECK_NE(a, b);
  if (which == "lt") SDK_CHECK_LT(a, b);
  if (which == "le") SDK_CHECK_LE(a, b);
  if (which == "gt") SDK_CHECK_GT(a, b);
  if (which == "ge") SDK_CHECK_GE(a, b);
  if (which == "no_semicolon") {
    // torch's idiom seen in real extensions: a check with no semicolon after it
    SDK_CHECK(a == b, "no semicolon ", a)
  }
  if (which == "internal") SDK_INTERNAL_ASSERT(a == b, "internal ", a);
  if (which == "debug_only") SDK_INTERNAL_ASSERT_DEBUG_ONLY(a == b, "debug ", a);
}

int64_t warn(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    SDK_WARN("every call ", i);
    SDK_WARN_ONCE("only once ", i);
  }
  return n;
}

// ---- dispatch.h (the body is pasted into each case, where scalar_t / index_t are bound)
#define SIZE_OF(T) [&] { return std::to_string(sizeof(T)); }
#define INDEX_SIZE [&] { return "index" + std::to_string(sizeof(index_t)); }
std::string dispatch(const sdk::Tensor& x, const std::string& kind) {
  const auto t = x.scalar_type();
  if (kind == "reduced")
    return SDK_DISPATCH_REDUCED_FLOATING_TYPES(t, "reduced", SIZE_OF(scalar_t));
  if (kind == "half") return SDK_DISPATCH_FLOATING_TYPES_AND_HALF(t, "half", SIZE_OF(scalar_t));
  if (kind == "and3") {
    return SDK_DISPATCH_FLOATING_TYPES_AND3(sdk::kHalf, sdk::kBFloat16, sdk::kInt, t, "and3",
                                            SIZE_OF(scalar_t));
  }
  if (kind == "index") return SDK_DISPATCH_INDEX_TYPES(t, "index", INDEX_SIZE);
  if (kind == "switch") {
    return SDK_DISPATCH_SWITCH(t, "switch",
                               SDK_DISPATCH_CASE_FLOATING_TYPES(SIZE_OF(scalar_t))
                                   SDK_DISPATCH_CASE(sdk::kHalf, SIZE_OF(scalar_t))
                                       SDK_DISPATCH_CASE_INDEX_TYPES(INDEX_SIZE));
  }
  if (kind == "v2") {
    // a body with a comma outside parentheses, which SDK_WRAP keeps whole
    return SDK_DISPATCH_V2(t, "v2", SDK_WRAP([&] {
                             int a = 1, b = 2;
                             return std::to_string(sizeof(scalar_t) + a + b - 3);
                           }),
                           SDK_EXPAND(SDK_FLOATING_TYPES), sdk::kHalf, SDK_INDEX_TYPES);
  }
  return "unknown";
}

// ---- acc_type.h: a float16 sum accumulated in float
static_assert(std::is_same<sdk::acc_type<sdk::Half, true>, float>::value, "half on CUDA");
static_assert(std::is_same<sdk::acc_type<float, false>, double>::value, "float on the CPU");
static_assert(std::is_same<sdk::acc_type<float, true>, float>::value, "float on CUDA");
static_assert(std::is_same<sdk::acc_type<int32_t, false>, int64_t>::value, "ints");
static_assert(std::is_same<sdk::opmath_type<sdk::BFloat16>, float>::value, "bfloat16 math");
static_assert(std::is_same<sdk::opmath_type<double>, double>::value, "double math");

double half_sum(const sdk::Tensor& x) {
  SDK_CHECK(x.scalar_type() == sdk::kHalf && x.is_contiguous(), "half_sum: contiguous float16");
  const sdk::Half* p = x.data_ptr<sdk::Half>();
  sdk::acc_type<sdk::Half, false> acc = 0;
  for (int64_t i = 0; i < x.numel(); ++i) acc += static_cast<float>(p[i]);
  return acc;
}

// ---- parallel.h
double parallel_sum(const sdk::Tensor& x, int64_t grain) {
  SDK_CHECK(x.scalar_type() == sdk::kDouble && x.is_contiguous(), "parallel_sum: float64");
  const double* p = x.data_ptr<double>();
  return sdk::parallel_reduce(
      0, x.numel(), grain, 0.0,
      [&](int64_t b, int64_t e, double ident) {
        double s = ident;
        for (int64_t i = b; i < e; ++i) s += p[i];
        return s;
      },
      [](double a, double b) { return a + b; });
}

// (chunks seen, largest thread number, whether every chunk ran in a parallel region, whether
// the nested parallel_for of each chunk stayed on its thread)
std::vector<int64_t> thread_numbers(int64_t n, int64_t grain) {
  std::atomic<int64_t> chunks{0}, max_thread{0}, all_in_region{1}, nested_inline{1};
  sdk::parallel_for(0, n, grain, [&](int64_t, int64_t) {
    chunks++;
    const int64_t me = sdk::get_thread_num();
    int64_t seen = max_thread.load();
    while (me > seen && !max_thread.compare_exchange_weak(seen, me)) {
    }
    if (!sdk::in_parallel_region()) all_in_region = 0;
    sdk::parallel_for(0, 1000, 1, [&](int64_t, int64_t) {
      if (sdk::get_thread_num() != me) nested_inline = 0;
    });
  });
  return {chunks.load(),        max_thread.load(),     all_in_region.load(),
          nested_inline.load(), sdk::get_thread_num(), sdk::in_parallel_region() ? 1 : 0};
}

// ---- the ArrayRef casters
sdk::Tensor sum_dims(const sdk::Tensor& x, sdk::IntArrayRef dims, bool keepdim) {
  return x.sum(dims, keepdim);
}
sdk::Tensor concat(sdk::TensorList tensors, int64_t dim) { return sdk::cat(tensors, dim); }
sdk::IntArrayRef echo_sizes(const sdk::Tensor& x) { return x.sizes(); }

}  // namespace

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("irange_sum", &irange_sum);
  m.def("dimvector_of", &dimvector_of);
  m.def("optional_and_str", &optional_and_str, py::arg("t") = py::none(),
        py::arg("scale") = py::none());
  m.def("fail", &fail);
  m.def("warn", &warn);
  m.def("dispatch", &dispatch);
  m.def("half_sum", &half_sum);
  m.def("parallel_sum", &parallel_sum, py::arg("x"), py::arg("grain") = 1);
  m.def("thread_numbers", &thread_numbers);
  m.def("sum_dims", &sum_dims, py::arg("x"), py::arg("dims"), py::arg("keepdim") = false);
  m.def("concat", &concat);
  m.def("echo_sizes", &echo_sizes);
}
