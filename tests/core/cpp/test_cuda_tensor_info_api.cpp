// test_cuda_tensor_info_api.cpp: the host side of sdk/cuda_tensor_info.h and
// sdk/cuda_kernel_utils.h (torch's ATen/cuda/detail/ TensorInfo, IndexToOffset, getTensorInfo,
// canUse32BitIndexMath, collapse_dims, GET_BLOCKS). Offsets are checked against the values of
// the SDK's own contiguous() copy, collapsing against the uncollapsed offsets; exits nonzero
// on any failure.
#include <sdk/cuda_kernel_utils.h>
#include <sdk/cuda_tensor_info.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "expect.h"

namespace {

using sdk::cuda::detail::canUse32BitIndexMath;
using sdk::cuda::detail::getTensorInfo;
using sdk::cuda::detail::IndexToOffset;
using sdk::cuda::detail::TensorInfo;

// A strided view: arange(2*3*4*5) shaped (2, 3, 4, 5), permuted and sliced.
sdk::Tensor strided_view() {
  auto base = sdk::arange(120, sdk::kFloat).reshape({2, 3, 4, 5});
  return base.permute({3, 1, 0, 2}).slice(0, 1, 5, 2);  // (2, 3, 2, 4), offset 1
}

// Every element reached through IndexToOffset equals contiguous()'s element at that index.
template <int Dims>
bool offsets_match(const sdk::Tensor& view, const TensorInfo<const float, int>& info) {
  auto flat = view.contiguous();
  const float* want = flat.data_ptr<float>();
  for (int i = 0; i < static_cast<int>(view.numel()); ++i) {
    if (info.data[IndexToOffset<const float, int, Dims>::get(i, info)] != want[i]) return false;
  }
  return true;
}

void tensor_info_of_a_view() {
  auto view = strided_view();
  auto info = getTensorInfo<const float, int>(view);
  EXPECT(info.dims == 4);
  for (int d = 0; d < 4; ++d) {
    EXPECT(info.sizes[d] == view.size(d) && info.strides[d] == view.stride(d));
  }
  EXPECT(info.data == view.const_data_ptr<float>());
  EXPECT(view.storage_offset() == 1 && info.data[0] == 1.0f);  // the offset is in the pointer
  EXPECT(offsets_match<-1>(view, info));
  EXPECT(offsets_match<4>(view, info));  // the compile-time dimension count agrees
  EXPECT(!info.isContiguous());

  auto mut = sdk::zeros({3, 4}, sdk::kDouble);
  auto w = getTensorInfo<double, int64_t>(mut.t());
  EXPECT(w.sizes[0] == 4 && w.strides[0] == 1 && w.sizes[1] == 3 && w.strides[1] == 4);
  w.data[IndexToOffset<double, int64_t, -1>::get(1, w)] = 7.0;  // (0, 1) of the transpose
  EXPECT(mut[1][0].item<double>() == 7.0);
}

void collapsing_keeps_every_offset() {
  auto view = strided_view();  // strides (2, 20, 60, 5): no two neighbours make one run
  auto info = getTensorInfo<const float, int>(view);
  EXPECT(info.collapseDims() == -1 && info.dims == 4);
  EXPECT(offsets_match<-1>(view, info));

  // (2, 2, 4, 5) of strides (60, 20, 5, 1): the last three are one run of 40
  auto rows = sdk::arange(120, sdk::kFloat).reshape({2, 3, 4, 5}).slice(1, 1, 3);
  auto ri = getTensorInfo<const float, int>(rows);
  EXPECT(ri.collapseDims() == -1 && ri.dims == 2);
  EXPECT(ri.sizes[0] == 2 && ri.strides[0] == 60 && ri.sizes[1] == 40 && ri.strides[1] == 1);
  EXPECT(offsets_match<-1>(rows, ri));

  auto c = sdk::arange(24, sdk::kFloat).reshape({2, 3, 4});
  auto ci = getTensorInfo<const float, int>(c);
  EXPECT(ci.collapseDims() == -1 && ci.dims == 1 && ci.sizes[0] == 24 && ci.isContiguous());

  // the excluded dimension stays, at its new index; size-1 dimensions go
  auto e = sdk::arange(24, sdk::kFloat).reshape({2, 1, 3, 4});
  auto ei = getTensorInfo<const float, int>(e);
  EXPECT(ei.collapseDims(2) == 1 && ei.dims == 3);
  EXPECT(ei.sizes[0] == 2 && ei.sizes[1] == 3 && ei.sizes[2] == 4);
  EXPECT(offsets_match<-1>(e, ei));

  auto one = getTensorInfo<const float, int>(sdk::ones({1, 1, 1}, sdk::kFloat));
  EXPECT(one.collapseDims() == 0 && one.dims == 1 && one.sizes[0] == 1 && one.strides[0] == 1);

  int64_t sizes[2] = {2, 3}, strides[2] = {3, 1};
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "excludeDim", sdk::collapse_dims(sizes, strides, 2, 2));
}

