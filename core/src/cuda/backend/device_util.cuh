// core/src/cuda/backend/device_util.cuh: typed loads/stores of runtime-typed operands and the
// index-to-offset walk shared by the elementwise and reduction kernels.
//
// Kernels are templated on the math type only (float, double, int64); element types are
// read and written by a switch on the operand's dtype. That keeps the number of kernel
// instantiations (and the backend's build time) small at the cost of a uniform branch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../backend_api.h"

namespace sdk::cuda {

template <typename C>
__device__ __forceinline__ C load_as(const char* p, int dtype) {
  switch (dtype) {
    case SDK_BOOL:
      return static_cast<C>(*reinterpret_cast<const bool*>(p) ? 1 : 0);
    case SDK_UINT8:
      return static_cast<C>(*reinterpret_cast<const uint8_t*>(p));
    case SDK_INT8:
      return static_cast<C>(*reinterpret_cast<const int8_t*>(p));
    case SDK_INT16:
      return static_cast<C>(*reinterpret_cast<const int16_t*>(p));
    case SDK_INT32:
      return static_cast<C>(*reinterpret_cast<const int32_t*>(p));
    case SDK_INT64:
      return static_cast<C>(*reinterpret_cast<const int64_t*>(p));
    case SDK_FLOAT16:
      return static_cast<C>(__half2float(*reinterpret_cast<const __half*>(p)));
    case SDK_BFLOAT16:
      return static_cast<C>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case SDK_FLOAT32:
      return static_cast<C>(*reinterpret_cast<const float*>(p));
    default:
      return static_cast<C>(*reinterpret_cast<const double*>(p));
  }
}

template <typename C>
__device__ __forceinline__ void store_as(char* p, int dtype, C v) {
  switch (dtype) {
    case SDK_BOOL:
      *reinterpret_cast<bool*>(p) = v != C(0);
      break;
    case SDK_UINT8:
      *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT8:
      *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT16:
      *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT32:
      *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(static_cast<int64_t>(v));
      break;
    case SDK_INT64:
      *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
      break;
    case SDK_FLOAT16:
      *reinterpret_cast<__half*>(p) = __float2half_rn(static_cast<float>(v));
      break;
    case SDK_BFLOAT16:
      *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(static_cast<float>(v));
      break;
    case SDK_FLOAT32:
      *reinterpret_cast<float*>(p) = static_cast<float>(v);
      break;
    default:
      *reinterpret_cast<double*>(p) = static_cast<double>(v);
      break;
  }
}

__host__ __device__ inline int64_t elem_size(int dtype) {
  switch (dtype) {
    case SDK_BOOL:
    case SDK_UINT8:
    case SDK_INT8:
      return 1;
    case SDK_INT16:
    case SDK_FLOAT16:
    case SDK_BFLOAT16:
      return 2;
    case SDK_INT32:
    case SDK_FLOAT32:
      return 4;
    default:
      return 8;
  }
}

__host__ __device__ inline bool is_float_dtype(int dtype) {
  return dtype >= SDK_FLOAT16 && dtype <= SDK_FLOAT64;
}

// Operand k of element `idx`: a scalar's value, else a load at the strided offset.
template <typename C>
__device__ __forceinline__ C operand_value(const sdk_cuda_operand& o, int64_t off) {
  if (o.is_scalar) return is_float_dtype(o.dtype) ? static_cast<C>(o.f) : static_cast<C>(o.i);
  return load_as<C>(o.data + off, o.dtype);
}

// Byte offsets of every operand for linear index idx (row-major over sizes).
__device__ __forceinline__ void element_offsets(const sdk_cuda_iter& it, int64_t idx,
                                                int64_t* off) {
  for (int k = 0; k < SDK_CUDA_MAX_OPERANDS; ++k) off[k] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t size = it.sizes[d];
    int64_t i = idx % size;
    idx /= size;
    for (int k = 0; k < it.nops; ++k) off[k] += i * it.ops[k].strides[d];
  }
}

}  // namespace sdk::cuda
