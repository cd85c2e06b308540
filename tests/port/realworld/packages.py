"""The table of published packages checked by the real-world port run: pinned sdists (name,
version, sha256), the sources each build takes, and the ops checked. Chosen among widely used
extensions whose PyPI release is an sdist with C++ sources (torchvision, torchaudio and
pytorch3d publish no sdist there), across fields: graphs, detection, point clouds, sorting,
attention, optimizers (differentiable, and large-scale training's SIMD CPU steps), sequence
modelling, speech, optical flow, orthogonal parametrizations, learned compression, semantic
segmentation, convolution on the sphere, NeRF sampling, gaussian splatting, quantized matmuls,
a THC-era deformable convolution, density clustering, binary-code similarity, recurrent units,
beam search and parallel scans.
CPU ops run, CUDA-only ones compile."""

from __future__ import annotations

from ._spec import Build, Op, Package
from .pkgs.attention import FAST_TRANSFORMERS
from .pkgs.audio import FAST_RNNT, TORCHLPC
from .pkgs.clustering import DBSCAN, HAMMING
from .pkgs.coding import TORCHAC
from .pkgs.cuda_kernels import AUTO_GPTQ, GSPLAT, MAMBA_SSM, NERFACC
from .pkgs.cuda_only import CAUSAL_CONV1D, DCNV2, LINEAR_ASSIGNMENT, WARP_RNNT
from .pkgs.flow import HOUSEHOLDER, SPATIAL_CORRELATION
from .pkgs.harmonics import TORCH_HARMONICS
from .pkgs.mmcv import MMCV
from .pkgs.nlp import FAIRSEQ
from .pkgs.optim import DEEPSPEED, TORCHOPT
from .pkgs.pointcloud import CHAMFERDIST, POINTS_KERNELS, TORCHSORT
from .pkgs.pyg import CLUSTER, SCATTER, SPARSE, SPLINE
from .pkgs.quantization import QTORCH
from .pkgs.sequence import BEAMGRAD, DISCOUNTED_CUMSUM, FPSCAN, SRU
from .pkgs.vision import BILATERAL, TORCH_ENCODING

__all__ = ["PACKAGES", "Build", "Op", "Package"]

PACKAGES: dict[str, Package] = {
    p.name: p
    for p in (
        SCATTER,
        MMCV,
        SPARSE,
        CLUSTER,
        CAUSAL_CONV1D,
        SPLINE,
        TORCHSORT,
        CHAMFERDIST,
        POINTS_KERNELS,
        WARP_RNNT,
        LINEAR_ASSIGNMENT,
        FAST_TRANSFORMERS,
        TORCHOPT,
        FAIRSEQ,
        FAST_RNNT,
        SPATIAL_CORRELATION,
        HOUSEHOLDER,
        NERFACC,
        GSPLAT,
        MAMBA_SSM,
        AUTO_GPTQ,
        DEEPSPEED,
        TORCHAC,
        TORCH_ENCODING,
        DCNV2,
        TORCH_HARMONICS,
        DBSCAN,
        SRU,
        BEAMGRAD,
        HAMMING,
        FPSCAN,
        TORCHLPC,
        DISCOUNTED_CUMSUM,
        QTORCH,
        BILATERAL,
    )
}
