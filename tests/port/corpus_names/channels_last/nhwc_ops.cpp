// Kernels over channels-last (NHWC) memory in torch's idiom: inputs laid out with
// contiguous(at::MemoryFormat::ChannelsLast), outputs in the layout the input suggests.
#include <c10/core/MemoryFormat.h>
#include <torch/extension.h>

#include <tuple>
#include <vector>

// The mean over channels of an NCHW float32 tensor, read from NHWC memory: N x 1 x H x W.
torch::Tensor channel_mean(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 4 && input.scalar_type() == at::kFloat,
              "channel_mean: expected a 4-D float32 tensor");
  const torch::Tensor x = input.contiguous(at::MemoryFormat::ChannelsLast);
  TORCH_CHECK(x.is_contiguous(at::MemoryFormat::ChannelsLast));
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  torch::Tensor out = torch::empty({n, 1, h, w}, x.options());
  const float* src = x.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  for (int64_t pixel = 0; pixel < n * h * w; ++pixel) {
    float sum = 0;
    for (int64_t k = 0; k < c; ++k) sum += src[pixel * c + k];
    dst[pixel] = sum / static_cast<float>(c);
  }
  return out;
}

// x * scale[c], written in the layout x suggests (NHWC stays NHWC, as torch's kernels do).
torch::Tensor scale_channels(const torch::Tensor& input, const torch::Tensor& scale) {
  TORCH_CHECK(input.dim() == 4 && input.scalar_type() == at::kFloat && scale.dim() == 1 &&
                  scale.size(0) == input.size(1) && scale.scalar_type() == at::kFloat,
              "scale_channels: expected NCHW float32 input and C float32 scales");
  const at::MemoryFormat format = input.suggest_memory_format();
  const torch::Tensor x = input.contiguous(format);
  torch::Tensor out = torch::empty_like(x);
  const torch::Tensor s = scale.contiguous();
  const int64_t n = x.size(0), c = x.size(1), hw = x.size(2) * x.size(3);
  const float* src = x.data_ptr<float>();
  const float* sp = s.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  for (int64_t i = 0; i < n * c * hw; ++i) {
    const int64_t channel = format == at::MemoryFormat::ChannelsLast ? i % c : (i / hw) % c;
    dst[i] = src[i] * sp[channel];
  }
  return out;
}

// How a tensor is laid out: channels-last contiguous, suggested as channels-last, and the
// strides of a new channels-last tensor of its sizes.
std::tuple<bool, bool, std::vector<int64_t>> layout_of(const torch::Tensor& x) {
  const torch::Tensor e =
      torch::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::ChannelsLast));
  return std::make_tuple(x.is_contiguous(at::MemoryFormat::ChannelsLast),
                         x.suggest_memory_format() == at::MemoryFormat::ChannelsLast,
                         e.strides().vec());
}

// The strides of a 5-D tensor made channels-last-3d (NDHWC), and whether the copy kept the
// values (compared against the original in NCDHW order).
std::tuple<std::vector<int64_t>, bool> channels_last_3d(const torch::Tensor& x) {
  const torch::Tensor y = x.contiguous(at::MemoryFormat::ChannelsLast3d);
  return std::make_tuple(y.strides().vec(), y.equal(x));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("channel_mean", &channel_mean);
  m.def("scale_channels", &scale_channels);
  m.def("layout_of", &layout_of);
  m.def("channels_last_3d", &channels_last_3d);
}
