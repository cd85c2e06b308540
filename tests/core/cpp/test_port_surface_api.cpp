// test_port_surface_api.cpp: the torch spellings ported extensions use beyond the ops: argument
// checks (sdk/tensor_utils.h), List/Dict, IValue lists, autograd helpers, tags and List kernels
// in the registry, TypeMeta helpers, name_out variants and the device guards, against known
// values; exits nonzero on any failure.
#include <sdk/all.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "expect.h"

namespace {

using V = std::vector<double>;

V values(const sdk::Tensor& t) {
  auto c = t.to(sdk::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return V(p, p + c.numel());
}

sdk::Tensor vec(V v) {
  return sdk::from_blob(v.data(), {static_cast<int64_t>(v.size())}, sdk::kFloat64).clone();
}

void argument_checks() {
  sdk::Tensor x = sdk::zeros({2, 3, 4}), w = sdk::zeros({3, 4}),
              d = sdk::zeros({3, 4}, sdk::kDouble);
  sdk::TensorArg x_arg{x, "input", 1}, w_arg{w, "weight", 2}, d_arg{d, "bias", 3};
  sdk::CheckedFrom c = "my_op";
  sdk::checkDim(c, x_arg, 3);
  sdk::checkDim(c, x, "input", 1, 3);
  EXPECT_ERROR(SDK_ERROR_VALUE,
               "Expected 4-dimensional tensor, but got 3-dimensional tensor for argument #1 "
               "'input' (while checking arguments for my_op)",
               sdk::checkDim(c, x_arg, 4));
  EXPECT_ERROR(SDK_ERROR_VALUE, "Expected 1 to 2 dimensions, but got 3-dimensional tensor",
               sdk::checkDimRange(c, x_arg, 1, 3));
  sdk::checkDimRange(c, x_arg, 3, 5);
  sdk::checkSize(c, w_arg, {3, 4});
  sdk::checkSize(c, x_arg, 2, 4);
  EXPECT_ERROR(
      SDK_ERROR_VALUE,
      "Expected tensor of size [3, 5], but got tensor of size [3, 4] for argument #2 'weight'",
      sdk::checkSize(c, w_arg, {3, 5}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "Expected tensor to have size 5 at dimension 1, but got size 3",
               sdk::checkSize(c, x_arg, 1, 5));
  sdk::checkNumel(c, x_arg, 24);
  EXPECT_ERROR(SDK_ERROR_VALUE, "to have 7 elements; but it actually has 24 elements",
               sdk::checkNumel(c, x_arg, 7));
  sdk::checkAllSameSize(c, {w_arg, d_arg});
  EXPECT_ERROR(SDK_ERROR_VALUE,
               "Expected tensor for argument #1 'input' to have same size as tensor for argument "
               "#2 'weight'",
               sdk::checkSameSize(c, x_arg, w_arg));
  EXPECT_ERROR(
      SDK_ERROR_VALUE,
      "to have the same dimension as tensor for argument #2 'weight'; but 3 does not equal 2",
      sdk::checkSameDim(c, x_arg, w_arg));
  sdk::checkAllSameNumel(c, {w_arg, d_arg});

  sdk::checkAllSameType(c, {x_arg, w_arg});
  EXPECT_ERROR(SDK_ERROR_TYPE,
               "Expected tensor for argument #1 'input' to have the same type as tensor for "
               "argument #3 'bias'; but type cpu float32 does not equal cpu float64 (while "
               "checking arguments for my_op)",
               sdk::checkAllSameType(c, {x_arg, w_arg, d_arg}));
  sdk::checkScalarType(c, d_arg, sdk::kDouble);
  EXPECT_ERROR(SDK_ERROR_TYPE,
               "argument #3 'bias' to have scalar type float32; but got cpu float64 instead",
               sdk::checkScalarType(c, d_arg, sdk::kFloat));
  sdk::checkScalarTypes(c, d_arg, {sdk::kFloat, sdk::kDouble});
  EXPECT_ERROR(SDK_ERROR_TYPE,
               "one of the following scalar types: int32, int64; but got cpu float64",
               sdk::checkScalarTypes(c, d_arg, {sdk::kInt, sdk::kLong}));

  sdk::Tensor t = w.t();
  sdk::TensorArg t_arg{t, "weight_t", 0};
  sdk::checkContiguous(c, w_arg);
  EXPECT_ERROR(SDK_ERROR_VALUE,
               "non-contiguous tensor for 'weight_t' (while checking arguments for my_op)",
               sdk::checkContiguous(c, t_arg));
  sdk::Tensor undefined;
  sdk::TensorArg u_arg{undefined, "mask", 4};
  sdk::checkAllContiguous(c, {w_arg, u_arg});  // undefined tensors are skipped
  sdk::checkAllSameType(c, {x_arg, u_arg});
  EXPECT_ERROR(SDK_ERROR_VALUE, "Expected tensor for argument #4 'mask' to be non-null",
               sdk::checkAllDefined(c, {x_arg, u_arg}));
  EXPECT_ERROR(SDK_ERROR_VALUE,
               "Tensor for argument #1 'input' is on CPU, Tensor for argument #2 'weight' is on "
               "CPU, but expected them to be on GPU (while checking arguments for my_op)",
               sdk::checkAllSameGPU(c, {x_arg, w_arg}));
  sdk::checkDeviceType(c, {x, w}, sdk::kCPU);
  EXPECT_ERROR(SDK_ERROR_VALUE, "Expected tensor to have cuda DeviceType, but got tensor with cpu",
               sdk::checkDeviceType(c, {x}, sdk::kCUDA));
  sdk::check_dim_size(w, 2, 1, 4);
  EXPECT_ERROR(SDK_ERROR_VALUE,
               "Expected a tensor of dimension 2 and tensor.size[1] == 5 but got: dimension 2 and "
               "tensor.size[1] = 4",
               sdk::check_dim_size(w, 2, 1, 5));
  EXPECT(sdk::maybe_data_ptr(undefined) == nullptr && sdk::maybe_data_ptr(w_arg) == w.data_ptr());

  sdk::TensorGeometry g(t);
  EXPECT(g.dim() == 2 && g.size(0) == 4 && g.stride(0) == 1 && g.stride(-1) == 4 &&
         g.numel() == 12);
  EXPECT(!g.is_contiguous() && sdk::TensorGeometry(w).is_contiguous());
}

void flatten_tensors() {
  sdk::Tensor a = vec({1, 2, 3, 4}).reshape({2, 2}), b = vec({5, 6, 7});
  sdk::Tensor flat = sdk::utils::flatten_dense_tensors({a.t(), b});
  EXPECT(values(flat) == V({1, 3, 2, 4, 5, 6, 7}));
  std::vector<sdk::Tensor> back = sdk::utils::unflatten_dense_tensors(flat, {a, b});
  EXPECT(back.size() == 2 && back[0].sizes() == a.sizes() && values(back[0]) == V({1, 3, 2, 4}));
  EXPECT(values(back[1]) == V({5, 6, 7}));
  back[1].fill_(0);  // views of flat
  EXPECT(values(flat) == V({1, 3, 2, 4, 0, 0, 0}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "expected a 1-d tensor of 7 elements",
               sdk::utils::unflatten_dense_tensors(vec({1, 2}), {a, b}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "expected a non-empty list", sdk::utils::flatten_dense_tensors({}));
}

void lists_and_dicts() {
  sdk::List<int64_t> l({1, 2, 3});
  sdk::List<int64_t> shared = l;
  shared.push_back(4);
  shared.set(0, 10);
  EXPECT(l.size() == 4 && l.get(0) == 10 && l[3] == 4 && l.is(shared));
  sdk::List<int64_t> own = l.copy();
  own.set(1, 0);
  EXPECT(l.get(1) == 2 && !own.is(l) && own != l && l.copy() == l);
  EXPECT(l.vec() == std::vector<int64_t>({10, 2, 3, 4}));
  sdk::IntArrayRef view = l;
  EXPECT(view.size() == 4 && view[2] == 3);
  int64_t sum = 0;
  for (int64_t v : l) sum += v;
  EXPECT(sum == 19 && l.extract(0) == 10);
  EXPECT_ERROR(SDK_ERROR_INDEX, "List: index 9 out of range for a list of size 4", l.get(9));
  sdk::List<int64_t> empty;
  EXPECT_ERROR(SDK_ERROR_INDEX, "the list is empty", empty.pop_back());

  sdk::Dict<std::string, sdk::Tensor> d;
  EXPECT(d.insert("w", vec({1})).second && !d.insert("w", vec({2})).second);
  d.insert_or_assign("b", vec({3}));
  d.insert_or_assign("w", vec({4}));
  EXPECT(d.size() == 2 && d.contains("b") && !d.contains("x"));
  EXPECT(values(d.at("w")) == V({4}));
  std::string keys;
  for (const auto& kv : d) keys += kv.key();
  EXPECT(keys == "wb");  // insertion order
  sdk::Dict<std::string, sdk::Tensor> alias = d;
  EXPECT(alias.erase("w") == 1 && d.size() == 1 && d.find("w") == d.end());
  EXPECT(d.find("b")->key() == "b" && values(d.at("b")) == V({3}));
  EXPECT_ERROR(SDK_ERROR_INDEX, "Dict: no key w", d.at("w"));
  sdk::Dict<int64_t, double> numbers{{1, 0.5}, {2, 1.5}};
  EXPECT(numbers.at(2) == 1.5 && numbers.copy().erase(1) == 1 && numbers.size() == 2);
}

void ivalues_and_autograd_helpers() {
  sdk::IValue bools(std::vector<bool>{true, false});
  EXPECT(bools.isBoolList() && bools.toBoolList().get(1) == false);
  sdk::IValue ints(sdk::List<int64_t>({4, 5}));
  EXPECT(ints.isIntList() && ints.toIntVector() == std::vector<int64_t>({4, 5}));
  sdk::List<sdk::IValue> items;
  items.push_back(3);
  items.push_back("mode");
  items.push_back(vec({1, 2}));
  sdk::IValue generic(items);
  EXPECT(generic.isList() && generic.toList().size() == 3);
  EXPECT(generic.toList().get(1).toStringRef() == "mode" && generic.toList().get(0).toInt() == 3);
  EXPECT(values(generic.toList().get(2).toTensor()) == V({1, 2}));
  EXPECT(std::string(generic.tagKind()) == "list" && std::string(bools.tagKind()) == "bool list");
  // a typed list reads as a generic one too, as torch's toList() (sizes saved from sym_sizes())
  EXPECT(ints.toList().size() == 2 && ints.toList().get(1).toInt() == 5);
  EXPECT_ERROR(SDK_ERROR_TYPE, "IValue: expected list", sdk::IValue(3).toList());
  sdk::IValue none;
  EXPECT(!none.toOptional<double>().has_value() && sdk::IValue(2.5).toOptional<double>() == 2.5);
  EXPECT(sdk::IValue(std::optional<int64_t>(7)).to<int>() == 7);
  EXPECT(sdk::IValue(std::vector<sdk::Tensor>{vec({1})}).toTensorList().size() == 1);

  // (a tensor requiring grad needs the Python package: the corpus case autograd_ivalue checks it)
  sdk::autograd::Variable v = vec({1});
  EXPECT(!sdk::autograd::any_variable_requires_grad({v, sdk::Tensor()}));
}

sdk::Tensor sum_list(const sdk::List<sdk::Tensor>& xs, const sdk::List<int64_t>& scale) {
  sdk::Tensor total = sdk::zeros_like(xs.get(0));
  for (size_t i = 0; i < xs.size(); ++i) total = total + xs.get(i) * scale.get(i);
  return total;
}
sdk::List<int64_t> twice(const sdk::List<int64_t>& xs) {
  sdk::List<int64_t> out;
  for (int64_t x : xs) out.push_back(2 * x);
  return out;
}

void registration_with_tags_and_lists() {
  sdk::Library lib(sdk::Library::FRAGMENT, "port_surface", std::nullopt, __FILE__, __LINE__);
  lib.def(SDK_SELECTIVE_SCHEMA("port_surface::sum_list(Tensor[] xs, int[] scale) -> Tensor"),
          {sdk::Tag::pt2_compliant_tag, sdk::Tag::pointwise});
  lib.impl(SDK_SELECTIVE_NAME("sum_list"), &sum_list);
  lib.def("twice", &twice);
  lib.impl_abstract_pystub("port_surface.fake").set_python_module("port_surface.ops");
  sdk::List<sdk::Tensor> xs({vec({1, 2}), vec({3, 4})});
  auto total = sdk::call_op<sdk::Tensor>("port_surface::sum_list", xs, sdk::List<int64_t>({1, 10}));
  EXPECT(values(total) == V({31, 42}));
  // Meta kernels, in both spellings, run for meta tensors only: CPU calls keep the CPU kernel.
  sdk::Library meta(sdk::Library::IMPL, "port_surface", sdk::DispatchKey::Meta, __FILE__, __LINE__);
  meta.impl("twice", [](const sdk::List<int64_t>&) -> sdk::List<int64_t> { return {}; });
  lib.impl("sum_list", sdk::dispatch(sdk::DispatchKey::Meta, [](const sdk::List<sdk::Tensor>& ts,
                                                                const sdk::List<int64_t>&) {
             return sdk::empty_like(ts.get(0));
           }));
  auto doubled =
      sdk::call_op<sdk::List<int64_t>>("port_surface::twice", sdk::List<int64_t>({1, 5}));
  EXPECT(doubled.vec() == std::vector<int64_t>({2, 10}));
  total = sdk::call_op<sdk::Tensor>("port_surface::sum_list", xs, sdk::List<int64_t>({1, 10}));
  EXPECT(values(total) == V({31, 42}));
}

void type_meta_and_arithmetic() {
  sdk::Tensor x = sdk::zeros({2}, sdk::kDouble);
  EXPECT(sdk::typeMetaToScalarType(x.dtype()) == sdk::kDouble);
  EXPECT(sdk::scalarTypeToTypeMeta(sdk::kFloat) == sdk::TypeMeta::Make<float>());
  EXPECT(x.dtype().Match<double>() && !x.dtype().Match<float>());
  EXPECT(sdk::TypeMeta::fromScalarType(sdk::kLong).itemsize() == 8);
  EXPECT(sdk::divup(10, 4) == 3 && sdk::divup(8, 4) == 2 && sdk::ceil_div(10, 4) == 3);
  EXPECT(sdk::optTypeMetaToScalarType(x.dtype()) == sdk::kDouble);
  EXPECT(!sdk::optTypeMetaToScalarType(std::nullopt).has_value());
  sdk::Tensor z = sdk::zeros({2, 3, 4});
  sdk::IntList sizes = z.sizes();  // a view of z's sizes: z must outlive it
  EXPECT(sdk::multiply_integers(sizes) == 24 && sdk::sum_integers(sizes) == 9);
  EXPECT(sdk::multiply_integers(sizes.begin() + 1, sizes.end()) == 12);
  EXPECT(sdk::multiply_integers(std::vector<int>{}) == 1);
  EXPECT(sdk::bit_cast<uint32_t>(1.0f) == 0x3f800000u && sdk::bit_cast<float>(0x40000000u) == 2.0f);
  EXPECT(sdk::DeviceTypeName(sdk::kCUDA) == "CUDA" &&
         sdk::DeviceTypeName(sdk::kCPU, true) == "cpu");
  EXPECT(SDK_TORCH_API_VERSION_MAJOR == 2 && SDK_TORCH_API_VERSION_MINOR >= 0);
#if SDK_MKLDNN_ENABLED() || SDK_CUDNN_ENABLED() || SDK_MKL_ENABLED() || SDK_ROCM_ENABLED()
  EXPECT(!"no optional backend library is linked");
#endif
  int evaluated = 0;
  SDK_RECORD_FUNCTION("profiled", ++evaluated);  // no profiler: nothing runs
  EXPECT(evaluated == 0);
}

void tensor_helpers_and_modes() {
  sdk::Tensor x = vec({1, 2, 3, 4}).reshape({2, 2});
  sdk::MaybeOwned<sdk::Tensor> same = x.expect_contiguous();
  EXPECT(same.unsafeIsBorrowed() && same->is_same(x));
  sdk::Tensor t = x.t();
  sdk::MaybeOwned<sdk::Tensor> copy = t.expect_contiguous();
  EXPECT(!copy.unsafeIsBorrowed() && copy->is_contiguous() && values(*copy) == V({1, 3, 2, 4}));
  sdk::MaybeOwned<sdk::Tensor> again = copy;  // an owned value is copied with it
  EXPECT(&*again != &*copy && again->is_same(*copy));
  sdk::Tensor moved = *std::move(copy);
  EXPECT(values(moved) == V({1, 3, 2, 4}));
  sdk::Tensor f = x.to(sdk::Device(sdk::kCPU), sdk::kFloat);
  EXPECT(f.scalar_type() == sdk::kFloat && f.is_cpu() && values(f) == values(x));
  EXPECT(!x.is_meta() && !x.is_quantized() && !x.is_mkldnn() && !x.is_mps() && !x.is_xpu());
  sdk::Tensor probs = vec({0, 1, 1, 0});
  sdk::Tensor draws = probs.bernoulli();
  EXPECT(values(draws) == V({0, 1, 1, 0}) && draws.scalar_type() == sdk::kDouble);
  EXPECT(values(sdk::bernoulli(probs, 1.0)) == V({1, 1, 1, 1}));
  EXPECT(values(sdk::bernoulli(probs, 0.0)) == V({0, 0, 0, 0}));
  EXPECT(x.is_alias_of(x.t()) && x.t().is_alias_of(x.view({4})) && !x.is_alias_of(x.clone()));
  EXPECT(!x.is_alias_of(sdk::Tensor()));
  sdk::Tensor row = vec({1, 2, 3}).reshape({1, 3});
  EXPECT(&row.t_() == &row && row.sizes() == sdk::IntArrayRef({3, 1}) &&
         values(row) == V({1, 2, 3}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "t_() expects a tensor with <= 2 dimensions",
               sdk::zeros({1, 1, 1}).t_());
  // in-place geometry changes take any strides and offset within the storage
  sdk::Tensor xt = x.clone();
  xt.t_();
  EXPECT(xt.sizes() == sdk::IntArrayRef({x.size(1), x.size(0)}) && !xt.is_contiguous());
  sdk::Tensor flat = vec({0, 1, 2, 3, 4, 5});
  flat.as_strided_({2, 2}, {1, 2}, 1);
  EXPECT(flat.sizes() == sdk::IntArrayRef({2, 2}) && flat.storage_offset() == 1 &&
         values(flat) == V({1, 3, 2, 4}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "but the storage holds 6 elements",
               flat.as_strided_({2, 2}, {2, 1}, 3));
  EXPECT_ERROR(SDK_ERROR_VALUE, "strides must be >= 0", flat.as_strided_({2}, {-1}, 1));
  EXPECT(flat.storage_offset() == 1 &&
         values(flat) == V({1, 3, 2, 4}));  // a refusal changes nothing

  EXPECT(sdk::autograd::GradMode::is_enabled() && !sdk::InferenceMode::is_enabled());
  {
    sdk::InferenceMode guard;
    EXPECT(sdk::InferenceMode::is_enabled() && !sdk::GradMode::is_enabled());
    {
      sdk::InferenceMode off(false);
      EXPECT(!sdk::InferenceMode::is_enabled() && sdk::GradMode::is_enabled());
    }
    EXPECT(sdk::InferenceMode::is_enabled() && !sdk::GradMode::is_enabled());
  }
  EXPECT(sdk::GradMode::is_enabled() && !sdk::InferenceMode::is_enabled());
  sdk::init_num_threads();
  EXPECT(sdk::get_num_threads() >= 1);
}

void tensor_literals_and_view_assignment() {
  sdk::Tensor i = sdk::tensor({1, 0});
  EXPECT(i.scalar_type() == sdk::kLong && values(i) == V({1, 0}) && i.dim() == 1);
  sdk::Tensor f = sdk::tensor({1.5, -2.0});
  EXPECT(f.scalar_type() == sdk::kFloat && values(f) == V({1.5, -2.0}));
  sdk::Tensor b = sdk::tensor(std::vector<bool>{true, false, true});
  EXPECT(b.scalar_type() == sdk::kBool && values(b) == V({1, 0, 1}));
  sdk::Tensor d = sdk::tensor({3, 4}, sdk::kDouble);
  EXPECT(d.scalar_type() == sdk::kDouble && values(d) == V({3, 4}));
  sdk::Tensor s = sdk::tensor(2.5);
  EXPECT(s.dim() == 0 && s.item<double>() == 2.5);

  sdk::Tensor x = sdk::zeros({2, 3});
  x[0] = 1.5;                     // a temporary view: fills
  x[1] = sdk::tensor({1, 2, 3});  // copies (cast to float32)
  EXPECT(values(x) == V({1.5, 1.5, 1.5, 1, 2, 3}));
  x.view({-1})[4] = x.view({-1})[0];
  EXPECT(values(x) == V({1.5, 1.5, 1.5, 1, 1.5, 3}));
  sdk::Tensor idx = sdk::tensor({2, 0});
  EXPECT(values(sdk::gather(x[1], 0, idx, /*sparse_grad=*/false)) == V({3, 1}));
  EXPECT(values(x[0].gather(0, idx, true)) == V({1.5, 1.5}));

  EXPECT(static_cast<int>(sdk::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES) >
         static_cast<int>(sdk::kCUDA));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "CUDA_KERNEL_ASSERT failed: 1 + 1 == 3",
               SDK_CUDA_KERNEL_ASSERT(1 + 1 == 3));
  SDK_CUDA_KERNEL_ASSERT(1 + 1 == 2);
  assert(x.defined());  // <cassert> comes with sdk/all.h, as with torch/torch.h
}

void accessor_spellings() {
  sdk::Tensor x = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  sdk::PackedTensorAccessor<double, 2> a = x.packed_accessor<double, 2>();
  EXPECT(a[1][2] == 6 && a.size(1) == 3 && a.stride(0) == 3);
  auto narrow = x.packed_accessor<double, 2, sdk::RestrictPtrTraits, int32_t>();
  EXPECT(narrow[0][1] == 2);
  EXPECT(sdk::cuda::ATenCeilDiv(10, 4) == 3 && sdk::cuda::ATenCeilDiv(int64_t(8), 4) == 2);
}

void symbolic_size_spellings() {
  sdk::Tensor x = sdk::zeros({2, 3});
  sdk::SymInt rows = x.sym_size(0);
  EXPECT(rows.expect_int() == 2 && rows * 3 == x.sym_numel() && x.sym_stride(0) == 3);
  EXPECT(rows.maybe_as_int() == 2 && !rows.is_symbolic() &&
         rows.guard_int(__FILE__, __LINE__) == 2);
  sdk::SymIntArrayRef sizes = x.sym_sizes();
  EXPECT(SDK_AS_INTARRAYREF_SLOW(sizes) == sdk::IntArrayRef({2, 3}) && x.sym_strides()[1] == 1);
  sdk::Tensor e = sdk::empty_symint(sizes, sdk::kLong), z = sdk::zeros_symint({rows, 4});
  EXPECT(e.sizes() == x.sizes() && e.scalar_type() == sdk::kLong);
  EXPECT(z.sizes() == sdk::IntArrayRef({2, 4}) && values(z) == V(8, 0.0));
}

void out_variants() {
  sdk::Tensor x = vec({3, 1, 4, 1, 5, 9, 2, 6}).reshape({2, 4});
  sdk::Tensor values_out = sdk::empty({0}), indices_out = sdk::empty({0}, sdk::kLong);
  auto r = sdk::topk_out(values_out, indices_out, x, 2, 1);
  EXPECT(&std::get<0>(r) == &values_out && values(values_out) == V({4, 3, 9, 6}));
  EXPECT(values(indices_out) == V({2, 0, 1, 3}));
  sdk::Tensor m = sdk::empty({2}, sdk::kDouble), mi = sdk::empty({2}, sdk::kLong);
  int64_t version = m._version();
  sdk::max_out(m, mi, x, 1);
  EXPECT(values(m) == V({4, 9}) && values(mi) == V({2, 1}) && m._version() > version);
  sdk::Tensor sv, si;
  sdk::sort_out(sv, si, x, 1, true);
  EXPECT(values(sv) == V({4, 3, 1, 1, 9, 6, 5, 2}));
  sdk::Tensor w = sdk::empty({2, 4});
  sdk::where_out(w, x.gt(3), x, sdk::zeros_like(x));
  EXPECT(values(w) == V({0, 0, 4, 0, 5, 9, 0, 6}) && w.scalar_type() == sdk::kFloat);
  sdk::Tensor a = sdk::empty({1}, sdk::kLong);
  sdk::argmax_out(a, x.reshape({-1}), 0, true);
  EXPECT(values(a) == V({5}));
  sdk::Tensor wrong = sdk::empty({3});
  EXPECT_ERROR(SDK_ERROR_VALUE, "max_out: out has shape [3] but the result has shape [2]",
               sdk::max_out(wrong, mi, x, 1));
  sdk::Tensor ints = sdk::empty({2}, sdk::kLong);
  EXPECT_ERROR(SDK_ERROR_TYPE, "result type float64 can't be cast to the desired output type int64",
               sdk::max_out(ints, mi, x, 1));
  sdk::Tensor ar = sdk::empty({0}, sdk::kLong);
  sdk::arange_out(ar, 2, 5);
  EXPECT(ar.scalar_type() == sdk::kLong && values(ar) == V({2, 3, 4}));
  sdk::Tensor z = sdk::empty({1}, sdk::kDouble);
  sdk::ones_out(z, {2, 2});
  EXPECT(values(z) == V({1, 1, 1, 1}) && z.scalar_type() == sdk::kDouble);
  sdk::Tensor acc = sdk::zeros({3});
  sdk::index_add_out(acc, sdk::zeros({3}), 0, sdk::arange(0, 2, sdk::kLong),
                     vec({1, 2}).to(sdk::kFloat), 3);
  EXPECT(values(acc) == V({3, 6, 0}));
}

template <typename F>
bool throws_mentioning(F f, const char* needle) {
  try {
    f();
  } catch (const sdk::Error& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    std::printf("  message was: %s\n", e.what());
  }
  return false;
}

void device_guards() {
  sdk::Tensor x = sdk::zeros({1});
  {
    sdk::DeviceGuard g(x.device());
    EXPECT(!g.is_active());
    sdk::OptionalDeviceGuard og(sdk::device_of(x));
    EXPECT(!og.current_device().has_value());
    sdk::OptionalDeviceGuard none(sdk::device_of(sdk::Tensor()));
    EXPECT(!none.original_device().has_value());
  }
  if (!sdk::cuda::is_available()) {  // asking for a GPU says why there is none
    EXPECT(sdk::cuda::device_count() == 0);
    EXPECT(throws_mentioning([] { sdk::cuda::CUDAGuard g(0); }, "CUDA"));
    EXPECT(throws_mentioning([] { sdk::DeviceGuard g(sdk::Device(sdk::kCUDA, 0)); }, "CUDA"));
    EXPECT(throws_mentioning([] { sdk::cuda::getCurrentCUDAStream(); }, "CUDA"));
    EXPECT(throws_mentioning([] { sdk::cuda::CUDACachingAllocator::raw_alloc(16); }, "CUDA"));
    EXPECT(throws_mentioning([] { sdk::cuda::MaybeSetDevice(0); }, "CUDA"));
    sdk::cuda::CUDACachingAllocator::raw_delete(nullptr);  // ignored, as torch
    sdk::cuda::OptionalCUDAStreamGuard nothing;            // guards nothing, needs no device
    EXPECT(!nothing.original_stream().has_value());
  }
}

}  // namespace

int main() {
  argument_checks();
  flatten_tensors();
  lists_and_dicts();
  ivalues_and_autograd_helpers();
  registration_with_tags_and_lists();
  type_meta_and_arithmetic();
  tensor_helpers_and_modes();
  symbolic_size_spellings();
  accessor_spellings();
  tensor_literals_and_view_assignment();
  out_variants();
  device_guards();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
