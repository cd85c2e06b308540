// CPU kernels: nearest points through the shared host/device helpers, and a splat of point
// values into a voxel grid the caller owns (written in place, its version bumped).
#include <torch/csrc/autograd/VariableTypeUtils.h>

#include "global.h"
#include "include/nearest.h"

std::tuple<at::Tensor, at::Tensor> NearestCpu(const at::Tensor& points, const at::Tensor& queries) {
  TORCH_CHECK(points.dim() == 2 && points.size(1) == 3, "points must be (P, 3)");
  TORCH_CHECK(queries.dim() == 2 && queries.size(1) == 3, "queries must be (Q, 3)");
  const at::Tensor p = points.to(at::kFloat).contiguous();
  const at::Tensor q = queries.to(at::kFloat).contiguous();
  const int64_t Q = q.size(0);
  at::Tensor dists = at::empty({Q}, q.options());
  at::Tensor idx = at::empty({Q}, q.options().dtype(at::kLong));
  const float3* pts = reinterpret_cast<const float3*>(p.data_ptr<float>());
  const float3* qs = reinterpret_cast<const float3*>(q.data_ptr<float>());
  const cudaStream_t no_stream = nullptr;
  for (int64_t i = 0; i < Q; ++i) {
    nearest_point(pts, static_cast<int>(p.size(0)), qs[i], no_stream, dists.data_ptr<float>() + i,
                  idx.data_ptr<int64_t>() + i);
  }
  return std::make_tuple(dists, idx);
}

void SplatCpu(const at::Tensor& points, const at::Tensor& values, const at::Tensor& volume) {
  TORCH_CHECK(volume.dim() == 3 && volume.is_contiguous(), "volume must be contiguous (D, H, W)");
  TORCH_CHECK(volume.scalar_type() == at::kFloat, "volume must be float32");
  auto p = points.accessor<float, 2>();
  auto v = values.accessor<float, 1>();
  const int64_t D = volume.size(0), H = volume.size(1), W = volume.size(2);
  float* out = volume.data_ptr<float>();
  for (int64_t i = 0; i < p.size(0); ++i) {
    // points in [0, 1)^3 land in the cell that holds them; others are dropped
    const int64_t x = static_cast<int64_t>(std::floor(p[i][0] * W));
    const int64_t y = static_cast<int64_t>(std::floor(p[i][1] * H));
    const int64_t z = static_cast<int64_t>(std::floor(p[i][2] * D));
    if (x < 0 || y < 0 || z < 0 || x >= W || y >= H || z >= D) continue;
    out[(z * H + y) * W + x] += v[i];
  }
  // written through its data pointer: tell autograd, as an in-place op would
  torch::autograd::increment_version(volume);
}