void reduce_dim_and_limits() {
  auto info = getTensorInfo<const float, int>(strided_view());
  info.reduceDim(1);
  EXPECT(info.sizes[1] == 1);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "reduceDim", info.reduceDim(4));
  std::vector<int64_t> shape(26, 1);
  auto deep = sdk::zeros(shape, sdk::kFloat);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "at most 25", (getTensorInfo<float, int>(deep)));
  shape.pop_back();  // 25 dimensions fit
  EXPECT(getTensorInfo<float, int>(sdk::zeros(shape, sdk::kFloat)).dims == 25);
}

void thirty_two_bit_boundary() {
  // numel 6, last element at offset 5: both must stay below max_elem
  auto t = sdk::zeros({2, 3}, sdk::kFloat);
  EXPECT(!canUse32BitIndexMath(t, 6) && canUse32BitIndexMath(t, 7));
  // a strided view: numel 6, last element at offset 2 * 40 + 2 = 82
  auto s = sdk::zeros({100}, sdk::kFloat).as_strided({3, 3}, {40, 1});
  EXPECT(!canUse32BitIndexMath(s, 82) && canUse32BitIndexMath(s, 83));
  // the default bound, on expanded tensors (stride 0: no memory behind them)
  const int64_t most = std::numeric_limits<int32_t>::max();
  auto x = sdk::zeros({1}, sdk::kFloat);
  EXPECT(canUse32BitIndexMath(x.expand({most - 1})));
  EXPECT(!canUse32BitIndexMath(x.expand({most})));
  EXPECT(canUse32BitIndexMath(sdk::zeros({0}, sdk::kFloat)));
  EXPECT(!canUse32BitIndexMath(sdk::zeros({0}, sdk::kFloat), 0));
  // a size that int cannot hold is refused, not truncated
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "does not fit",
               (getTensorInfo<float, int>(x.expand({most + 1}))));
  EXPECT(getTensorInfo<float, int64_t>(x.expand({most + 1})).sizes[0] == most + 1);
}

void launch_helpers() {
  using sdk::cuda::detail::CUDA_NUM_THREADS;
  using sdk::cuda::detail::GET_BLOCKS;
  EXPECT(CUDA_NUM_THREADS == 1024);
  EXPECT(GET_BLOCKS(1) == 1 && GET_BLOCKS(1024) == 1 && GET_BLOCKS(1025) == 2);
  EXPECT(GET_BLOCKS(1000, 256) == 4 && GET_BLOCKS(1024, 256) == 4);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "must be positive", GET_BLOCKS(0));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "max_threads_per_block", GET_BLOCKS(5, 0));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "more than a launch",
               GET_BLOCKS(std::numeric_limits<int64_t>::max(), 1));
}

}  // namespace

int main() {
  tensor_info_of_a_view();
  collapsing_keeps_every_offset();
  reduce_dim_and_limits();
  thirty_two_bit_boundary();
  launch_helpers();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures != 0;
}
