// lltm_cuda_kernel.cu: the LLTM cell's elementwise part as CUDA kernels, over packed accessors.
//
// Structured like the classic tutorial's CUDA variant: the matmuls and concatenation stay
// SDK ops (cuBLAS on CUDA tensors), the gate math is one fused kernel each way, dispatched
// over float/double with SDK_DISPATCH_FLOATING_TYPES and launched on the SDK's current stream.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sdk/cuda.h>
#include <sdk/tensor.h>

#include <vector>

namespace {

template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) {
  return scalar_t(1) / (scalar_t(1) + exp(-z));
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_sigmoid(scalar_t z) {
  const scalar_t s = sigmoid(z);
  return (scalar_t(1) - s) * s;
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_tanh(scalar_t z) {
  const scalar_t t = tanh(z);
  return scalar_t(1) - t * t;
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t elu(scalar_t z, scalar_t alpha = 1) {
  return z > scalar_t(0) ? z : alpha * (exp(z) - scalar_t(1));
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t d_elu(scalar_t z, scalar_t alpha = 1) {
  const scalar_t e = exp(z);
  const scalar_t d_relu = z > scalar_t(0) ? scalar_t(1) : scalar_t(0);
  return d_relu + (((alpha * (e - scalar_t(1))) < scalar_t(0)) ? (alpha * e) : scalar_t(0));
}

// One thread per (batch row, state column); gates is (batch, 3, state). gridDim.y is capped
// at 65535, so each thread strides over the batch rows.
template <typename scalar_t>
__global__ void lltm_cuda_forward_kernel(
    const sdk::PackedTensorAccessor32<scalar_t, 3, sdk::RestrictPtrTraits> gates,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> old_cell,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> new_h,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> new_cell,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> input_gate,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> output_gate,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> candidate_cell) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;  // state column
  if (c >= gates.size(2)) return;
  for (int n = blockIdx.y; n < gates.size(0); n += gridDim.y) {  // batch rows
    input_gate[n][c] = sigmoid(gates[n][0][c]);
    output_gate[n][c] = sigmoid(gates[n][1][c]);
    candidate_cell[n][c] = elu(gates[n][2][c]);
    new_cell[n][c] = old_cell[n][c] + candidate_cell[n][c] * input_gate[n][c];
    new_h[n][c] = tanh(new_cell[n][c]) * output_gate[n][c];
  }
}

template <typename scalar_t>
__global__ void lltm_cuda_backward_kernel(
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> d_old_cell,
    sdk::PackedTensorAccessor32<scalar_t, 3, sdk::RestrictPtrTraits> d_gates,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> grad_h,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> grad_cell,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> new_cell,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> input_gate,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> output_gate,
    const sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> candidate_cell,
    const sdk::PackedTensorAccessor32<scalar_t, 3, sdk::RestrictPtrTraits> gate_weights) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= d_gates.size(2)) return;
  for (int n = blockIdx.y; n < d_gates.size(0); n += gridDim.y) {
    const auto d_output_gate = tanh(new_cell[n][c]) * grad_h[n][c];
    const auto d_tanh_new_cell = output_gate[n][c] * grad_h[n][c];
    const auto d_new_cell = d_tanh(new_cell[n][c]) * d_tanh_new_cell + grad_cell[n][c];

    d_old_cell[n][c] = d_new_cell;
    const auto d_candidate_cell = input_gate[n][c] * d_new_cell;
    const auto d_input_gate = candidate_cell[n][c] * d_new_cell;

    d_gates[n][0][c] = d_input_gate * d_sigmoid(gate_weights[n][0][c]);
    d_gates[n][1][c] = d_output_gate * d_sigmoid(gate_weights[n][1][c]);
    d_gates[n][2][c] = d_candidate_cell * d_elu(gate_weights[n][2][c]);
  }
}

constexpr int kThreads = 1024;

// Blocks for (batch, state): x covers the state columns, y the batch rows (at most 65535,
// the kernels stride over the rest).
dim3 grid_for(int64_t batch_size, int64_t state_size) {
  const int64_t rows = batch_size < 65535 ? batch_size : 65535;
  return dim3(static_cast<unsigned>((state_size + kThreads - 1) / kThreads),
              static_cast<unsigned>(rows));
}

}  // namespace

