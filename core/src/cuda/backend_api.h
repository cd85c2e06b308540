/*
 * core/src/cuda/backend_api.h: the table of functions the CUDA backend library
 * (libsdk_cuda.so) hands to the core when the core loads it.
 *
 * Internal (not installed): both sides are built from the same tree. Plain C
 * types only, so the backend needs none of the core's C++ internals and the
 * core needs no CUDA header. Every int-returning entry returns 0 or an
 * sdk_status kind; the message is then in last_error() (per thread).
 */
#ifndef SDK_CUDA_BACKEND_API_H_
#define SDK_CUDA_BACKEND_API_H_

#include <stdint.h>

#include "sdk/c_api.h"

#define SDK_CUDA_BACKEND_VERSION 5
/* Dims of an elementwise problem after merging contiguous dims. */
#define SDK_CUDA_MAX_DIMS 16
#define SDK_CUDA_MAX_OPERANDS 4
#define SDK_CUDA_BACKEND_INIT_SYMBOL "sdk_cuda_backend_init"

/* Internal unary op codes beyond sdk_unary_op (parameters in the iter). */
#define SDK_CUDA_OP_ELU 100        /* p0 = alpha */
#define SDK_CUDA_OP_CLAMP 101      /* p0 = lo, p1 = hi; has_p0/has_p1 say which */
#define SDK_CUDA_OP_SOFTPLUS 102   /* p0 = beta, p1 = threshold */
#define SDK_CUDA_OP_LEAKY_RELU 103 /* p0 = negative_slope */
#define SDK_CUDA_OP_NAN_TO_NUM 104 /* p0, p1, p2 replace NaN, +inf, -inf */
/* Internal binary op codes beyond sdk_binary_op. */
#define SDK_CUDA_OP_ADD_SCALED 100        /* a + p0 * b */
#define SDK_CUDA_OP_DIV_TRUNC 101         /* a / b rounded toward zero */
#define SDK_CUDA_OP_ISCLOSE 102           /* |a - b| <= p1 + p0 * |b| (bool) */
#define SDK_CUDA_OP_ISCLOSE_EQUAL_NAN 103 /* the same, NaN close to NaN */
/* Ternary op codes (ops: out, a, b, c; any input may be a scalar). */
#define SDK_CUDA_OP_LERP 0    /* a + c * (b - a) */
#define SDK_CUDA_OP_ADDCMUL 1 /* a + p0 * b * c */
#define SDK_CUDA_OP_ADDCDIV 2 /* a + p0 * b / c */
#define SDK_CUDA_OP_CLAMP3 3  /* min(max(a, b), c), NaN in any gives NaN */

/* One operand of an elementwise problem: strided memory, or a scalar. */
typedef struct {
  char* data;                         /* element [0, ...]; NULL for a scalar */
  int64_t strides[SDK_CUDA_MAX_DIMS]; /* bytes; 0 along broadcast dims */
  int32_t dtype;                      /* sdk_dtype_code */
  int32_t is_scalar;                  /* 1: value in f / i, already of `dtype` */
  double f;                           /* scalar value for floating dtypes */
  int64_t i;                          /* scalar value for integral dtypes and bool */
} sdk_cuda_operand;

/* An elementwise problem over `sizes`; ops[0] is the output. */
typedef struct {
  int32_t ndim;
  int32_t nops;
  int32_t device;
  int32_t has_p0;
  int32_t has_p1;
  int32_t reserved;
  int64_t numel;
  double p0; /* op parameters: elu alpha, clamp bounds, add_scaled alpha, ... */
  double p1;
  double p2;
  int64_t sizes[SDK_CUDA_MAX_DIMS];
  sdk_cuda_operand ops[SDK_CUDA_MAX_OPERANDS];
} sdk_cuda_iter;

/* A reduction: input dims split into kept (out_*) and reduced (red_*). */
typedef struct {
  int32_t op; /* sdk_reduce_op */
  int32_t device;
  int32_t out_ndim;
  int32_t red_ndim;
  int32_t in_dtype;
  int32_t out_dtype; /* the accumulator tensor's dtype */
  int64_t out_numel;
  int64_t red_numel;
  int64_t out_sizes[SDK_CUDA_MAX_DIMS];
  int64_t red_sizes[SDK_CUDA_MAX_DIMS];
  int64_t in_out_strides[SDK_CUDA_MAX_DIMS]; /* bytes, input strides along kept dims */
  int64_t in_red_strides[SDK_CUDA_MAX_DIMS]; /* bytes, input strides along reduced dims */
  int64_t out_strides[SDK_CUDA_MAX_DIMS];    /* bytes, output strides along kept dims */
  const char* in;
  char* out;
} sdk_cuda_reduce_desc;

