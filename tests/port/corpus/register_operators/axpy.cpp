// The legacy registration: torch::RegisterOperators with schemas and inferred signatures.
#include <torch/script.h>

at::Tensor axpy(at::Tensor x, at::Tensor y, double alpha) { return x * alpha + y; }

at::Tensor clamp_to(const at::Tensor& x, double bound) { return x.clamp(-bound, bound); }

static auto registry =
    torch::RegisterOperators()
        .op("corpus_regops::axpy(Tensor x, Tensor y, float alpha) -> Tensor", &axpy)
        .op("corpus_regops::clamp_to", &clamp_to);