std::vector<sdk::Tensor> lltm_cuda_forward(sdk::Tensor input, sdk::Tensor weights, sdk::Tensor bias,
                                           sdk::Tensor old_h, sdk::Tensor old_cell) {
  // Kernels launch on the current device: make it the tensors' one (they may be on cuda:1).
  const sdk::cuda::CUDAGuard device_guard(old_cell.device());
  auto X = sdk::cat({old_h, input}, /*dim=*/1);
  auto gate_weights = sdk::addmm(bias, X, weights.transpose(0, 1));

  const auto batch_size = old_cell.size(0);
  const auto state_size = old_cell.size(1);

  auto gates = gate_weights.reshape({batch_size, 3, state_size});
  auto new_h = sdk::zeros_like(old_cell);
  auto new_cell = sdk::zeros_like(old_cell);
  auto input_gate = sdk::zeros_like(old_cell);
  auto output_gate = sdk::zeros_like(old_cell);
  auto candidate_cell = sdk::zeros_like(old_cell);

  if (batch_size == 0 || state_size == 0) {  // nothing to launch (a 0-sized grid is an error)
    return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gates};
  }
  const dim3 blocks = grid_for(batch_size, state_size);
  cudaStream_t stream = sdk::cuda::getCurrentCUDAStream(old_cell.get_device());

  SDK_DISPATCH_FLOATING_TYPES(
      gates.scalar_type(), "lltm_forward_cuda", ([&] {
        lltm_cuda_forward_kernel<scalar_t><<<blocks, kThreads, 0, stream>>>(
            gates.packed_accessor32<scalar_t, 3, sdk::RestrictPtrTraits>(),
            old_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
            new_h.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
            new_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
            input_gate.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
            output_gate.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
            candidate_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>());
      }));
  SDK_CUDA_KERNEL_LAUNCH_CHECK();

  return {new_h, new_cell, input_gate, output_gate, candidate_cell, X, gates};
}

std::vector<sdk::Tensor> lltm_cuda_backward(sdk::Tensor grad_h, sdk::Tensor grad_cell,
                                            sdk::Tensor new_cell, sdk::Tensor input_gate,
                                            sdk::Tensor output_gate, sdk::Tensor candidate_cell,
                                            sdk::Tensor X, sdk::Tensor gates, sdk::Tensor weights) {
  const sdk::cuda::CUDAGuard device_guard(new_cell.device());
  auto d_old_cell = sdk::zeros_like(new_cell);
  auto d_gates = sdk::zeros_like(gates);

  const auto batch_size = new_cell.size(0);
  const auto state_size = new_cell.size(1);

  const dim3 blocks = grid_for(batch_size, state_size);
  cudaStream_t stream = sdk::cuda::getCurrentCUDAStream(new_cell.get_device());

  if (batch_size > 0 && state_size > 0) {  // a 0-sized grid is an error: nothing to launch
    SDK_DISPATCH_FLOATING_TYPES(
        X.scalar_type(), "lltm_backward_cuda", ([&] {
          lltm_cuda_backward_kernel<scalar_t><<<blocks, kThreads, 0, stream>>>(
              d_old_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              d_gates.packed_accessor32<scalar_t, 3, sdk::RestrictPtrTraits>(),
              grad_h.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              grad_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              new_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              input_gate.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              output_gate.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              candidate_cell.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
              gates.packed_accessor32<scalar_t, 3, sdk::RestrictPtrTraits>());
        }));
    SDK_CUDA_KERNEL_LAUNCH_CHECK();
  }

  auto d_gate_weights = d_gates.reshape({batch_size, 3 * state_size});
  auto d_weights = d_gate_weights.t().mm(X);
  auto d_bias = d_gate_weights.sum(/*dim=*/{0}, /*keepdim=*/true);

  auto d_X = d_gate_weights.mm(weights);
  auto d_old_h = d_X.slice(/*dim=*/1, 0, state_size);
  auto d_input = d_X.slice(/*dim=*/1, state_size);

  return {d_old_h, d_input, d_weights, d_bias, d_old_cell};
}
