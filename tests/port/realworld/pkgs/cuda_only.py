"""CUDA-only packages: their kernels compiled with nvcc against the SDK's headers (no GPU
here, so nothing is run)."""

from __future__ import annotations

from .._spec import Build, Op, Package

WARP_RNNT = Package(
    name="warp-rnnt",
    version="0.7.0",
    filename="warp_rnnt-0.7.0.tar.gz",
    sha256="d50d34defc1377856bbf79b854bc2699bb87f5e48d82f5eb0151e610782d98a5",
    port_roots=(".",),
    why="RNN-transducer loss (CUDA)",
    builds=(
        Build(
            "cuda",
            ("binding.cpp", "core.cu", "core_gather.cu", "core_compact.cu"),
            (".",),
            compile_only=True,
        ),
    ),
    ops=(Op("rnnt_loss (compile only)", "cuda"),),
)

CAUSAL_CONV1D = Package(
    name="causal-conv1d",
    version="1.7.0",
    filename="causal_conv1d-1.7.0.tar.gz",
    sha256="3202758494eaa7b597ce1c282dfa188889506bfcb92cad3c407d26736bfcd32b",
    port_roots=("csrc",),
    why="Mamba's causal depthwise conv1d (CUDA)",
    builds=(
        Build(
            "cuda",
            ("csrc/causal_conv1d.cpp", "csrc/causal_conv1d_fwd.cu", "csrc/causal_conv1d_update.cu"),
            ("csrc",),
            compile_only=True,
        ),
    ),
    ops=(Op("causal_conv1d_fwd (compile only)", "cuda"),),
)

LINEAR_ASSIGNMENT = Package(
    name="torch-linear-assignment",
    version="0.1.0",
    filename="torch_linear_assignment-0.1.0.tar.gz",
    sha256="317566b2781a31a1253141a94d9a7cb8ece05be131741f582634ebbd791435d4",
    port_roots=("src",),
    why="batched Hungarian matching (CUDA)",
    builds=(
        Build(
            "cuda",
            ("src/torch_linear_assignment_cuda.cpp", "src/torch_linear_assignment_cuda_kernel.cu"),
            ("src",),
            compile_only=True,
        ),
    ),
    ops=(Op("batch_linear_assignment (compile only)", "cuda"),),
)

DCNV2 = Package(
    name="DCNv2",
    version="0.4",
    filename="DCNv2-0.4.tar.gz",
    sha256="1a7303fb929d0943227fa0cf4e95d1548484d4fd7c4a35a1d4664cc397810954",
    port_roots=("src",),
    why="deformable convolution v2, a THC-era extension (THCState, THCudaBlas_Sgemm, "
    "THCState_getCurrentStream, THCCeilDiv); its cuBLAS calls need cuBLAS's header",
    builds=(
        Build(
            "cuda",
            (
                "src/vision.cpp",
                "src/cuda/dcn_v2_cuda.cu",
                "src/cuda/dcn_v2_im2col_cuda.cu",
                "src/cuda/dcn_v2_psroi_pooling_cuda.cu",
            ),
            ("src",),
            defines=("WITH_CUDA",),
            compile_only=True,
        ),
    ),
    ops=(Op("dcn_v2_forward (compile only)", "cuda"),),
)