/* c (m x n) = alpha * a (m x k) @ b (k x n) + beta * c; strides in elements.
 * beta == 0 never reads c. With batch > 1 (version 4), `batch` such products in one call:
 * product i reads a + i * a_bs and b + i * b_bs and writes c + i * c_bs (element strides;
 * 0 repeats an operand). batch 0 or 1: one product. */
typedef struct {
  int32_t dtype;
  int32_t device;
  int64_t m, n, k;
  const char* a;
  int64_t a_rs, a_cs;
  const char* b;
  int64_t b_rs, b_cs;
  char* c;
  int64_t c_rs, c_cs;
  double alpha, beta;
  int32_t allow_tf32; /* float32 may use TF32 tensor cores (version 3) */
  int32_t reserved;
  int64_t batch; /* version 4 */
  int64_t a_bs, b_bs, c_bs;
} sdk_cuda_gemm_desc;

/* A running sum (op SDK_SUM) or product (SDK_PROD) along the middle dim of contiguous
 * (outer, n, inner) tensors `in` and `out`, both of `dtype`. Floats accumulate in double,
 * integers and bool in int64 (wrapping). */
typedef struct {
  int32_t op;
  int32_t device;
  int32_t dtype;
  int32_t reserved;
  int64_t outer, n, inner;
  const char* in;
  char* out;
} sdk_cuda_scan_desc;

typedef struct sdk_cuda_backend {
  uint32_t size;    /* sizeof the table filled in by the backend */
  uint32_t version; /* SDK_CUDA_BACKEND_VERSION */
  const char* (*last_error)(void);
  /* devices and streams */
  int (*device_count)(int32_t* count);
  int (*current_device)(int32_t* index);
  int (*set_device)(int32_t index);
  int (*get_stream)(int32_t device, void** stream);
  int (*set_stream)(int32_t device, void* stream);
  int (*synchronize)(int32_t device);
  /* caching allocator (ordered on the device's current stream) */
  int (*malloc)(int64_t nbytes, int32_t device, void** ptr);
  int (*free)(void* ptr);
  int (*empty_cache)(void);
  int (*memory_stats)(int32_t device, sdk_cuda_allocator_stats* stats);
  int (*reset_peak)(int32_t device);
  /* copies: a device of -1 is host memory; synchronous for the host side */
  int (*memcpy)(void* dst, int32_t dst_device, const void* src, int32_t src_device, int64_t nbytes);
  /* kernels */
  int (*copy)(const sdk_cuda_iter* it);               /* ops: out, in (cast) or a scalar */
  int (*unary)(int32_t op, const sdk_cuda_iter* it);  /* ops: out, in */
  int (*binary)(int32_t op, const sdk_cuda_iter* it); /* ops: out, a, b */
  int (*where)(const sdk_cuda_iter* it);              /* ops: out, cond, a, b */
  int (*reduce)(const sdk_cuda_reduce_desc* desc);
  int (*gemm)(const sdk_cuda_gemm_desc* desc);
  int (*ternary)(int32_t op, const sdk_cuda_iter* it); /* ops: out, a, b, c (version 2) */
  int (*scan)(const sdk_cuda_scan_desc* desc);         /* running sum/product (version 2) */
  /* the block at ptr (from malloc) is used on `stream` too: when freed, it is reused only
   * after the work queued on that stream by then (version 3) */
  int (*record_stream)(void* ptr, void* stream);
  /* device queries, pooled streams and events (version 5; the C ABI's sdk_cuda_* of the
   * same names, devices already checked, -1 the current one) */
  int (*device_properties)(int32_t device, sdk_cuda_device_properties* props);
  int (*mem_get_info)(int32_t device, int64_t* free_bytes, int64_t* total_bytes);
  const char* (*arch_list)(void); /* space-separated sm_XY; no failure */
  int (*stream_from_pool)(int32_t device, int32_t priority, void** stream);
  int (*stream_query)(void* stream, int32_t* done);
  int (*stream_synchronize)(void* stream);
  int (*event_create)(int32_t device, uint32_t flags, void** event);
  int (*event_destroy)(void* event);
  int (*event_record)(void* event, void* stream);
  int (*stream_wait_event)(void* stream, void* event);
  int (*event_query)(void* event, int32_t* done);
  int (*event_synchronize)(void* event);
  int (*event_elapsed_time)(void* start, void* end, float* ms);
} sdk_cuda_backend;

/* Exported by libsdk_cuda.so: fill `table` (of `size` bytes). No CUDA call. */
typedef int (*sdk_cuda_backend_init_fn)(sdk_cuda_backend* table, uint32_t size);

#endif /* SDK_CUDA_BACKEND_API_H_ */
