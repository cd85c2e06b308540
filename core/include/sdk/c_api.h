/*
 * sdk/c_api.h: the stable C ABI of the sdk tensor core.
 *
 * This header is the only exported interface of libsdk_core. The Python
 * package `sdk`, the header-only C++ API (sdk/tensor.h) and every extension
 * reach the core through the functions declared here, and nothing else.
 * It is valid C99 and C++.
 *
 * ---------------------------------------------------------------------------
 * Stability rules
 * ---------------------------------------------------------------------------
 * 1. The ABI has a major and a minor version (SDK_ABI_VERSION_MAJOR/MINOR
 *    below, sdk_abi_version() at run time).
 * 2. Within one major version, functions, enum values and struct types are
 *    only ever ADDED (each addition bumps the minor version). Nothing is
 *    removed, renamed, reordered, or changes signature or meaning. A changed
 *    behaviour gets a new function with a `_v2` suffix; the old one stays.
 * 3. Public structs never change layout. Structs that may grow carry their
 *    own size or version as their first field.
 * 4. Enum values are fixed integers; functions take and return int32_t for
 *    them, never the enum type, so a new value never changes a signature.
 * 5. An extension built against 1.m runs on any core 1.n with n >= m.
 *    Loaders call sdk_abi_check(MAJOR, MINOR) with the version the extension
 *    was compiled against; it fails, with a message naming both versions,
 *    for another major or for a newer minor than the running core.
 *
 * ---------------------------------------------------------------------------
 * Calling conventions
 * ---------------------------------------------------------------------------
 * - Every fallible function returns sdk_status: SDK_OK (0) or an error kind.
 *   The kind and a message are kept per thread until the next failing call;
 *   fetch them with sdk_last_error_kind() / sdk_last_error_message().
 *   No C++ exception ever crosses this boundary.
 * - Results come back through the last pointer arguments. A returned
 *   sdk_tensor* is a NEW reference: release it with sdk_tensor_release().
 *   Tensor arguments are BORROWED: the callee retains what it keeps.
 * - Ops that torch offers with `out=` or in place take `sdk_tensor* out`:
 *   NULL allocates a fresh result; a tensor writes the result into it (its
 *   shape must equal the result's; its dtype must hold the result's under
 *   the casting rules). In place is `out == input`. `*result` then receives
 *   a new reference to `out`; `result` may be NULL when `out` is given.
 * - Dims may be negative (counted from the end), as in Python.
 * - Getters on a valid tensor handle cannot fail and return plain values
 *   (a NULL handle gives 0, NULL, or dtype -1, never a crash).
 *
 * Rationale: one `out` argument covers allocate, out= and in place with a
 * single entry point per op, which keeps this header readable and the
 * number of symbols that must stay stable small.
 */
#ifndef SDK_C_API_H_
#define SDK_C_API_H_

#include <stddef.h>
#include <stdint.h>

/* ========================================================================= */
/* Versions                                                                  */
/* ========================================================================= */

/*! \brief ABI major version: changes only for an incompatible ABI. */
#define SDK_ABI_VERSION_MAJOR 1
/*! \brief ABI minor version: bumped by every addition. */
#define SDK_ABI_VERSION_MINOR 14

#if defined(_WIN32)
#if defined(SDK_CORE_BUILDING)
#define SDK_API __declspec(dllexport)
#else
#define SDK_API __declspec(dllimport)
#endif
#else
#define SDK_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================= */
/* Status and errors                                                         */
/* ========================================================================= */

/*! \brief The error kinds, the one list of them: X(KIND, code, builtin, sdk_type, meaning).
 *  Each row gives the status SDK_ERROR_<KIND> = code, the Python exception of the kind
 *  (sdk.<sdk_type> where that differs from the builtin: a subclass of the builtin and of
 *  RuntimeError, which torch raises for these; else the builtin) and what it means. A Python
 *  exception's kind is the first row whose builtin it is an instance of, RUNTIME aside (the
 *  kind of anything else, and of an unknown code).
 *  Rationale: sdk._C, sdk/extension.h (pybind11 modules), the ctypes bridge, and the kernels
 *  and autograd functions written in Python all map kinds through these rows, so a kind
 *  means the same in every direction and a new one is one line (codes never change). */
#define SDK_ERRORS(X)                                                               \
  X(VALUE, 1, ValueError, InvalidArgumentError, "bad value: shape, size, argument") \
  X(TYPE, 2, TypeError, TypeError, "unsupported dtype or kind")                     \
  X(INDEX, 3, IndexError, IndexError, "index or dim out of range")                  \
  X(RUNTIME, 4, RuntimeError, RuntimeError, "any other failure")                    \
  X(MEMORY, 5, MemoryError, OutOfMemoryError, "allocation failed")                  \
  X(NOT_IMPLEMENTED, 6, NotImplementedError, NotImplementedError, "not supported here")

/*! \brief X-macro helper: the enum constant of one SDK_ERRORS row. */
#define SDK_DETAIL_ERROR_ENUM(kind, code, builtin, sdk_type, meaning) SDK_ERROR_##kind = code,

/*! \brief Status codes; every fallible function returns one (as int32_t). */
typedef enum {
  SDK_OK = 0, /*!< success */
  SDK_ERRORS(SDK_DETAIL_ERROR_ENUM)
} sdk_status_code;

/*! \brief A status: SDK_OK or one of the error kinds above. */
typedef int32_t sdk_status;

/*! \brief Kind of the last error on this thread (SDK_OK if none). */
SDK_API sdk_status sdk_last_error_kind(void);
/*! \brief Message of the last error on this thread ("" if none). Valid until
 *  the next failing call on this thread. */
SDK_API const char* sdk_last_error_message(void);
/*! \brief Record an error for this thread: lets extensions (the ctypes
 *  bridge) report a failure that the Python side raises. Returns `kind`. */
SDK_API sdk_status sdk_set_last_error(sdk_status kind, const char* message);
/*! \brief Forget the last error of this thread. */
SDK_API void sdk_clear_last_error(void);

/*! \brief The ABI version of the running core: (major << 16) | minor. */
SDK_API uint32_t sdk_abi_version(void);
/*! \brief The library's release version string, e.g. "0.1.0". */
SDK_API const char* sdk_version_string(void);
/*! \brief Check that code built against ABI major.minor can run on this
 *  core. Fails (SDK_ERROR_RUNTIME) naming both versions otherwise. */
SDK_API sdk_status sdk_abi_check(uint32_t major, uint32_t minor);

/*! \brief Check the ABI the including code was compiled against. */
#define SDK_ABI_CHECK() sdk_abi_check(SDK_ABI_VERSION_MAJOR, SDK_ABI_VERSION_MINOR)

/* ========================================================================= */
/* Data types, devices, scalars                                              */
/* ========================================================================= */

/*
 * The dtypes, the one list of them: one row per dtype, codes 0, 1, ... in order, as
 * X(NAME, code, name, Torch, itemsize, kind, cpp_type, py_alias):
 *   NAME, code  the enum constant SDK_<NAME> = code (fixed, as every enum value: rule 4);
 *   name        sdk's and torch's Python name ("float32"), what sdk_dtype_name returns;
 *   Torch       torch's ScalarType name: sdk::ScalarType::Torch and sdk::kTorch in C++ (kFloat);
 *               lowercased, the other name a schema may use ("ScalarType dt=float");
 *   itemsize    bytes per element;
 *   kind        the DLPack type code SDK_DL_<kind> (sdk_dl_type_code, below): BOOL, UINT, INT,
 *               FLOAT, BFLOAT (a float32's upper half; numpy has no such type) or one of the
 *               FLOAT8_* codes (ABI 1.10: the 8-bit floats, which DLPack 1.1 names each by its
 *               own code; numpy has none) or COMPLEX (ABI 1.11: complex64 and complex128, a
 *               real and an imaginary part of the float of half the width, real part first).
 *               Floating means FLOAT, BFLOAT or FLOAT8_* (complex is not floating, as in
 *               torch); signed means INT, floating or COMPLEX;
 *   cpp_type    the C++ element type (Half and BFloat16 are the 16-bit floats of sdk/half.h,
 *               Float8_* the 8-bit ones of sdk/float8.h, complex<T> sdk/complex.h's);
 *   py_alias    torch's other Python name for it (torch.float), or "".
 * Rationale: the core, the C++ API (sdk/dtype.h), sdk._C.DTYPES (from which sdk makes its dtype
 * objects) and the schema parser all read these rows, so each fact is written once; a new dtype
 * is a row at the end, its promotion rule (sdk_promote_types) and the kernels that take it.
 */
/*! \brief The dtypes (see above). */
#define SDK_DTYPES(X)                                                                             \
  X(BOOL, 0, "bool", Bool, 1, BOOL, bool, "")                                                     \
  X(UINT8, 1, "uint8", Byte, 1, UINT, uint8_t, "")                                                \
  X(INT8, 2, "int8", Char, 1, INT, int8_t, "")                                                    \
  X(INT16, 3, "int16", Short, 2, INT, int16_t, "short")                                           \
  X(INT32, 4, "int32", Int, 4, INT, int32_t, "int")                                               \
  X(INT64, 5, "int64", Long, 8, INT, int64_t, "long")                                             \
  X(FLOAT16, 6, "float16", Half, 2, FLOAT, Half, "half")                                          \
  X(BFLOAT16, 7, "bfloat16", BFloat16, 2, BFLOAT, BFloat16, "")                                   \
  X(FLOAT32, 8, "float32", Float, 4, FLOAT, float, "float")                                       \
  X(FLOAT64, 9, "float64", Double, 8, FLOAT, double, "double")                                    \
  X(FLOAT8_E5M2, 10, "float8_e5m2", Float8_e5m2, 1, FLOAT8_E5M2, Float8_e5m2, "")                 \
  X(FLOAT8_E4M3FN, 11, "float8_e4m3fn", Float8_e4m3fn, 1, FLOAT8_E4M3FN, Float8_e4m3fn, "")       \
  X(FLOAT8_E5M2FNUZ, 12, "float8_e5m2fnuz", Float8_e5m2fnuz, 1, FLOAT8_E5M2FNUZ, Float8_e5m2fnuz, \
    "")                                                                                           \
  X(FLOAT8_E4M3FNUZ, 13, "float8_e4m3fnuz", Float8_e4m3fnuz, 1, FLOAT8_E4M3FNUZ, Float8_e4m3fnuz, \
    "")                                                                                           \
  X(COMPLEX64, 14, "complex64", ComplexFloat, 8, COMPLEX, complex<float>, "cfloat")               \
  X(COMPLEX128, 15, "complex128", ComplexDouble, 16, COMPLEX, complex<double>, "cdouble")

/*! \brief X-macro helper: the enum constant of one SDK_DTYPES row. */
#define SDK_DETAIL_DTYPE_ENUM(NAME, code, ...) SDK_##NAME = code,

/*! \brief Element types (SDK_DTYPES). */
typedef enum { SDK_DTYPES(SDK_DETAIL_DTYPE_ENUM) } sdk_dtype_code;

/*! \brief A dtype: one of sdk_dtype_code (as int32_t). */
typedef int32_t sdk_dtype;

/*! \brief Number of dtype codes defined by this core (grows with minors). */
SDK_API int32_t sdk_dtype_count(void);
/*! \brief Bytes per element of `dtype`; 0 for an unknown code. */
SDK_API int64_t sdk_dtype_itemsize(sdk_dtype dtype);
/*! \brief Name of `dtype` ("float32"), or NULL for an unknown code. */
SDK_API const char* sdk_dtype_name(sdk_dtype dtype);
/*! \brief The dtype torch's promotion rules give to an op on a and b; -1 for an unknown code
 *  and for an 8-bit float with any other dtype (torch promotes none of them). A complex dtype
 *  with a floating one keeps the wider part: complex64 with float64 is complex128 (ABI 1.11). */
SDK_API sdk_dtype sdk_promote_types(sdk_dtype a, sdk_dtype b);

/*! \brief Device kinds; the values equal DLPack's device codes (SDK_META aside). */
typedef enum {
  SDK_CPU = 1,   /*!< host memory */
  SDK_CUDA = 2,  /*!< CUDA device memory */
  SDK_META = 127 /*!< shape-only tensors, no data (ABI 1.7; see "Meta tensors" below): no
                      DLPack code, the largest value sdk::DeviceType (int8_t) holds */
} sdk_device_type;

/*! \brief A device: kind and ordinal (0 for the CPU). */
typedef struct {
  int32_t type;  /*!< sdk_device_type */
  int32_t index; /*!< device ordinal */
} sdk_device;

/*! \brief Kinds of scalar. */
typedef enum {
  SDK_SCALAR_NONE = -1, /*!< absent (an optional bound, e.g. clamp's max) */
  SDK_SCALAR_BOOL = 0,  /*!< value in `i` (0 or 1) */
  SDK_SCALAR_INT = 1,   /*!< value in `i` */
  SDK_SCALAR_FLOAT = 2  /*!< value in `f` */
} sdk_scalar_kind;

/*! \brief A Python-like number. Its kind takes part in type promotion the
 *  way a Python scalar does in torch: int tensor + 1.5 is float32.
 *  Rationale: no union, so that every FFI (ctypes) can pass it by value. */
typedef struct {
  double f;        /*!< value when kind == SDK_SCALAR_FLOAT */
  int64_t i;       /*!< value when kind is BOOL or INT */
  int32_t kind;    /*!< sdk_scalar_kind */
  int32_t padding; /*!< zero */
} sdk_scalar;

/* ========================================================================= */
/* Tensor handles                                                            */
/* ========================================================================= */

/*! \brief Opaque, atomically refcounted tensor: a view (sizes, strides in
 *  elements, storage offset, dtype) of a shared storage on one device. */
typedef struct sdk_tensor sdk_tensor;

/*! \brief Add a reference. */
SDK_API void sdk_tensor_retain(sdk_tensor* t);
/*! \brief Drop a reference (NULL is ignored); the last one frees the view,
 *  and the storage when no other view holds it. */
SDK_API void sdk_tensor_release(sdk_tensor* t);
/*! \brief Current reference count (for tests and debugging). */
SDK_API int64_t sdk_tensor_use_count(const sdk_tensor* t);

/*! \brief Number of dimensions. */
SDK_API int64_t sdk_tensor_ndim(const sdk_tensor* t);
/*! \brief Sizes: an array of ndim values, valid while `t` lives. */
SDK_API const int64_t* sdk_tensor_sizes(const sdk_tensor* t);
/*! \brief Strides in elements: ndim values, valid while `t` lives. */
SDK_API const int64_t* sdk_tensor_strides(const sdk_tensor* t);
/*! \brief Offset of element [0, ..., 0] in the storage, in elements. */
SDK_API int64_t sdk_tensor_storage_offset(const sdk_tensor* t);
/*! \brief Number of elements (product of sizes; 1 for 0-dim). */
SDK_API int64_t sdk_tensor_numel(const sdk_tensor* t);
/*! \brief Element type. */
SDK_API sdk_dtype sdk_tensor_dtype(const sdk_tensor* t);
/*! \brief Device. */
SDK_API sdk_device sdk_tensor_device(const sdk_tensor* t);
/*! \brief Address of element [0, ..., 0] (storage base + offset); NULL for a meta tensor. */
SDK_API void* sdk_tensor_data_ptr(const sdk_tensor* t);
/*! \brief Base address of the whole storage. */
SDK_API void* sdk_tensor_storage_ptr(const sdk_tensor* t);
/*! \brief Size of the whole storage in bytes. */
SDK_API int64_t sdk_tensor_storage_nbytes(const sdk_tensor* t);
/*! \brief 1 if row-major contiguous (size-1 dims' strides ignored), else 0. */
SDK_API int32_t sdk_tensor_is_contiguous(const sdk_tensor* t);
/*! \brief Write counter shared by all views of one storage: every op that
 *  writes into an existing tensor increments it (autograd uses it to detect
 *  in-place changes to saved tensors). */
SDK_API int64_t sdk_tensor_version(const sdk_tensor* t);
/*! \brief Increment the write counter, after writing through data_ptr. */
SDK_API void sdk_tensor_bump_version(sdk_tensor* t);
/*! \brief Mark the memory of `t` read-only, for `t` and every view of it, past and future:
 *  each op that would write into it (in place, out=, copy_, fill_, index_put_, scatter_ ...)
 *  then fails with SDK_ERROR_RUNTIME naming the op and `owner`, and sdk_to_dlpack sets
 *  SDK_DLPACK_FLAG_READ_ONLY. `owner` (copied; NULL: "read-only memory") says whose memory
 *  it is, e.g. "a read-only numpy array". It cannot be undone: clone() makes a writable
 *  copy. Code that writes through sdk_tensor_data_ptr checks sdk_tensor_is_read_only
 *  itself. Since ABI 1.4.
 *  Rationale: memory borrowed from a read-only owner (a numpy array with writeable=False,
 *  a file mapped read-only) must never be written; a write to read-only pages crashes. */
SDK_API sdk_status sdk_tensor_set_read_only(sdk_tensor* t, const char* owner);
/*! \brief 1 when the memory of `t` is read-only (sdk_tensor_set_read_only, or imported
 *  from a DLPack tensor flagged READ_ONLY), else 0 (NULL: 0). Since ABI 1.4. */
SDK_API int32_t sdk_tensor_is_read_only(const sdk_tensor* t);

/* ========================================================================= */
/* Creation                                                                  */
/* ========================================================================= */

/*! \brief Uninitialised contiguous tensor. */
SDK_API sdk_status sdk_empty(int64_t ndim, const int64_t* sizes, sdk_dtype dtype, sdk_device device,
                             sdk_tensor** result);
/*! \brief Uninitialised tensor with the given strides (elements, >= 0). */
SDK_API sdk_status sdk_empty_strided(int64_t ndim, const int64_t* sizes, const int64_t* strides,
                                     sdk_dtype dtype, sdk_device device, sdk_tensor** result);
/*! \brief Tensor filled with `value` (zeros and ones are full of 0 and 1). */
SDK_API sdk_status sdk_full(int64_t ndim, const int64_t* sizes, sdk_scalar value, sdk_dtype dtype,
                            sdk_device device, sdk_tensor** result);
/*! \brief [start, end) by step, 1-D. dtype -1: int64 if all scalars are
 *  ints, else float32. */
SDK_API sdk_status sdk_arange(sdk_scalar start, sdk_scalar end, sdk_scalar step, sdk_dtype dtype,
                              sdk_device device, sdk_tensor** result);
/*! \brief `steps` evenly spaced values from start to end inclusive. */
SDK_API sdk_status sdk_linspace(double start, double end, int64_t steps, sdk_dtype dtype,
                                sdk_device device, sdk_tensor** result);
/*! \brief n x m identity (m < 0 means m = n). */
SDK_API sdk_status sdk_eye(int64_t n, int64_t m, sdk_dtype dtype, sdk_device device,
                           sdk_tensor** result);
/*! \brief Deep copy into fresh contiguous memory (row-major; sdk_empty_like
 *  with SDK_PRESERVE_FORMAT, then sdk_copy_, keeps a transposed layout). */
SDK_API sdk_status sdk_clone(const sdk_tensor* t, sdk_tensor** result);

/*! \brief How a new tensor made from another lays out its elements (torch's
 *  memory formats). */
typedef enum {
  SDK_CONTIGUOUS_FORMAT = 0, /*!< row-major */
  SDK_PRESERVE_FORMAT = 1    /*!< the source's strides when it is dense and
                                  non-overlapping (a transposed view), else
                                  dense strides in the order of the source's */
} sdk_memory_format;

/*! \brief Uninitialised tensor with t's sizes and device, laid out per
 *  `memory_format` (sdk_memory_format); dtype -1 keeps t's. Since ABI 1.2.
 *  Rationale: torch's *_like and clone preserve a dense layout, so code that
 *  walks a source and its *_like result by one linear index stays correct. */
SDK_API sdk_status sdk_empty_like(const sdk_tensor* t, sdk_dtype dtype, int32_t memory_format,
                                  sdk_tensor** result);

/*! \brief Called with (data, ctx) when the last view of wrapped memory dies. */
typedef void (*sdk_deleter)(void* data, void* ctx);

/*! \brief Wrap external memory without copying. strides NULL means
 *  contiguous. `deleter` (may be NULL) runs when the storage dies; on
 *  failure it is not called and the memory stays the caller's. */
SDK_API sdk_status sdk_from_blob(void* data, int64_t ndim, const int64_t* sizes,
                                 const int64_t* strides, sdk_dtype dtype, sdk_device device,
                                 sdk_deleter deleter, void* ctx, sdk_tensor** result);

/* ---- Reusing a wrapped tensor (ABI 1.7) ---------------------------------- */

/*! \brief Point `t`, a tensor made by sdk_from_blob with no deleter, at other memory of the
 *  same extent: `data` takes the place of the address it wraps; sizes, strides, dtype,
 *  device and the read-only mark stay. Allowed only while nothing else can see the change:
 *  the caller holds the one reference to `t` and no other view shares its memory, and `t`
 *  has no autograd state; otherwise SDK_ERROR_RUNTIME and nothing changes. Bumps the version
 *  counter. Since ABI 1.7.
 *  Rationale: a caller that wraps buffers of one fixed shape on every call (the XLA FFI
 *  handler wraps each operand of each jitted call) keeps one handle per buffer slot and
 *  re-points it, instead of making and freeing a tensor per buffer; the use-count checks
 *  make a handle that a kernel kept (an alias, a saved tensor) never change under it. */
SDK_API sdk_status sdk_from_blob_repoint(sdk_tensor* t, void* data);

/* ========================================================================= */
/* Random numbers                                                            */
/* ========================================================================= */

/*! \brief Opaque seedable random generator. */
typedef struct sdk_generator sdk_generator;

/*! \brief New generator seeded with `seed`. */
SDK_API sdk_status sdk_generator_create(uint64_t seed, sdk_generator** result);
/*! \brief Free a generator (NULL is ignored). */
SDK_API void sdk_generator_destroy(sdk_generator* gen);
/*! \brief Reseed a generator; NULL reseeds the default generator. */
SDK_API void sdk_manual_seed(sdk_generator* gen, uint64_t seed);
/*! \brief Fill `t` in place with uniform [low, high); gen NULL = default. */
SDK_API sdk_status sdk_uniform_(sdk_tensor* t, double low, double high, sdk_generator* gen);
/*! \brief Fill `t` in place with normal(mean, std); gen NULL = default. */
SDK_API sdk_status sdk_normal_(sdk_tensor* t, double mean, double std, sdk_generator* gen);
/*! \brief Fill `t` in place with integers uniform in [low, high). */
SDK_API sdk_status sdk_randint_(sdk_tensor* t, int64_t low, int64_t high, sdk_generator* gen);
/*! \brief Bytes of a generator's saved state (ABI 1.3). */
#define SDK_GENERATOR_STATE_SIZE 48
/*! \brief Copy the state of `gen` (NULL: the default generator) into `state`, which holds
 *  `size` >= SDK_GENERATOR_STATE_SIZE bytes (ABI 1.3). */
SDK_API sdk_status sdk_generator_get_state(sdk_generator* gen, void* state, int64_t size);
/*! \brief Restore a state written by sdk_generator_get_state: the next draws repeat those
 *  that followed it. Another size, format or an impossible state is SDK_ERROR_VALUE and
 *  leaves the generator as it was (ABI 1.3). */
SDK_API sdk_status sdk_generator_set_state(sdk_generator* gen, const void* state, int64_t size);

/* ========================================================================= */
/* Views: results share storage with their input                             */
/* ========================================================================= */

/*! \brief View with new sizes (one may be -1); fails if strides forbid. */
SDK_API sdk_status sdk_view(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                            sdk_tensor** result);
/*! \brief t's memory read as `dtype` (torch's Tensor.view(dtype)), which must have t's item
 *  size: same sizes, strides and offset, shared storage; TypeError naming both dtypes
 *  otherwise. How the 8-bit floats' codes are read and written as uint8. ABI 1.10. */
SDK_API sdk_status sdk_view_dtype(const sdk_tensor* t, sdk_dtype dtype, sdk_tensor** result);
/*! \brief A complex tensor's memory as its real dtype with a last dim of 2 (real, imaginary):
 *  torch's view_as_real, strides doubled, shared storage. TypeError for a non-complex tensor.
 *  ABI 1.11. */
SDK_API sdk_status sdk_view_as_real(const sdk_tensor* t, sdk_tensor** result);
/*! \brief The inverse of sdk_view_as_real (torch's view_as_complex): a float32 or float64 tensor
 *  whose last dim has size 2 and stride 1, every other stride even and its offset even, read
 *  as complex64 or complex128 without the last dim; an error naming what is wrong otherwise.
 *  ABI 1.11. */
SDK_API sdk_status sdk_view_as_complex(const sdk_tensor* t, sdk_tensor** result);
/*! \brief Like sdk_view, but copies when a view is impossible. */
SDK_API sdk_status sdk_reshape(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                               sdk_tensor** result);
/*! \brief View with explicit sizes, strides and storage offset. */
SDK_API sdk_status sdk_as_strided(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                                  const int64_t* strides, int64_t storage_offset,
                                  sdk_tensor** result);
/*! \brief sdk_as_strided in place: `t` itself takes the sizes, strides and storage offset
 *  (the same checks; its storage and data are unchanged, and every holder of `t` sees the
 *  new geometry). torch's as_strided_, and the way C++ transpose_, squeeze_, unsqueeze_ and
 *  t_ change a tensor to any strides. Since ABI 1.10. */
SDK_API sdk_status sdk_as_strided_(sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                                   const int64_t* strides, int64_t storage_offset);
/*! \brief Reorder dims: `dims` is a permutation of ndim values. */
SDK_API sdk_status sdk_permute(const sdk_tensor* t, const int64_t* dims, sdk_tensor** result);
/*! \brief Swap two dims. */
SDK_API sdk_status sdk_transpose(const sdk_tensor* t, int64_t dim0, int64_t dim1,
                                 sdk_tensor** result);
/*! \brief Elements start:end:step along dim (Python clamping; step > 0). */
SDK_API sdk_status sdk_slice(const sdk_tensor* t, int64_t dim, int64_t start, int64_t end,
                             int64_t step, sdk_tensor** result);
/*! \brief Index `index` of dim, which is removed. */
SDK_API sdk_status sdk_select(const sdk_tensor* t, int64_t dim, int64_t index, sdk_tensor** result);
/*! \brief Insert a size-1 dim at `dim` (in [-ndim-1, ndim]). */
SDK_API sdk_status sdk_unsqueeze(const sdk_tensor* t, int64_t dim, sdk_tensor** result);
/*! \brief Remove the listed dims where their size is 1; dims NULL: all
 *  size-1 dims. */
SDK_API sdk_status sdk_squeeze(const sdk_tensor* t, int64_t ndims, const int64_t* dims,
                               sdk_tensor** result);
/*! \brief Broadcast to `sizes` without copying (-1 keeps a size). */
SDK_API sdk_status sdk_expand(const sdk_tensor* t, int64_t ndim, const int64_t* sizes,
                              sdk_tensor** result);
/*! \brief Merge dims start..end into one (a view when strides allow). */
SDK_API sdk_status sdk_flatten(const sdk_tensor* t, int64_t start_dim, int64_t end_dim,
                               sdk_tensor** result);
/*! \brief `t` itself (new reference) if contiguous, else a contiguous copy. */
SDK_API sdk_status sdk_contiguous(const sdk_tensor* t, sdk_tensor** result);
/*! \brief Split dim into pieces of the given sizes (summing to its size);
 *  `results` has room for `n` tensors. */
SDK_API sdk_status sdk_split_with_sizes(const sdk_tensor* t, int64_t n, const int64_t* sizes,
                                        int64_t dim, sdk_tensor** results);
/*! \brief The diagonal of the (dim1, dim2) planes as a view: those two dims are removed
 *  and one of the diagonal's length is appended. offset > 0 is above the main diagonal,
 *  < 0 below (torch's diagonal). Since ABI 1.3. */
SDK_API sdk_status sdk_diagonal(const sdk_tensor* t, int64_t offset, int64_t dim1, int64_t dim2,
                                sdk_tensor** result);
/*! \brief Every window of `size` elements along `dimension`, `step` apart, as a view: that
 *  dim becomes the window count and a last dim of `size` is appended (torch's
 *  Tensor.unfold). Since ABI 1.3. */
SDK_API sdk_status sdk_unfold(const sdk_tensor* t, int64_t dimension, int64_t size, int64_t step,
                              sdk_tensor** result);
/*! \brief Give `t` new sizes in place, with contiguous strides and the same storage offset.
 *  A storage too small for them is replaced by a larger one holding the old bytes first
 *  (the other views keep the old storage, which lives on as long as any of them or `t`
 *  does, so memory exported before stays valid); the new elements are uninitialised.
 *  RuntimeError for wrapped memory (from_blob, DLPack), which cannot grow. Since ABI 1.3.
 *  Rationale: torch's resize_, the way C++ kernels size an `out` tensor. */
SDK_API sdk_status sdk_resize_(sdk_tensor* t, int64_t ndim, const int64_t* sizes);

/* ========================================================================= */
/* Storages: the memory tensors share (ABI 1.12)                            */
/* ========================================================================= */
/* A storage is the one allocation behind a tensor and all its views: bytes on one device,
 * refcounted by every tensor on it and every sdk_storage handle. A handle keeps the memory
 * alive after the tensors are gone; a tensor moved onto a storage (sdk_tensor_set_storage_)
 * keeps it alive after the tensor it came from is freed. The read-only mark
 * (sdk_tensor_set_read_only) belongs to the storage, so every tensor on it is read-only.
 * Rationale: torch's Tensor::storage(), Storage and set_ let an extension tell whether two
 * tensors share memory (Storage::is_alias_of), read the whole allocation (nbytes, data) and
 * point one tensor at another's memory (set_); a storage handle, rather than a raw pointer
 * and size, is what makes the last safe: the core checks every geometry against the bytes
 * the storage holds and keeps the memory alive for as long as it is reachable. */

/*! \brief Opaque, atomically refcounted storage. */
typedef struct sdk_storage sdk_storage;

/*! \brief A NEW reference to the storage of `t` (release it with sdk_storage_release). Two
 *  tensors share memory exactly when their storages are the same handle. ABI 1.12. */
SDK_API sdk_status sdk_tensor_storage(const sdk_tensor* t, sdk_storage** result);
/*! \brief Add a reference. ABI 1.12. */
SDK_API void sdk_storage_retain(sdk_storage* s);
/*! \brief Drop a reference (NULL is ignored); the last one, of the handles and the tensors
 *  on the storage together, frees the memory. ABI 1.12. */
SDK_API void sdk_storage_release(sdk_storage* s);
/*! \brief References to the storage: the tensors on it plus the handles (NULL: 0). ABI 1.12. */
SDK_API int64_t sdk_storage_use_count(const sdk_storage* s);
/*! \brief Address of the first byte; NULL for a meta storage (and for NULL). ABI 1.12. */
SDK_API void* sdk_storage_data_ptr(const sdk_storage* s);
/*! \brief Size in bytes (NULL: 0). ABI 1.12. */
SDK_API int64_t sdk_storage_nbytes(const sdk_storage* s);
/*! \brief Device of the memory (NULL: the CPU). ABI 1.12. */
SDK_API sdk_device sdk_storage_device(const sdk_storage* s);
/*! \brief 1 when the memory is read-only (see sdk_tensor_set_read_only), else 0. ABI 1.12. */
SDK_API int32_t sdk_storage_is_read_only(const sdk_storage* s);
/*! \brief 1 when the core allocated the memory (sdk_resize_ may then move a tensor to a
 *  larger copy), 0 for wrapped memory (sdk_from_blob, DLPack, numpy). ABI 1.12. */
SDK_API int32_t sdk_storage_resizable(const sdk_storage* s);

/*! \brief torch's set_(source, storage_offset, size, stride): `t` itself views `storage`
 *  (same device as `t`) with its own dtype and the given sizes, strides (NULL: contiguous)
 *  and storage offset (in elements of t's dtype). Sizes, strides and offset must be >= 0
 *  and every byte of the element farthest from the start inside the storage, else
 *  SDK_ERROR_VALUE naming that extent and the storage's size (torch grows a storage that is
 *  too small; here a storage keeps its size, so nothing past its end is ever read). While grad mode
 * is on, a `t` that requires grad is refused (SDK_ERROR_RUNTIME; set_ has no derivative, and torch
 * refuses a leaf). Like sdk_resize_, it changes `t` for every holder of it; the old storage lives
 * on in its other tensors and handles. ABI 1.12. */
SDK_API sdk_status sdk_tensor_set_storage_(sdk_tensor* t, sdk_storage* storage,
                                           int64_t storage_offset, int64_t ndim,
                                           const int64_t* sizes, const int64_t* strides);
/*! \brief torch's set_(source): `t` takes the storage, storage offset, sizes and strides of
 *  `source`, which must have t's dtype (SDK_ERROR_TYPE naming both) and device. While grad
 *  mode is on, a `source` that requires grad is refused as well (the result would have to
 *  require grad with no derivative). ABI 1.12. */
SDK_API sdk_status sdk_tensor_set_tensor_(sdk_tensor* t, const sdk_tensor* source);

/* ========================================================================= */
/* Elementwise ops (numpy broadcasting, any strides, torch type promotion)   */
/* ========================================================================= */

/*
 * The op tables. Each lists an op family once, in code order, as X(NAME, name, code):
 * SDK_NAME = code is the enum value the functions take, and `name` is the op's torch name,
 * which the core's messages and the Python bindings use (sdk._C.UNARY_OPS maps it to the
 * code). A new op is one new line at the end of its table (rule 2: codes never change).
 */
/*! \brief Unary elementwise ops for sdk_unary. Floating math (exp, log, trigonometric and
 *  hyperbolic functions, sigmoid, GELU, SILU, MISH, erf and its kin) gives float32 for integer
 *  and bool inputs; ISNAN, ISINF, ISFINITE, ISPOSINF and ISNEGINF give bool; FLOOR, CEIL,
 *  ROUND and TRUNC keep integer dtypes; FRAC needs a floating input. GELU is the exact (erf)
 *  form. */
#define SDK_UNARY_OPS(X)          \
  X(NEG, neg, 0)                  \
  X(ABS, abs, 1)                  \
  X(EXP, exp, 2)                  \
  X(LOG, log, 3)                  \
  X(SQRT, sqrt, 4)                \
  X(RSQRT, rsqrt, 5)              \
  X(SIN, sin, 6)                  \
  X(COS, cos, 7)                  \
  X(TANH, tanh, 8)                \
  X(SIGMOID, sigmoid, 9)          \
  X(RELU, relu, 10)               \
  X(GELU, gelu, 11)               \
  X(LOGICAL_NOT, logical_not, 12) \
  X(SIGN, sign, 13)               \
  X(RECIPROCAL, reciprocal, 14)   \
  X(SQUARE, square, 15)           \
  X(LOG1P, log1p, 16)             \
  X(EXPM1, expm1, 17)             \
  X(FLOOR, floor, 18)             \
  X(CEIL, ceil, 19)               \
  X(ROUND, round, 20)             \
  X(ERF, erf, 21)                 \
  X(BITWISE_NOT, bitwise_not, 22) \
  X(TAN, tan, 23)                 \
  X(ASIN, asin, 24)               \
  X(ACOS, acos, 25)               \
  X(ATAN, atan, 26)               \
  X(SINH, sinh, 27)               \
  X(COSH, cosh, 28)               \
  X(ASINH, asinh, 29)             \
  X(ACOSH, acosh, 30)             \
  X(ATANH, atanh, 31)             \
  X(LOG2, log2, 32)               \
  X(LOG10, log10, 33)             \
  X(EXP2, exp2, 34)               \
  X(TRUNC, trunc, 35)             \
  X(FRAC, frac, 36)               \
  X(ISNAN, isnan, 37)             \
  X(ISINF, isinf, 38)             \
  X(ISFINITE, isfinite, 39)       \
  X(ISPOSINF, isposinf, 40)       \
  X(ISNEGINF, isneginf, 41)       \
  X(SILU, silu, 42)               \
  X(MISH, mish, 43)               \
  X(ERFC, erfc, 44)               \
  X(ERFINV, erfinv, 45)

/*! \brief Binary elementwise ops for sdk_binary / sdk_binary_scalar. DIV is true division
 *  (integers give float32); comparisons and logical ops give bool; REMAINDER takes the sign
 *  of the divisor (Python's convention), FMOD the sign of the dividend (C's fmod); ATAN2,
 *  HYPOT, COPYSIGN, LOGADDEXP and XLOGY are floating math (integers give float32). */
#define SDK_BINARY_OPS(X)           \
  X(ADD, add, 0)                    \
  X(SUB, sub, 1)                    \
  X(MUL, mul, 2)                    \
  X(DIV, div, 3)                    \
  X(POW, pow, 4)                    \
  X(MAXIMUM, maximum, 5)            \
  X(MINIMUM, minimum, 6)            \
  X(EQ, eq, 7)                      \
  X(NE, ne, 8)                      \
  X(LT, lt, 9)                      \
  X(LE, le, 10)                     \
  X(GT, gt, 11)                     \
  X(GE, ge, 12)                     \
  X(LOGICAL_AND, logical_and, 13)   \
  X(LOGICAL_OR, logical_or, 14)     \
  X(LOGICAL_XOR, logical_xor, 15)   \
  X(FLOOR_DIVIDE, floor_divide, 16) \
  X(REMAINDER, remainder, 17)       \
  X(BITWISE_AND, bitwise_and, 18)   \
  X(BITWISE_OR, bitwise_or, 19)     \
  X(BITWISE_XOR, bitwise_xor, 20)   \
  X(ATAN2, atan2, 21)               \
  X(FMOD, fmod, 22)                 \
  X(HYPOT, hypot, 23)               \
  X(COPYSIGN, copysign, 24)         \
  X(LOGADDEXP, logaddexp, 25)       \
  X(XLOGY, xlogy, 26)

/*
 * Per-op facts: a second table for each op table above, one row per op in the same order, as
 * X(NAME, name, differentiable, inplace, bool_result), each fact 0 or 1:
 *   differentiable  sdk's autograd records the op (its formula is a row of
 *                   sdk/autograd/derivatives.py); 0 for ops whose result is bool or integer;
 *   inplace         the op has torch's in-place form name_ (sdk.Tensor and the C++ API); a
 *                   bool result is then written in self's dtype, as torch's eq_ does;
 *   bool_result     the result is bool whatever the inputs; without `inplace` such an op has
 *                   no in-place form (no isnan_()); the C++ API gives every other op name_.
 * The op tables keep their X(NAME, name, code) shape (code that expands them stays valid);
 * these rows are what the C++ API (sdk/op_table.h) and sdk._C (UNARY_OP_FACTS,
 * BINARY_OP_FACTS) derive the rest from, and sdk's Python functions and Tensor methods follow
 * sdk._C. A new op is a line at the end of its op table and a line at the end of its facts
 * table; the C++ API refuses to compile when the two disagree.
 */
/*! \brief Facts of SDK_UNARY_OPS. */
#define SDK_UNARY_OP_FACTS(X)          \
  X(NEG, neg, 1, 1, 0)                 \
  X(ABS, abs, 1, 1, 0)                 \
  X(EXP, exp, 1, 1, 0)                 \
  X(LOG, log, 1, 1, 0)                 \
  X(SQRT, sqrt, 1, 1, 0)               \
  X(RSQRT, rsqrt, 1, 1, 0)             \
  X(SIN, sin, 1, 1, 0)                 \
  X(COS, cos, 1, 1, 0)                 \
  X(TANH, tanh, 1, 1, 0)               \
  X(SIGMOID, sigmoid, 1, 1, 0)         \
  X(RELU, relu, 1, 1, 0)               \
  X(GELU, gelu, 1, 0, 0)               \
  X(LOGICAL_NOT, logical_not, 0, 1, 1) \
  X(SIGN, sign, 1, 1, 0)               \
  X(RECIPROCAL, reciprocal, 1, 1, 0)   \
  X(SQUARE, square, 1, 1, 0)           \
  X(LOG1P, log1p, 1, 1, 0)             \
  X(EXPM1, expm1, 1, 1, 0)             \
  X(FLOOR, floor, 1, 1, 0)             \
  X(CEIL, ceil, 1, 1, 0)               \
  X(ROUND, round, 1, 1, 0)             \
  X(ERF, erf, 1, 1, 0)                 \
  X(BITWISE_NOT, bitwise_not, 0, 1, 0) \
  X(TAN, tan, 1, 1, 0)                 \
  X(ASIN, asin, 1, 1, 0)               \
  X(ACOS, acos, 1, 1, 0)               \
  X(ATAN, atan, 1, 1, 0)               \
  X(SINH, sinh, 1, 1, 0)               \
  X(COSH, cosh, 1, 1, 0)               \
  X(ASINH, asinh, 1, 1, 0)             \
  X(ACOSH, acosh, 1, 1, 0)             \
  X(ATANH, atanh, 1, 1, 0)             \
  X(LOG2, log2, 1, 1, 0)               \
  X(LOG10, log10, 1, 1, 0)             \
  X(EXP2, exp2, 1, 1, 0)               \
  X(TRUNC, trunc, 1, 1, 0)             \
  X(FRAC, frac, 1, 1, 0)               \
  X(ISNAN, isnan, 0, 0, 1)             \
  X(ISINF, isinf, 0, 0, 1)             \
  X(ISFINITE, isfinite, 0, 0, 1)       \
  X(ISPOSINF, isposinf, 0, 0, 1)       \
  X(ISNEGINF, isneginf, 0, 0, 1)       \
  X(SILU, silu, 1, 0, 0)               \
  X(MISH, mish, 1, 0, 0)               \
  X(ERFC, erfc, 1, 1, 0)               \
  X(ERFINV, erfinv, 1, 1, 0)

/*! \brief Facts of SDK_BINARY_OPS. */
#define SDK_BINARY_OP_FACTS(X)           \
  X(ADD, add, 1, 1, 0)                   \
  X(SUB, sub, 1, 1, 0)                   \
  X(MUL, mul, 1, 1, 0)                   \
  X(DIV, div, 1, 1, 0)                   \
  X(POW, pow, 1, 1, 0)                   \
  X(MAXIMUM, maximum, 1, 0, 0)           \
  X(MINIMUM, minimum, 1, 0, 0)           \
  X(EQ, eq, 0, 1, 1)                     \
  X(NE, ne, 0, 1, 1)                     \
  X(LT, lt, 0, 1, 1)                     \
  X(LE, le, 0, 1, 1)                     \
  X(GT, gt, 0, 1, 1)                     \
  X(GE, ge, 0, 1, 1)                     \
  X(LOGICAL_AND, logical_and, 0, 1, 1)   \
  X(LOGICAL_OR, logical_or, 0, 1, 1)     \
  X(LOGICAL_XOR, logical_xor, 0, 1, 1)   \
  X(FLOOR_DIVIDE, floor_divide, 1, 1, 0) \
  X(REMAINDER, remainder, 1, 1, 0)       \
  X(BITWISE_AND, bitwise_and, 0, 1, 0)   \
  X(BITWISE_OR, bitwise_or, 0, 1, 0)     \
  X(BITWISE_XOR, bitwise_xor, 0, 1, 0)   \
  X(ATAN2, atan2, 1, 1, 0)               \
  X(FMOD, fmod, 1, 1, 0)                 \
  X(HYPOT, hypot, 1, 1, 0)               \
  X(COPYSIGN, copysign, 1, 1, 0)         \
  X(LOGADDEXP, logaddexp, 1, 0, 0)       \
  X(XLOGY, xlogy, 1, 1, 0)

#define SDK_DETAIL_OP_ENUM(NAME, name, code) SDK_##NAME = code,
/*! \brief Unary op codes (SDK_UNARY_OPS). */
typedef enum { SDK_UNARY_OPS(SDK_DETAIL_OP_ENUM) } sdk_unary_op;
/*! \brief Binary op codes (SDK_BINARY_OPS). */
typedef enum { SDK_BINARY_OPS(SDK_DETAIL_OP_ENUM) } sdk_binary_op;

/*! \brief out = op(x). */
SDK_API sdk_status sdk_unary(int32_t op, const sdk_tensor* x, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = op(a, b), broadcasting a against b. */
SDK_API sdk_status sdk_binary(int32_t op, const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                              sdk_tensor** result);
/*! \brief out = op(a, s), or op(s, a) when scalar_first is nonzero. */
SDK_API sdk_status sdk_binary_scalar(int32_t op, const sdk_tensor* a, sdk_scalar s,
                                     int32_t scalar_first, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = a + alpha * b (torch's add/sub with alpha; sub is -alpha). */
SDK_API sdk_status sdk_add_scaled(const sdk_tensor* a, const sdk_tensor* b, sdk_scalar alpha,
                                  sdk_tensor* out, sdk_tensor** result);
/*! \brief out = x if x > 0 else alpha * (exp(x) - 1). */
SDK_API sdk_status sdk_elu(const sdk_tensor* x, double alpha, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = min(max(x, lo), hi); a bound of kind SDK_SCALAR_NONE is open. */
SDK_API sdk_status sdk_clamp(const sdk_tensor* x, sdk_scalar lo, sdk_scalar hi, sdk_tensor* out,
                             sdk_tensor** result);
/*! \brief out = cond ? a : b, all three broadcast together (cond is bool). */
SDK_API sdk_status sdk_where(const sdk_tensor* cond, const sdk_tensor* a, const sdk_tensor* b,
                             sdk_tensor* out, sdk_tensor** result);
/*! \brief out = mask ? value : t (mask is bool, broadcast to t). */
SDK_API sdk_status sdk_masked_fill(const sdk_tensor* t, const sdk_tensor* mask, sdk_scalar value,
                                   sdk_tensor* out, sdk_tensor** result);
/*! \brief Cast to dtype. Without `copy`, returns `t` itself when the dtype
 *  already matches. */
SDK_API sdk_status sdk_to_dtype(const sdk_tensor* t, sdk_dtype dtype, int32_t copy,
                                sdk_tensor** result);
/*! \brief Set every element of `t` to `value`. */
SDK_API sdk_status sdk_fill_(sdk_tensor* t, sdk_scalar value);
/*! \brief Copy `src` into `dst`, broadcasting and casting. */
SDK_API sdk_status sdk_copy_(sdk_tensor* dst, const sdk_tensor* src);

/* Since ABI 1.3: ops with parameters, rounding division, ternary ops and closeness. Each
 * takes `out` like the ops above (NULL allocates; `out == input` is in place). */

/*! \brief torch's rounding modes of div (sdk_div_rounding). */
typedef enum {
  SDK_ROUNDING_NONE = 0,  /*!< true division, as SDK_DIV */
  SDK_ROUNDING_TRUNC = 1, /*!< rounded toward zero; integers stay integers */
  SDK_ROUNDING_FLOOR = 2  /*!< rounded toward -inf, as SDK_FLOOR_DIVIDE */
} sdk_rounding_mode;

/*! \brief out = a / b rounded per `rounding_mode` (sdk_rounding_mode), broadcasting.
 *  Integer division by zero is an error (RuntimeError). */
SDK_API sdk_status sdk_div_rounding(const sdk_tensor* a, const sdk_tensor* b, int32_t rounding_mode,
                                    sdk_tensor* out, sdk_tensor** result);
/*! \brief sdk_div_rounding with a scalar: a / s, or s / a when scalar_first is nonzero. */
SDK_API sdk_status sdk_div_rounding_scalar(const sdk_tensor* a, sdk_scalar s, int32_t scalar_first,
                                           int32_t rounding_mode, sdk_tensor* out,
                                           sdk_tensor** result);
/*! \brief out = log(1 + exp(beta * x)) / beta, or x where beta * x > threshold. */
SDK_API sdk_status sdk_softplus(const sdk_tensor* x, double beta, double threshold, sdk_tensor* out,
                                sdk_tensor** result);
/*! \brief out = x if x > 0 else negative_slope * x. */
SDK_API sdk_status sdk_leaky_relu(const sdk_tensor* x, double negative_slope, sdk_tensor* out,
                                  sdk_tensor** result);
/*! \brief x with NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf`. A bound of kind
 *  SDK_SCALAR_NONE takes torch's default: 0 for NaN, the dtype's largest finite value for
 *  +inf and its lowest for -inf. Integer and bool tensors are copied unchanged. */
SDK_API sdk_status sdk_nan_to_num(const sdk_tensor* x, sdk_scalar nan, sdk_scalar posinf,
                                  sdk_scalar neginf, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = min(max(x, min), max) with tensor bounds, all broadcast together, in the
 *  promoted dtype; a NULL bound is open (at least one is given). A NaN in x or in a bound
 *  gives NaN. */
SDK_API sdk_status sdk_clamp_tensor(const sdk_tensor* x, const sdk_tensor* min,
                                    const sdk_tensor* max, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = input + weight * (end - input), all broadcast together; input, end and weight
 *  share one floating dtype. */
SDK_API sdk_status sdk_lerp(const sdk_tensor* input, const sdk_tensor* end,
                            const sdk_tensor* weight, sdk_tensor* out, sdk_tensor** result);
/*! \brief sdk_lerp with a scalar weight. */
SDK_API sdk_status sdk_lerp_scalar(const sdk_tensor* input, const sdk_tensor* end,
                                   sdk_scalar weight, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = input + value * tensor1 * tensor2, broadcast, in the promoted dtype. */
SDK_API sdk_status sdk_addcmul(const sdk_tensor* input, const sdk_tensor* tensor1,
                               const sdk_tensor* tensor2, sdk_scalar value, sdk_tensor* out,
                               sdk_tensor** result);
/*! \brief out = input + value * tensor1 / tensor2, broadcast, in the promoted dtype
 *  (tensor1 and tensor2 both integral is an error, as in torch). */
SDK_API sdk_status sdk_addcdiv(const sdk_tensor* input, const sdk_tensor* tensor1,
                               const sdk_tensor* tensor2, sdk_scalar value, sdk_tensor* out,
                               sdk_tensor** result);
/*! \brief Bool tensor: |a - b| <= atol + rtol * |b| (and finite), or a == b; NaNs equal
 *  each other when equal_nan is nonzero. a and b broadcast and must share a dtype. */
SDK_API sdk_status sdk_isclose(const sdk_tensor* a, const sdk_tensor* b, double rtol, double atol,
                               int32_t equal_nan, sdk_tensor** result);

/* ========================================================================= */
/* Reductions                                                                */
/* ========================================================================= */

/*! \brief Reductions for sdk_reduce (an op table as above). AMAX/AMIN give values only; ALL
 *  and ANY give bool. SUMSQ (ABI 1.13) is the sum of the squares x * x (a 2-norm before its
 *  square root, in one pass), with SUM's dtypes. */
#define SDK_REDUCE_OPS(X) \
  X(SUM, sum, 0)          \
  X(MEAN, mean, 1)        \
  X(PROD, prod, 2)        \
  X(AMAX, amax, 3)        \
  X(AMIN, amin, 4)        \
  X(ALL, all, 5)          \
  X(ANY, any, 6)          \
  X(SUMSQ, sumsq, 7)

/*! \brief Reduction codes (SDK_REDUCE_OPS). */
typedef enum { SDK_REDUCE_OPS(SDK_DETAIL_OP_ENUM) } sdk_reduce_op;

/*! \brief Reduce over `dims` (NULL: all dims). dtype -1 picks torch's
 *  default (sum of ints/bools is int64, mean needs a float type). */
SDK_API sdk_status sdk_reduce(int32_t op, const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                              int32_t keepdim, sdk_dtype dtype, sdk_tensor* out,
                              sdk_tensor** result);
/*! \brief Max over one dim: values and int64 indices (first occurrence). */
SDK_API sdk_status sdk_max_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                               sdk_tensor** values, sdk_tensor** indices);
/*! \brief Min over one dim: values and int64 indices (first occurrence). */
SDK_API sdk_status sdk_min_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                               sdk_tensor** values, sdk_tensor** indices);
/*! \brief Index of the max (is_min 0) or min (is_min 1) over `dim`, or over
 *  the flattened tensor when dim_given is 0. */
SDK_API sdk_status sdk_arg_extremum(const sdk_tensor* x, int32_t is_min, int32_t dim_given,
                                    int64_t dim, int32_t keepdim, sdk_tensor** result);
/*! \brief Variance over `dims` (NULL: all) with `correction` (1 = Bessel). */
SDK_API sdk_status sdk_var(const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                           double correction, int32_t keepdim, sdk_tensor** result);
/*! \brief Standard deviation: sqrt of sdk_var. */
SDK_API sdk_status sdk_std(const sdk_tensor* x, int64_t ndims, const int64_t* dims,
                           double correction, int32_t keepdim, sdk_tensor** result);
/*! \brief Softmax along dim (floating input). */
SDK_API sdk_status sdk_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result);
/*! \brief log(softmax) along dim, computed stably. */
SDK_API sdk_status sdk_log_softmax(const sdk_tensor* x, int64_t dim, sdk_tensor** result);

/* Scans and sorting along one dim (ABI 1.3). Indices are int64. NaN orders above every
 * number, as in torch: last in an ascending sort, first in a descending one. */

/*! \brief Running sum along dim. dtype -1 keeps a floating input's dtype and gives int64
 *  for integer and bool inputs; another dtype casts the input to it first (torch's rule). */
SDK_API sdk_status sdk_cumsum(const sdk_tensor* x, int64_t dim, sdk_dtype dtype, sdk_tensor* out,
                              sdk_tensor** result);
/*! \brief Running product along dim; dtype as sdk_cumsum. */
SDK_API sdk_status sdk_cumprod(const sdk_tensor* x, int64_t dim, sdk_dtype dtype, sdk_tensor* out,
                               sdk_tensor** result);
/*! \brief Running max along dim and where it was reached (the last of equal values; from
 *  the first NaN on, NaN and the index of the latest NaN). */
SDK_API sdk_status sdk_cummax(const sdk_tensor* x, int64_t dim, sdk_tensor** values,
                              sdk_tensor** indices);
/*! \brief Running min along dim; indices as sdk_cummax. */
SDK_API sdk_status sdk_cummin(const sdk_tensor* x, int64_t dim, sdk_tensor** values,
                              sdk_tensor** indices);
/*! \brief Sort along dim: values, and the indices they came from. Equal values keep their
 *  order whether or not `stable` is set (the sort is always stable). */
SDK_API sdk_status sdk_sort(const sdk_tensor* x, int64_t dim, int32_t descending, int32_t stable,
                            sdk_tensor** values, sdk_tensor** indices);
/*! \brief The k largest (largest 1) or smallest (0) values along dim and their indices;
 *  in sorted order when `sorted`, else in an unspecified order. Of equal values the first
 *  ones are taken. */
SDK_API sdk_status sdk_topk(const sdk_tensor* x, int64_t k, int64_t dim, int32_t largest,
                            int32_t sorted, sdk_tensor** values, sdk_tensor** indices);
/*! \brief The k-th smallest value along dim (k from 1) and an index holding it. */
SDK_API sdk_status sdk_kthvalue(const sdk_tensor* x, int64_t k, int64_t dim, int32_t keepdim,
                                sdk_tensor** values, sdk_tensor** indices);
/*! \brief The lower median along dim (the ((n - 1) / 2)-th smallest) and an index holding
 *  it; NaN and the index of the first NaN when there is one (torch's median). */
SDK_API sdk_status sdk_median_dim(const sdk_tensor* x, int64_t dim, int32_t keepdim,
                                  sdk_tensor** values, sdk_tensor** indices);

/* ========================================================================= */
/* Linear algebra (BLAS-backed for float32/float64)                          */
/* ========================================================================= */

/*! \brief (n, k) @ (k, m). */
SDK_API sdk_status sdk_mm(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                          sdk_tensor** result);
/*! \brief beta * bias + alpha * (a @ b); bias broadcasts to (n, m). */
SDK_API sdk_status sdk_addmm(const sdk_tensor* bias, const sdk_tensor* a, const sdk_tensor* b,
                             sdk_scalar beta, sdk_scalar alpha, sdk_tensor* out,
                             sdk_tensor** result);
/*! \brief (B, n, k) @ (B, k, m). */
SDK_API sdk_status sdk_bmm(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                           sdk_tensor** result);
/*! \brief numpy matmul: 1-D promotion, batch dims broadcast. */
SDK_API sdk_status sdk_matmul(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor* out,
                              sdk_tensor** result);
/*! \brief (n, k) @ (k,). */
SDK_API sdk_status sdk_mv(const sdk_tensor* a, const sdk_tensor* x, sdk_tensor* out,
                          sdk_tensor** result);
/*! \brief Inner product of two 1-D tensors (0-dim result). */
SDK_API sdk_status sdk_dot(const sdk_tensor* a, const sdk_tensor* b, sdk_tensor** result);
/*! \brief torch's einsum: `equation` in its notation ("ij,jk->ik", "...ij->...ji",
 *  "ii->i", implicit output when there is no "->") over n operands. Repeated
 *  subscripts take diagonals; size-1 dims broadcast. The result may be a view
 *  of an operand (as in torch). */
SDK_API sdk_status sdk_einsum(const char* equation, int64_t n, const sdk_tensor* const* operands,
                              sdk_tensor** result);

/* ========================================================================= */
/* Neural-network layers (float types, CPU)                                  */
/* ========================================================================= */
/* Forward and backward kernels of the layers whose backward is worth fusing.
 * A backward takes `output_mask`: bit 0 asks for the input's gradient, bit 1
 * the weight's, bit 2 the bias's; results not asked for are set to NULL. */

/*! \brief torch's layer_norm over the last `normalized_ndim` dims: (x - mean) /
 *  sqrt(var + eps) * weight + bias (biased variance; weight and bias, shaped
 *  like those dims, may be NULL). `mean` and `rstd` (may be NULL) receive the
 *  per-row statistics that sdk_layer_norm_backward takes: shape = the leading
 *  dims, float32 (float64 for a float64 input). */
SDK_API sdk_status sdk_layer_norm(const sdk_tensor* input, int64_t normalized_ndim,
                                  const sdk_tensor* weight, const sdk_tensor* bias, double eps,
                                  sdk_tensor** result, sdk_tensor** mean, sdk_tensor** rstd);
/*! \brief Gradients of sdk_layer_norm (weight may be NULL: no weight/bias grads). */
SDK_API sdk_status sdk_layer_norm_backward(const sdk_tensor* grad_output, const sdk_tensor* input,
                                           const sdk_tensor* mean, const sdk_tensor* rstd,
                                           int64_t normalized_ndim, const sdk_tensor* weight,
                                           int32_t output_mask, sdk_tensor** grad_input,
                                           sdk_tensor** grad_weight, sdk_tensor** grad_bias);
/*! \brief torch's conv1d (n_spatial 1) and conv2d (2), a cross-correlation:
 *  input (N, C, *spatial), weight (C_out, C / groups, *kernel), bias (C_out)
 *  or NULL; stride, padding (zeros, both sides) and dilation give n_spatial
 *  values each. float32/float64 (im2col and the BLAS GEMM). */
SDK_API sdk_status sdk_convolution(const sdk_tensor* input, const sdk_tensor* weight,
                                   const sdk_tensor* bias, int64_t n_spatial, const int64_t* stride,
                                   const int64_t* padding, const int64_t* dilation, int64_t groups,
                                   sdk_tensor** result);
/*! \brief Gradients of sdk_convolution. */
SDK_API sdk_status sdk_convolution_backward(const sdk_tensor* grad_output, const sdk_tensor* input,
                                            const sdk_tensor* weight, int64_t n_spatial,
                                            const int64_t* stride, const int64_t* padding,
                                            const int64_t* dilation, int64_t groups,
                                            int32_t output_mask, sdk_tensor** grad_input,
                                            sdk_tensor** grad_weight, sdk_tensor** grad_bias);

/* ========================================================================= */
/* Joining and indexing                                                      */
/* ========================================================================= */

/*! \brief Concatenate `n` tensors along an existing dim. */
SDK_API sdk_status sdk_cat(int64_t n, const sdk_tensor* const* tensors, int64_t dim,
                           sdk_tensor* out, sdk_tensor** result);
/*! \brief Join `n` same-shaped tensors along a new dim. */
SDK_API sdk_status sdk_stack(int64_t n, const sdk_tensor* const* tensors, int64_t dim,
                             sdk_tensor* out, sdk_tensor** result);
/*! \brief Entries of `t` at the int64/int32 `index` (1-D) along dim. */
SDK_API sdk_status sdk_index_select(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                    sdk_tensor* out, sdk_tensor** result);
/*! \brief out[i][j] = t[index[i][j]][j] (for dim 0), index same ndim as t. */
SDK_API sdk_status sdk_gather(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                              sdk_tensor* out, sdk_tensor** result);
/*! \brief t[index[i][j]][j] += src[i][j] (dim 0), in place, repeated
 *  indices accumulate. */
SDK_API sdk_status sdk_scatter_add_(sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                    const sdk_tensor* src);
/*! \brief t.index_select(dim, index) += src, in place, accumulating. */
SDK_API sdk_status sdk_index_add_(sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  const sdk_tensor* src);
/*! \brief Advanced indexing: `n` integer index tensors (broadcast together)
 *  index the first n dims of t; the result has the broadcast index shape
 *  followed by t's remaining dims. */
SDK_API sdk_status sdk_index(const sdk_tensor* t, int64_t n, const sdk_tensor* const* indices,
                             sdk_tensor** result);
/*! \brief Advanced assignment t[indices] = values (or += with accumulate),
 *  values broadcast to the indexed shape. */
SDK_API sdk_status sdk_index_put_(sdk_tensor* t, int64_t n, const sdk_tensor* const* indices,
                                  const sdk_tensor* values, int32_t accumulate);
/*! \brief Coordinates of nonzero elements: int64 (count, ndim). */
SDK_API sdk_status sdk_nonzero(const sdk_tensor* t, sdk_tensor** result);

/* Scatter and friends (ABI 1.3). They take `out` (sdk_tensor* out above): NULL gives a
 * new tensor, `out == t` writes in place (torch's name_ methods), another tensor receives
 * a copy of t updated. Index tensors are int64 or int32; an index out of range is an
 * IndexError naming the op, raised before anything is written. Where indices repeat, the
 * last write wins (torch leaves it unspecified). */

/*! \brief out = t, then out[index[i][j]][j] = src[i][j] (for dim 0): index has t's number
 *  of dims and is no larger than src in any dim, nor than t outside dim; src has t's dtype. */
SDK_API sdk_status sdk_scatter(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                               const sdk_tensor* src, sdk_tensor* out, sdk_tensor** result);
/*! \brief sdk_scatter with every src element equal to `value`. */
SDK_API sdk_status sdk_scatter_value(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                     sdk_scalar value, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = t, then each src element is combined into out[index...] (positions as
 *  sdk_scatter) by `reduce`: SDK_SUM, SDK_PROD, SDK_MEAN, SDK_AMAX or SDK_AMIN (the
 *  sdk_reduce_op codes). Without include_self, a position that receives values starts from
 *  them alone. MEAN divides by the count (floor division for integers); AMAX and AMIN
 *  propagate NaN. */
SDK_API sdk_status sdk_scatter_reduce(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                      const sdk_tensor* src, int32_t reduce, int32_t include_self,
                                      sdk_tensor* out, sdk_tensor** result);
/*! \brief out = t, then out.index_select(dim, index) = source: index is 1-D (or 0-d),
 *  source has t's shape with dim sized len(index), and t's dtype. */
SDK_API sdk_status sdk_index_copy(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  const sdk_tensor* source, sdk_tensor* out, sdk_tensor** result);
/*! \brief out = t, then the slices at `index` (1-D or 0-d; negative counts from the end)
 *  along dim are set to `value`. */
SDK_API sdk_status sdk_index_fill(const sdk_tensor* t, int64_t dim, const sdk_tensor* index,
                                  sdk_scalar value, sdk_tensor* out, sdk_tensor** result);
/*! \brief The elements of t where the bool `mask` is true, t and mask broadcast together,
 *  in row-major order: a new 1-D tensor. */
SDK_API sdk_status sdk_masked_select(const sdk_tensor* t, const sdk_tensor* mask,
                                     sdk_tensor** result);
/*! \brief out = t, then the positions where the bool `mask` (broadcast to t) is true take
 *  the elements of `source` (t's dtype) in row-major order; source needs at least as many
 *  elements as there are such positions. */
SDK_API sdk_status sdk_masked_scatter(const sdk_tensor* t, const sdk_tensor* mask,
                                      const sdk_tensor* source, sdk_tensor* out,
                                      sdk_tensor** result);
/*! \brief t read as 1-D (row-major) at `index` (negative counts from the end): a new tensor
 *  of index's shape. */
SDK_API sdk_status sdk_take(const sdk_tensor* t, const sdk_tensor* index, sdk_tensor** result);
/*! \brief Each slice of t along dim repeated repeats[i] times (repeats: 1-D int64/int32 of
 *  t's size along dim, or of one element for all); without dim_given, t is flattened first.
 *  t NULL gives the index form: arange(len(repeats)) repeated, int64. */
SDK_API sdk_status sdk_repeat_interleave(const sdk_tensor* t, const sdk_tensor* repeats,
                                         int32_t dim_given, int64_t dim, sdk_tensor** result);

/* Reordering (ABI 1.3): new tensors, on any device. */

/*! \brief t with the order of elements along `dims` reversed. */
SDK_API sdk_status sdk_flip(const sdk_tensor* t, int64_t ndims, const int64_t* dims,
                            sdk_tensor** result);
/*! \brief t with elements shifted by shifts[i] along dims[i], wrapping around; ndims 0
 *  rolls the flattened tensor by shifts[0] (nshifts must then be 1). */
SDK_API sdk_status sdk_roll(const sdk_tensor* t, int64_t nshifts, const int64_t* shifts,
                            int64_t ndims, const int64_t* dims, sdk_tensor** result);
/*! \brief The lower triangle of the last two dims: elements with col - row <= diagonal,
 *  the others zero. */
SDK_API sdk_status sdk_tril(const sdk_tensor* t, int64_t diagonal, sdk_tensor* out,
                            sdk_tensor** result);
/*! \brief The upper triangle: elements with col - row >= diagonal, the others zero. */
SDK_API sdk_status sdk_triu(const sdk_tensor* t, int64_t diagonal, sdk_tensor* out,
                            sdk_tensor** result);

/* ========================================================================= */
/* Threads                                                                   */
/* ========================================================================= */

/*! \brief Threads used by large kernels and by the BLAS (n >= 1). A count above the CPUs
 *  the process may use is kept (sdk_get_num_threads returns it) but runs on one thread per
 *  CPU at most (SDK_PARALLEL_MAX_CONCURRENCY). */
SDK_API sdk_status sdk_set_num_threads(int32_t n);
/*! \brief Current thread count: the last one set, else SDK_NUM_THREADS, else
 *  OMP_NUM_THREADS, else the physical cores the process may run on. */
SDK_API int32_t sdk_get_num_threads(void);

/*! \brief torch.set_num_interop_threads: how many independent ops may run at once. The SDK
 *  runs ops one after another (its parallelism is inside the kernels, above), so the count is
 *  only recorded, process-wide, for the extensions that size their own work by it
 *  (at::get_num_interop_threads) and for Python's sdk.get_num_interop_threads. n >= 1, else
 *  SDK_ERROR_VALUE and the count is unchanged. Since ABI 1.14. */
SDK_API sdk_status sdk_set_num_interop_threads(int32_t n);
/*! \brief The count above: the last one set, else 1 (no op runs beside another). Since ABI
 *  1.14. */
SDK_API int32_t sdk_get_num_interop_threads(void);

/*! \brief torch.use_deterministic_algorithms(mode, warn_only=...): record, process-wide,
 *  that deterministic algorithms are asked for (warn_only: a kernel without one warns
 *  instead of raising). Every kernel of the SDK is deterministic (fixed reduction orders, no
 *  atomic accumulation), so none of them changes; extensions read the switch through
 *  sdk::globalContext() (sdk/context.h) to pick their own kernels. Since ABI 1.10. */
SDK_API void sdk_set_deterministic_algorithms(int32_t mode, int32_t warn_only);
/*! \brief The switch above: 0 off, 1 on, 2 on with warn_only. Since ABI 1.10. */
SDK_API int32_t sdk_deterministic_algorithms(void);

/*! \brief What sdk_get_parallel_info reports (torch.__config__.parallel_info's facts). */
typedef enum sdk_parallel_key {
  SDK_PARALLEL_NUM_THREADS = 0,     /*!< sdk_get_num_threads() */
  SDK_PARALLEL_MAX_CONCURRENCY = 1, /*!< threads that run at once: min(threads, CPUs) */
  SDK_PARALLEL_USABLE_CPUS = 2,     /*!< the affinity mask's CPUs, capped by a cgroup quota */
  SDK_PARALLEL_PHYSICAL_CORES = 3,  /*!< physical cores among those CPUs */
  SDK_PARALLEL_POOL_WORKERS = 4,    /*!< pool threads started (the caller not counted) */
  SDK_PARALLEL_BLAS_THREADS = 5,    /*!< the BLAS's thread count now (loads the BLAS) */
  SDK_PARALLEL_BLAS_IN_REGION = 6,  /*!< the BLAS's thread count read inside a parallel
                                         region (runs one; 1 is what a region sets) */
  SDK_PARALLEL_BLAS_ON_POOL = 7     /*!< 1 when the BLAS runs its threads on the pool */
} sdk_parallel_key;
/*! \brief One fact about the threading (`key`, an sdk_parallel_key) into *out (ABI 1.6);
 *  SDK_ERROR_VALUE for an unknown key, SDK_ERROR_RUNTIME when the BLAS cannot load. */
SDK_API sdk_status sdk_get_parallel_info(int32_t key, int64_t* out);
/*! \brief A chunk of sdk_parallel_run's work. */
typedef void (*sdk_parallel_fn)(void* ctx, int64_t chunk);
/*! \brief Run body(ctx, chunk) for every chunk in [0, nchunks) on the core's thread pool, the
 *  caller taking part, at most SDK_PARALLEL_MAX_CONCURRENCY threads at once; on the calling
 *  thread, in order, when nested in another parallel region or with one thread. Core ops and
 *  the BLAS called from a chunk run on that chunk's thread. body must not throw or longjmp
 *  (sdk/parallel.h's parallel_for catches and rethrows for C++ callers). ABI 1.6. */
SDK_API sdk_status sdk_parallel_run(int64_t nchunks, sdk_parallel_fn body, void* ctx);

/* ========================================================================= */
/* DLPack (1.x), written from the DLPack specification                       */
/* ========================================================================= */
/* The structs below have exactly the layout of DLPack's, so that pointers
 * to them are exchanged with any DLPack producer or consumer. */

/*! \brief DLPack ABI version implemented here. */
#define SDK_DLPACK_MAJOR_VERSION 1
#define SDK_DLPACK_MINOR_VERSION 1

/*! \brief Flag bits of sdk_dl_managed_tensor_versioned::flags. */
#define SDK_DLPACK_FLAG_READ_ONLY (1ULL << 0)
#define SDK_DLPACK_FLAG_IS_COPIED (1ULL << 1)

/*! \brief DLPack type codes. */
typedef enum {
  SDK_DL_INT = 0,
  SDK_DL_UINT = 1,
  SDK_DL_FLOAT = 2,
  SDK_DL_BFLOAT = 4,
  SDK_DL_COMPLEX = 5, /*!< ABI 1.11 */
  SDK_DL_BOOL = 6,
  SDK_DL_FLOAT8_E4M3FN = 10,   /*!< ABI 1.10 */
  SDK_DL_FLOAT8_E4M3FNUZ = 11, /*!< ABI 1.10 */
  SDK_DL_FLOAT8_E5M2 = 12,     /*!< ABI 1.10 */
  SDK_DL_FLOAT8_E5M2FNUZ = 13  /*!< ABI 1.10 */
} sdk_dl_type_code;

/*! \brief DLPackVersion. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} sdk_dl_version;

/*! \brief DLDevice. */
typedef struct {
  int32_t device_type; /*!< sdk_device_type values */
  int32_t device_id;
} sdk_dl_device;

/*! \brief DLDataType. */
typedef struct {
  uint8_t code; /*!< sdk_dl_type_code */
  uint8_t bits;
  uint16_t lanes;
} sdk_dl_dtype;

/*! \brief DLTensor: a strided view; strides in elements, NULL = compact. */
typedef struct {
  void* data;
  sdk_dl_device device;
  int32_t ndim;
  sdk_dl_dtype dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} sdk_dl_tensor;

/*! \brief DLManagedTensor (pre-1.0 producers; capsule name "dltensor"). */
typedef struct sdk_dl_managed_tensor {
  sdk_dl_tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct sdk_dl_managed_tensor* self);
} sdk_dl_managed_tensor;

/*! \brief DLManagedTensorVersioned (capsule name "dltensor_versioned").
 *  Fields up to `flags` never move, so a consumer can always call deleter. */
typedef struct sdk_dl_managed_tensor_versioned {
  sdk_dl_version version;
  void* manager_ctx;
  void (*deleter)(struct sdk_dl_managed_tensor_versioned* self);
  uint64_t flags;
  sdk_dl_tensor dl_tensor;
} sdk_dl_managed_tensor_versioned;

/*! \brief Export `t` as a versioned DLPack tensor sharing its memory. The
 *  consumer owns *result and calls its deleter when done. Read-only memory
 *  (sdk_tensor_is_read_only) sets SDK_DLPACK_FLAG_READ_ONLY (since ABI 1.4). */
SDK_API sdk_status sdk_to_dlpack(const sdk_tensor* t, sdk_dl_managed_tensor_versioned** result);
/*! \brief Import a versioned DLPack tensor without copying. On success the
 *  tensor owns `m` (its deleter runs when the storage dies); on failure `m`
 *  stays the caller's. SDK_DLPACK_FLAG_READ_ONLY makes the tensor read-only
 *  (sdk_tensor_set_read_only; since ABI 1.4). */
SDK_API sdk_status sdk_from_dlpack(sdk_dl_managed_tensor_versioned* m, sdk_tensor** result);
/*! \brief Import a pre-1.0 DLPack tensor; ownership as sdk_from_dlpack. */
SDK_API sdk_status sdk_from_dlpack_unversioned(sdk_dl_managed_tensor* m, sdk_tensor** result);

/* ========================================================================= */
/* CUDA                                                                      */
/* ========================================================================= */
/* The CUDA backend is a separate library (libsdk_cuda.so, next to the core)
 * that the core loads the first time a CUDA device is used, so CPU-only
 * programs never need a CUDA library. When the backend, the CUDA runtime or
 * the driver is missing, or no GPU is visible, every CUDA operation fails
 * with SDK_ERROR_RUNTIME "CUDA is not available: <reason>".
 * Streams are cudaStream_t values passed as void*; NULL is the default
 * stream. The current stream is per thread and per device, as in torch. */

/*! \brief `t` on `device`: `t` itself (new reference) if already there,
 *  else a contiguous copy (host <-> device, or between devices). */
SDK_API sdk_status sdk_to_device(const sdk_tensor* t, sdk_device device, sdk_tensor** result);
/*! \brief 1 if CUDA can be used (backend, runtime, driver, a GPU), else 0. */
SDK_API int32_t sdk_cuda_is_available(void);
/*! \brief Number of visible CUDA devices; 0 when CUDA is not available. */
SDK_API int32_t sdk_cuda_device_count(void);
/*! \brief Why CUDA is not available ("" when it is); valid for the process. */
SDK_API const char* sdk_cuda_unavailable_reason(void);
/*! \brief The device that new CUDA work of this thread goes to. */
SDK_API sdk_status sdk_cuda_current_device(int32_t* device_index);
/*! \brief Make `device_index` the current CUDA device of this thread. */
SDK_API sdk_status sdk_cuda_set_device(int32_t device_index);
/*! \brief This thread's current stream on a device (-1: current device). */
SDK_API sdk_status sdk_cuda_get_stream(int32_t device_index, void** stream);
/*! \brief Set this thread's current stream on a device (NULL: default). */
SDK_API sdk_status sdk_cuda_set_stream(int32_t device_index, void* stream);
/*! \brief Wait for all work on a device (-1: current device). */
SDK_API sdk_status sdk_cuda_synchronize(int32_t device_index);
/*! \brief Return the allocator's cached, unused blocks to the driver. */
SDK_API sdk_status sdk_cuda_empty_cache(void);
/*! \brief torch's Tensor.record_stream: t's memory is used on `stream` too, so when t's
 *  storage is freed the caching allocator reuses it only after the work queued on `stream`
 *  by then has finished. ABI 1.6. */
SDK_API sdk_status sdk_cuda_record_stream(const sdk_tensor* t, void* stream);
/*! \brief torch's backends.cuda.matmul.allow_tf32: float32 matmuls on CUDA may use TF32
 *  tensor cores (nonzero) or not (0, the default). Process-wide. ABI 1.6. */
SDK_API void sdk_cuda_set_matmul_allow_tf32(int32_t allow);
/*! \brief The current allow_tf32 setting (0 or 1). ABI 1.6. */
SDK_API int32_t sdk_cuda_matmul_allow_tf32(void);

/*! \brief Statistics of the caching allocator for one device. */
typedef struct {
  uint32_t size;                /*!< sizeof(sdk_cuda_allocator_stats); set by the caller */
  uint32_t reserved0;           /*!< zero */
  int64_t allocated_bytes;      /*!< bytes in live blocks (rounded sizes) */
  int64_t reserved_bytes;       /*!< bytes held from the driver (cudaMalloc) */
  int64_t peak_allocated_bytes; /*!< maximum of allocated_bytes */
  int64_t peak_reserved_bytes;  /*!< maximum of reserved_bytes */
  int64_t num_allocs;           /*!< allocations served (from cache or driver) */
  int64_t num_frees;            /*!< blocks returned to the cache */
  int64_t num_device_allocs;    /*!< cudaMalloc calls (cache misses) */
  int64_t num_device_frees;     /*!< cudaFree calls (empty_cache, retries) */
} sdk_cuda_allocator_stats;

/*! \brief Fill `stats` (its `size` set by the caller) for a device. */
SDK_API sdk_status sdk_cuda_memory_stats(int32_t device_index, sdk_cuda_allocator_stats* stats);
/*! \brief Reset the peaks of a device to the current values. */
SDK_API sdk_status sdk_cuda_reset_peak_memory_stats(int32_t device_index);
/*! \brief Device memory from the caching allocator, ordered on the current
 *  stream (scratch space for extensions); free with sdk_cuda_raw_free. */
SDK_API sdk_status sdk_cuda_raw_alloc(int64_t nbytes, int32_t device_index, void** ptr);
/*! \brief Return memory from sdk_cuda_raw_alloc (NULL is ignored). */
SDK_API sdk_status sdk_cuda_raw_free(void* ptr);

/* ---- A raw block used on other streams (ABI 1.11) ---------------------------------- */
/*! \brief torch's CUDACachingAllocator::recordStream for memory from sdk_cuda_raw_alloc:
 *  the block that starts at `ptr` is used on `stream` too, so once freed it is reused only
 *  after the work queued on `stream` by then has finished (as sdk_cuda_record_stream for a
 *  tensor's storage). NULL `ptr` is ignored; a pointer that is not the start of a block the
 *  allocator handed out fails with SDK_ERROR_VALUE. ABI 1.11. */
SDK_API sdk_status sdk_cuda_raw_record_stream(void* ptr, void* stream);

/* ---- Philox seeds and offsets for device random numbers (ABI 1.11) ---------------------- */
/* Kernels that draw random numbers on the device (curand_init(seed, thread, offset, ...))
 * take a seed and an offset from the device's default CUDA generator, as torch's
 * CUDAGeneratorImpl::philox_cuda_state hands them out: each call reserves `increment` draws
 * per thread, so the next kernel starts past them. sdk_manual_seed(NULL, s) sets every
 * device's seed to s and its offset to 0. Host state only: no CUDA call is made. */

/*! \brief The seed and offset of device `device_index`'s default CUDA generator (-1: the
 *  current device), then advance its offset by `increment` rounded up to a multiple of 4.
 *  ABI 1.11. */
SDK_API sdk_status sdk_cuda_philox_state(int32_t device_index, uint64_t increment, uint64_t* seed,
                                         uint64_t* offset);
/*! \brief Set device `device_index`'s default CUDA generator (-1: the current device) to
 *  `seed`, its offset to 0 (torch.cuda.manual_seed for one device). ABI 1.11. */
SDK_API sdk_status sdk_cuda_philox_seed(int32_t device_index, uint64_t seed);

/* ---- Device queries, pooled streams and events (ABI 1.10) --------------------------- */
/* torch.cuda's get_device_properties, mem_get_info, get_arch_list, Stream and Event. Each
 * fails with SDK_ERROR_RUNTIME "CUDA is not available: <reason>" where CUDA cannot be used,
 * but sdk_cuda_build_version and sdk_cuda_arch_list, which never fail ("" is their "none");
 * sdk_cuda_build_version loads no CUDA library at all. */

/*! \brief The CUDA toolkit release ("12.4") the CUDA backend beside this core was built
 *  with, read from the build's record (libsdk_cuda.version next to the backend library)
 *  without loading the backend; "" when the sdk was built without it. Valid for the process. */
SDK_API const char* sdk_cuda_build_version(void);
/*! \brief The GPU architectures the backend's kernels were compiled for, space-separated
 *  ("sm_80 sm_90"); "" when CUDA is not available. Valid for the process. */
SDK_API const char* sdk_cuda_arch_list(void);

/*! \brief One device's properties (torch's _CudaDeviceProperties fields). */
typedef struct {
  uint32_t size;      /*!< sizeof(sdk_cuda_device_properties); set by the caller */
  uint32_t reserved0; /*!< zero */
  char name[256];     /*!< NUL-terminated */
  int32_t major;      /*!< compute capability */
  int32_t minor;
  int64_t total_memory; /*!< bytes of device memory */
  int32_t multi_processor_count;
  int32_t max_threads_per_multi_processor;
  int32_t max_threads_per_block;
  int32_t warp_size;
  int32_t regs_per_multiprocessor;
  int32_t is_integrated;      /*!< 0 or 1 */
  int32_t is_multi_gpu_board; /*!< 0 or 1 */
  int32_t l2_cache_size;      /*!< bytes */
  int64_t shared_memory_per_block;
  int64_t shared_memory_per_block_optin;
  int64_t shared_memory_per_multiprocessor;
  int32_t pci_bus_id;
  int32_t pci_device_id;
  int32_t pci_domain_id;
  int32_t memory_bus_width; /*!< bits */
  uint8_t uuid[16];
} sdk_cuda_device_properties;

/*! \brief Fill `props` (its `size` set by the caller) for a device (-1: current). */
SDK_API sdk_status sdk_cuda_get_device_properties(int32_t device_index,
                                                  sdk_cuda_device_properties* props);
/*! \brief Free and total device memory in bytes, as the driver reports them (-1: current). */
SDK_API sdk_status sdk_cuda_mem_get_info(int32_t device_index, int64_t* free_bytes,
                                         int64_t* total_bytes);
/*! \brief A stream of the device's pool (torch's getStreamFromPool): non-blocking, made on
 *  first use and never destroyed, so a stream set current anywhere stays valid; pools go
 *  round-robin, so two requests may share a stream. `priority` as torch's (lower is more
 *  urgent) is clamped to the device's range; it picks the pool (0 or less than 0). */
SDK_API sdk_status sdk_cuda_stream_from_pool(int32_t device_index, int32_t priority, void** stream);
/*! \brief *done = 1 when all work queued on `stream` (NULL: the default stream of the
 *  current device) has finished, else 0. */
SDK_API sdk_status sdk_cuda_stream_query(void* stream, int32_t* done);
/*! \brief Wait until all work queued on `stream` has finished. */
SDK_API sdk_status sdk_cuda_stream_synchronize(void* stream);

/*! \brief Event flags: torch.cuda.Event's enable_timing, blocking, interprocess. */
#define SDK_CUDA_EVENT_TIMING 1u
#define SDK_CUDA_EVENT_BLOCKING 2u
#define SDK_CUDA_EVENT_INTERPROCESS 4u
/*! \brief A new event on a device (-1: current) with SDK_CUDA_EVENT_* flags; destroy it
 *  with sdk_cuda_event_destroy. Timing and interprocess exclude each other (ValueError). */
SDK_API sdk_status sdk_cuda_event_create(int32_t device_index, uint32_t flags, void** event);
/*! \brief Destroy an event (NULL is ignored); work it waits on still completes. */
SDK_API sdk_status sdk_cuda_event_destroy(void* event);
/*! \brief Record `event` on `stream` (NULL: the default stream of the event's device). */
SDK_API sdk_status sdk_cuda_event_record(void* event, void* stream);
/*! \brief Make future work on `stream` wait for `event`'s recorded work. */
SDK_API sdk_status sdk_cuda_stream_wait_event(void* stream, void* event);
/*! \brief *done = 1 when the work `event` recorded has finished, else 0. */
SDK_API sdk_status sdk_cuda_event_query(void* event, int32_t* done);
/*! \brief Wait until the work `event` recorded has finished. */
SDK_API sdk_status sdk_cuda_event_synchronize(void* event);
/*! \brief Milliseconds between two recorded timing events (start, then end). */
SDK_API sdk_status sdk_cuda_event_elapsed_time(void* start, void* end, float* ms);

/* ========================================================================= */
/* Operators registered by libraries (ABI 1.3)                               */
/* ========================================================================= */
/* Extensions register operators under a namespace: a schema in torch's syntax,
 * "mymuladd(Tensor a, Tensor b, float c) -> Tensor", and kernels per dispatch
 * key. Calls are boxed: the caller pushes every argument, in schema order, on
 * an sdk_values list; the kernel replaces them with its results. The core checks
 * the arguments and the results against the schema (a mismatch is an error
 * naming the op, the argument and the schema) and picks the kernel from the
 * tensors' device. Registrations are process-wide and thread-safe. An sdk_op
 * stays valid for the life of the process; calling one whose library was
 * closed fails. Rationale: one boxed convention serves every caller (Python,
 * C++, C) and every kernel, with no per-signature entry points to keep
 * stable. */

/*! \brief Tags of boxed values (sdk_values). A schema's int, SymInt, Layout and
 *  MemoryFormat are INT; a Scalar is INT, FLOAT or BOOL; an absent optional is
 *  NONE. A list type is the flat kind of its items where one exists (int[], float[],
 *  bool[], Tensor[], Tensor?[]) and a LIST otherwise: a list of lists (int[][], float[][],
 *  Tensor[][], int[][][], ...) is a LIST of the inner lists, str[] a LIST of STRINGs. */
typedef enum {
  SDK_VALUE_NONE = 0,
  SDK_VALUE_TENSOR = 1,
  SDK_VALUE_INT = 2,         /*!< int64_t */
  SDK_VALUE_FLOAT = 3,       /*!< double */
  SDK_VALUE_BOOL = 4,        /*!< 0 or 1 */
  SDK_VALUE_STRING = 5,      /*!< bytes and a length (UTF-8 from Python) */
  SDK_VALUE_SCALAR_TYPE = 6, /*!< an sdk_dtype */
  SDK_VALUE_DEVICE = 7,      /*!< an sdk_device */
  SDK_VALUE_INT_LIST = 8,
  SDK_VALUE_FLOAT_LIST = 9,
  SDK_VALUE_BOOL_LIST = 10,
  SDK_VALUE_TENSOR_LIST = 11, /*!< entries may be NULL (a Tensor?[]) */
  /*! int[][] in ABI 1.8 only. No value has this tag since ABI 1.9: an int[][] is a LIST of
   *  INT_LISTs, which sdk_values_push/get_int_list_list still write and read. */
  SDK_VALUE_INT_LIST_LIST = 12,
  SDK_VALUE_LIST = 13,  /*!< values of any tags, lists included (ABI 1.9; "Lists of values") */
  SDK_VALUE_OBJECT = 14 /*!< a custom-class object (ABI 1.12; "Custom classes") */
} sdk_value_tag;

/*! \brief A list of boxed values: a call's arguments in, its results out. */
typedef struct sdk_values sdk_values;

/*! \brief A new, empty list. */
SDK_API sdk_status sdk_values_new(sdk_values** result);
/*! \brief Free a list and release its tensors (NULL is ignored). */
SDK_API void sdk_values_free(sdk_values* values);
/*! \brief Number of values. */
SDK_API int64_t sdk_values_size(const sdk_values* values);
/*! \brief Tag of value i (negative i counts from the end); -1 when out of range. */
SDK_API int32_t sdk_values_tag(const sdk_values* values, int64_t i);
/*! \brief Drop every value. */
SDK_API void sdk_values_clear(sdk_values* values);
/*! \brief Drop the last n values. */
SDK_API sdk_status sdk_values_pop(sdk_values* values, int64_t n);

/*! \brief Push a value. A tensor is retained (NULL pushes None); strings and
 *  lists are copied. */
SDK_API sdk_status sdk_values_push_none(sdk_values* values);
SDK_API sdk_status sdk_values_push_tensor(sdk_values* values, const sdk_tensor* t);
SDK_API sdk_status sdk_values_push_int(sdk_values* values, int64_t v);
SDK_API sdk_status sdk_values_push_float(sdk_values* values, double v);
SDK_API sdk_status sdk_values_push_bool(sdk_values* values, int32_t v);
SDK_API sdk_status sdk_values_push_string(sdk_values* values, const char* data, int64_t len);
SDK_API sdk_status sdk_values_push_scalar_type(sdk_values* values, int32_t dtype);
SDK_API sdk_status sdk_values_push_device(sdk_values* values, sdk_device device);
SDK_API sdk_status sdk_values_push_int_list(sdk_values* values, const int64_t* data, int64_t n);
SDK_API sdk_status sdk_values_push_float_list(sdk_values* values, const double* data, int64_t n);
SDK_API sdk_status sdk_values_push_bool_list(sdk_values* values, const int32_t* data, int64_t n);
SDK_API sdk_status sdk_values_push_tensor_list(sdk_values* values, const sdk_tensor* const* tensors,
                                               int64_t n);
/*! \brief Push an int[][] (ABI 1.8): `n` lists, list k holding `lengths[k]` ints, stored one
 *  after another in `data` (the sum of `lengths` ints). Since ABI 1.9 it pushes a LIST of
 *  `n` INT_LISTs, the value sdk_values_push_list makes of them (see "Lists of values"). */
SDK_API sdk_status sdk_values_push_int_list_list(sdk_values* values, const int64_t* data,
                                                 const int64_t* lengths, int64_t n);
/*! \brief Push tensor `t`, adopting the caller's reference (released on failure
 *  too): a result handed over without a retain/release pair. */
SDK_API sdk_status sdk_values_push_tensor_steal(sdk_values* values, sdk_tensor* t);
/*! \brief Move tensor i out as a NEW reference (NULL for None); the value
 *  becomes None. Kernels take their arguments this way before replacing them. */
SDK_API sdk_status sdk_values_take_tensor(sdk_values* values, int64_t i, sdk_tensor** result);

/*! \brief Read value i (negative i counts from the end). TypeError when its tag
 *  is not the one asked for, except that get_float also reads an INT and
 *  get_scalar reads INT, FLOAT and BOOL. Pointers are borrowed: valid until
 *  the value is popped or the list cleared. get_tensor gives NULL for None. */
SDK_API sdk_status sdk_values_get_tensor(const sdk_values* values, int64_t i, sdk_tensor** result);
SDK_API sdk_status sdk_values_get_int(const sdk_values* values, int64_t i, int64_t* result);
SDK_API sdk_status sdk_values_get_float(const sdk_values* values, int64_t i, double* result);
SDK_API sdk_status sdk_values_get_bool(const sdk_values* values, int64_t i, int32_t* result);
SDK_API sdk_status sdk_values_get_scalar(const sdk_values* values, int64_t i, sdk_scalar* result);
SDK_API sdk_status sdk_values_get_string(const sdk_values* values, int64_t i, const char** data,
                                         int64_t* len);
SDK_API sdk_status sdk_values_get_scalar_type(const sdk_values* values, int64_t i, int32_t* result);
SDK_API sdk_status sdk_values_get_device(const sdk_values* values, int64_t i, sdk_device* result);
SDK_API sdk_status sdk_values_get_int_list(const sdk_values* values, int64_t i,
                                           const int64_t** data, int64_t* n);
SDK_API sdk_status sdk_values_get_float_list(const sdk_values* values, int64_t i,
                                             const double** data, int64_t* n);
SDK_API sdk_status sdk_values_get_bool_list(const sdk_values* values, int64_t i,
                                            const int32_t** data, int64_t* n);
SDK_API sdk_status sdk_values_get_tensor_list(const sdk_values* values, int64_t i,
                                              sdk_tensor* const** tensors, int64_t* n);
/*! \brief Read an int[][] (ABI 1.8): `*n` lists, their lengths in `*lengths` and their ints,
 *  one list after another, in `*data` (as sdk_values_push_int_list_list takes them). Since
 *  ABI 1.9 it reads a LIST whose items are all INT_LISTs (TypeError naming the first item
 *  that is not); the pointers are borrowed as every getter's. */
SDK_API sdk_status sdk_values_get_int_list_list(const sdk_values* values, int64_t i,
                                                const int64_t** data, const int64_t** lengths,
                                                int64_t* n);

/* ---- Lists of values (ABI 1.9) ------------------------------------------------------ */
/* A LIST value holds items that are values themselves, of any tags, lists included: the
 * one kind every list type without a flat kind of its own travels as (int[][], float[][],
 * bool[][], Tensor[][], Tensor?[][], str[], int[][][], ...). Build one bottom up: push its
 * items, then sdk_values_push_list(values, n) replaces the last n values with one LIST
 * holding them (push the items of an inner list, wrap them, and the inner list is one item
 * of the outer). Read one with sdk_values_get_list: a read-only sdk_values of its items,
 * which sdk_values_size, sdk_values_tag and every sdk_values_get_* (sdk_values_get_list
 * for a nested list) read by index.
 *
 * Ownership: a LIST owns its items (tensors retained, lists and strings copied in by their
 * push); the view from sdk_values_get_list is borrowed, never freed, and is valid, as are
 * the pointers read through it, until value i is popped or the sdk_values cleared or freed
 * (a kernel's views of its arguments end when it clears them to push its results); pushing
 * more values keeps it valid. It is read-only: functions that change an sdk_values (push,
 * pop, take, clear, free) must not be given it.
 *
 * Rationale: one recursive kind with two functions carries every nesting of every item
 * type, so a new list type is at most a schema parser case, never a new tag and pair of
 * functions (nor a new case in a converter that walks LISTs by their tags). int[][] travels as a
 * LIST of INT_LISTs too; the ABI 1.8 functions for it are kept (already-built extensions call them)
 * as wrappers over the LIST, which keeps their flat view of its ints for
 * sdk_values_get_int_list_list. Only the tag an int[][] value shows changed: SDK_VALUE_LIST, no
 * longer SDK_VALUE_INT_LIST_LIST. */

/*! \brief The most list levels a value or a schema type may have: int[][] has 2 (a LIST of
 *  INT_LISTs). Deeper is a ValueError, so that no recursion over a value or a type runs
 *  unbounded. */
#define SDK_VALUE_LIST_MAX_DEPTH 64

/*! \brief Replace the last `n` values (0 <= n <= sdk_values_size) with one LIST holding
 *  them in order (n = 0 pushes an empty list). The items move into the list, nothing is
 *  copied or released. ValueError when n is out of range or the list would have more than
 *  SDK_VALUE_LIST_MAX_DEPTH levels (the values are then left as they were). */
SDK_API sdk_status sdk_values_push_list(sdk_values* values, int64_t n);
/*! \brief Read LIST value i (negative i counts from the end) as `*items`: a borrowed,
 *  read-only view of its items (see "Ownership" above). TypeError when value i is not a
 *  LIST. */
SDK_API sdk_status sdk_values_get_list(const sdk_values* values, int64_t i,
                                       const sdk_values** items);

/*! \brief Dispatch keys, the one list of them: X(KEY, code, name, meaning). `name` is torch's
 *  c10::DispatchKey spelling: what sdk::DispatchKey, SDK_LIBRARY_IMPL and sdk.library take
 *  (with the other spellings of sdk/dispatch_key.h) and what the core's messages say. */
#define SDK_DISPATCH_KEYS(X)                                                                 \
  X(CPU, 0, CPU, "the kernel for CPU tensors")                                               \
  X(CUDA, 1, CUDA, "the kernel for CUDA tensors")                                            \
  X(AUTOGRAD, 2, Autograd, "differentiation; calls a device kernel below")                   \
  X(COMPOSITE_IMPLICIT_AUTOGRAD, 3, CompositeImplicitAutograd, "any device, from other ops") \
  X(COMPOSITE_EXPLICIT_AUTOGRAD, 4, CompositeExplicitAutograd, "any device (the default)")   \
  X(META, 5, Meta, "shapes and dtypes only, for meta tensors (ABI 1.7)")

/*! \brief X-macro helper: the enum constant of one SDK_DISPATCH_KEYS row. */
#define SDK_DETAIL_DISPATCH_ENUM(key, code, name, meaning) SDK_DISPATCH_##key = code,

/*! \brief Dispatch keys: which kernel of an op a call runs (SDK_DISPATCH_KEYS). */
typedef enum { SDK_DISPATCH_KEYS(SDK_DETAIL_DISPATCH_ENUM) } sdk_dispatch_key;

/*! \brief A registered operator. */
typedef struct sdk_op sdk_op;
/*! \brief A registration scope (what SDK_LIBRARY blocks write into). */
typedef struct sdk_library sdk_library;

/*! \brief Kinds of registration scope: DEF owns a namespace (one per process);
 *  FRAGMENT adds ops to it; IMPL adds kernels (for one key, or per impl). */
typedef enum {
  SDK_LIBRARY_DEF = 0,
  SDK_LIBRARY_FRAGMENT = 1,
  SDK_LIBRARY_IMPL = 2
} sdk_library_kind;

/*! \brief A boxed kernel: reads its arguments from `values` (in schema order),
 *  clears it and pushes its results. Returns a status set with
 *  sdk_set_last_error on failure. */
typedef sdk_status (*sdk_boxed_kernel)(void* context, const sdk_op* op, sdk_values* values);

/*! \brief Open a registration scope for namespace `ns`. `key` is the default
 *  key of an IMPL scope (-1: each impl names its key). `source` ("file:line",
 *  may be NULL) names the scope in messages. */
SDK_API sdk_status sdk_library_open(int32_t kind, const char* ns, int32_t key, const char* source,
                                    sdk_library** result);
/*! \brief Define an op from its schema; the name may omit the namespace.
 *  ValueError for a malformed schema or an op already defined. */
SDK_API sdk_status sdk_library_define(sdk_library* lib, const char* schema);
/*! \brief Register `kernel` for op `name` ("op", "op.overload", or with the
 *  namespace) under `key` (-1: the scope's; in a DEF or FRAGMENT scope, every
 *  device: SDK_DISPATCH_COMPOSITE_EXPLICIT_AUTOGRAD). `context_free` (may be NULL) is
 *  called with `context` when the kernel is removed. ValueError when the op is
 *  not defined or already has a kernel for the key. */
SDK_API sdk_status sdk_library_impl(sdk_library* lib, const char* name, int32_t key,
                                    sdk_boxed_kernel kernel, void* context,
                                    void (*context_free)(void*));
/*! \brief Remove what the scope registered (its ops become undefined, its
 *  kernels go away) and free it. NULL is ignored. */
SDK_API void sdk_library_close(sdk_library* lib);
/*! \brief Keep a registration failure that no caller could see (a static
 *  initializer's), for sdk_library_take_errors. */
SDK_API void sdk_library_record_error(const char* message);
/*! \brief The kept failures, one per line ("" when none), and forget them.
 *  Loaders call it after loading a library. Valid until the next call on this
 *  thread. */
SDK_API const char* sdk_library_take_errors(void);

/*! \brief Find an op: "ns::name" or "ns::name.overload". ValueError naming the
 *  closest defined ops when there is none. */
SDK_API sdk_status sdk_op_find(const char* name, const sdk_op** result);
/*! \brief Names of the ops defined in namespace `ns` (every namespace when
 *  NULL), "ns::name[.overload]" one per line. Valid until the next call on
 *  this thread. */
SDK_API const char* sdk_op_list(const char* ns);
/*! \brief "ns::name" or "ns::name.overload". */
SDK_API const char* sdk_op_name(const sdk_op* op);
/*! \brief The schema, in canonical text. */
SDK_API const char* sdk_op_schema(const sdk_op* op);
/*! \brief 1 when the op is defined and has a kernel for `key`. */
SDK_API int32_t sdk_op_has_kernel(const sdk_op* op, int32_t key);

/*! \brief One argument or return of a schema (sdk_op_argument_info). */
typedef struct {
  uint32_t size;            /*!< sizeof(sdk_op_argument); set by the caller */
  uint32_t reserved;        /*!< zero */
  const char* name;         /*!< "" for an unnamed return */
  const char* type;         /*!< as written: "Tensor?", "int[2]", "Tensor(a!)" */
  int32_t tag;              /*!< the sdk_value_tag of its (non-None) values */
  int32_t optional;         /*!< None is accepted */
  int32_t kwarg_only;       /*!< after `*` */
  int32_t has_default;      /*!< see sdk_op_push_default */
  int32_t is_write;         /*!< alias annotation with `!`: the op mutates it */
  int32_t list_size;        /*!< N of T[N], else -1 */
  const char* alias;        /*!< the alias set ("a"), or "" */
  const char* default_text; /*!< as written, or "" */
  /* Since ABI 1.9, written only when `size` covers them (the smaller size of a caller built
   * against ABI 1.3-1.8 is accepted): how a LIST value nests, so that a converter walks it
   * without parsing `type`. */
  int32_t list_levels; /*!< SDK_VALUE_LIST levels (int[][], str[]: 1; float[][][]: 2); else 0 */
  int32_t item_tag;    /*!< the tag of the innermost LIST's items (int[][]: SDK_VALUE_INT_LIST;
                            str[]: SDK_VALUE_STRING); SDK_VALUE_NONE when list_levels is 0 */
} sdk_op_argument;

/*! \brief Number of arguments (is_return 0) or returns (1). */
SDK_API int64_t sdk_op_num_arguments(const sdk_op* op, int32_t is_return);
/*! \brief Describe argument or return i; strings live as long as the op's
 *  definition. */
SDK_API sdk_status sdk_op_argument_info(const sdk_op* op, int32_t is_return, int64_t i,
                                        sdk_op_argument* info);
/*! \brief Push argument i's default value (ValueError when it has none). */
SDK_API sdk_status sdk_op_push_default(const sdk_op* op, int64_t i, sdk_values* values);

/*! \brief Call: `values` holds every argument in schema order; on success it
 *  holds the results. The kernel is the device's (CUDA when a tensor argument
 *  is on a GPU, else CPU), else a composite one; RuntimeError naming the op,
 *  the device and the keys that have kernels when there is none. */
SDK_API sdk_status sdk_op_call(const sdk_op* op, sdk_values* values);
/*! \brief Call the kernel of one key (an Autograd kernel calls the device's
 *  with the key from sdk_op_dispatch_key). */
SDK_API sdk_status sdk_op_call_key(const sdk_op* op, int32_t key, sdk_values* values);
/*! \brief The key sdk_op_call picks for the arguments on `values`. */
SDK_API sdk_status sdk_op_dispatch_key(const sdk_op* op, const sdk_values* values, int32_t* key);

/* ---- Meta tensors and Meta kernels (ABI 1.7) ---------------------------- */
/* A tensor on device SDK_META has sizes, strides, an offset and a dtype, and no data: its
 * storage has no memory (sdk_tensor_data_ptr and sdk_tensor_storage_ptr give NULL; every op
 * that would read or write elements fails with SDK_ERROR_RUNTIME naming the meta device).
 * sdk_empty, sdk_empty_strided and sdk_empty_like make one for device SDK_META; views of
 * one (sdk_view, sdk_transpose, ...) are meta tensors too. sdk_op_call picks an op's Meta
 * kernel (key SDK_DISPATCH_META) when a tensor argument is a meta tensor, and while a Meta
 * kernel runs, every tensor the calling thread allocates is a meta tensor (whatever device
 * it names), so a kernel written as for real tensors
 * (`sdk::empty({n}, sdk::dtype(sdk::kFloat))`) computes its results' shapes and dtypes
 * without memory. sdk.library's shape-function
 * machinery (torch.compile, jax.jit, opcheck) calls it when no Python function is given.
 * Rationale: a Meta kernel reuses the shape checks of the real kernel in C++, and a null
 * data pointer (never a stand-in allocation smaller than the shape) makes a kernel that
 * touches data fail loudly instead of writing past memory it does not have. */

/*! \brief 1 while the calling thread runs a Meta kernel (allocations make meta tensors),
 *  else 0. Since ABI 1.7. */
SDK_API int32_t sdk_meta_mode_is_enabled(void);

/* ========================================================================= */
/* Custom classes (ABI 1.12)                                                 */
/* ========================================================================= */
/* A library registers a class under its namespace (torch's custom classes: C++
 * torch::class_<T>("ns", "Name"), schema type __torch__.torch.classes.ns.Name): an
 * object type whose methods are ops. An object crosses the ABI as a pointer and its
 * class; the object counts its own references, and whoever keeps it (the core's values,
 * Python) takes and drops a reference through the class's `retain` and `release`,
 * functions of the library that registered it. A value of tag SDK_VALUE_OBJECT holds one
 * reference. Methods are registered ops named "ns.Name.method", found by
 * sdk_class_method and called with sdk_op_call; an instance method takes the object as
 * its first argument, a static one ("__init__", "__setstate__", def_static) does not.
 * The core checks an object against the class a schema names (TypeError naming both).
 *
 * A class, like an op, is never freed. When the library that registered it closes, the
 * class is dead: its methods are undefined, pushing one of its objects fails with a
 * RuntimeError naming the class, and references dropped afterwards are not released (the
 * objects' memory is kept rather than freed by code that may be unloaded). Registering
 * the name again makes a new class. Rationale: the refcount lives in the object, so one
 * count serves C++, the core and Python with no wrapper object per crossing; the two
 * functions are the whole vtable the core needs. */

/*! \brief A registered custom class. */
typedef struct sdk_class sdk_class;
/*! \brief Take (retain) or drop (release) one reference to `object`. */
typedef void (*sdk_object_fn)(void* object);

/*! \brief Register class `name` (an identifier) in the scope's namespace; `retain` and
 *  `release` count references to its objects. ValueError for a bad name or a class
 *  already registered and not closed; an IMPL scope cannot register classes. */
SDK_API sdk_status sdk_library_class(sdk_library* lib, const char* name, sdk_object_fn retain,
                                     sdk_object_fn release, const sdk_class** result);
/*! \brief Define method `schema` of class `class_name` (registered by any scope of the
 *  namespace) and register `kernel` for it, every device. The schema's name is the method's
 *  ("push(__torch__.torch.classes.ns.Stack self, int x) -> ()"); `context_free` as
 *  sdk_library_impl's. The method goes away when `lib` closes. ValueError for a malformed
 *  schema, an unknown class or a method defined twice. */
SDK_API sdk_status sdk_library_method(sdk_library* lib, const char* class_name, const char* schema,
                                      sdk_boxed_kernel kernel, void* context,
                                      void (*context_free)(void*));
/*! \brief Find a class: "ns.Name" or "__torch__.torch.classes.ns.Name". ValueError naming
 *  the namespace's classes when there is none. */
SDK_API sdk_status sdk_class_find(const char* name, const sdk_class** result);
/*! \brief Its name, "ns.Name" ("" for NULL). */
SDK_API const char* sdk_class_name(const sdk_class* cls);
/*! \brief 1 while the library that registered it is open, else 0. */
SDK_API int32_t sdk_class_is_alive(const sdk_class* cls);
/*! \brief Method `name` of the class. ValueError naming its methods when it has none such;
 *  RuntimeError when the class is dead. */
SDK_API sdk_status sdk_class_method(const sdk_class* cls, const char* name, const sdk_op** result);
/*! \brief The names of its defined methods, one per line. Valid until the next call on
 *  this thread. */
SDK_API const char* sdk_class_methods(const sdk_class* cls);
/*! \brief Names ("ns.Name") of the live classes of namespace `ns` (all when NULL), one per
 *  line. Valid until the next call on this thread. */
SDK_API const char* sdk_class_list(const char* ns);

/*! \brief Take one reference to `object` of class `cls` (RuntimeError when the class is
 *  dead). */
SDK_API sdk_status sdk_object_retain(const sdk_class* cls, void* object);
/*! \brief Drop one reference (nothing when the class is dead; NULL is ignored). */
SDK_API void sdk_object_release(const sdk_class* cls, void* object);
/*! \brief Push `object` of class `cls`, taking a reference (RuntimeError when the class is
 *  dead; ValueError for a NULL object). */
SDK_API sdk_status sdk_values_push_object(sdk_values* values, const sdk_class* cls, void* object);
/*! \brief Read OBJECT value i: its class and object, borrowed (valid as every getter's
 *  pointers). TypeError when value i is not an object. */
SDK_API sdk_status sdk_values_get_object(const sdk_values* values, int64_t i, const sdk_class** cls,
                                         void** object);

/* ========================================================================= */
/* Autograd from C and C++ (ABI 1.3)                                         */
/* ========================================================================= */
/* The graph, gradients and backward() belong to the Python package: sdk._C
 * registers an engine here when it loads. Compiled code marks tensors as
 * requiring grad, reads gradients and records differentiable functions
 * (sdk::autograd::Function<T> in sdk/autograd.h) through the functions below,
 * which forward to that engine; without it (sdk not imported) no tensor
 * requires grad and nothing is recorded. Rationale: one graph, whichever side
 * built it, so Python's loss.backward() runs C++ backward functions. */

/*! \brief Grad mode of the calling thread (on by default in every thread): 1 or
 *  0. While it is off, nothing is recorded. */
SDK_API int32_t sdk_grad_mode_is_enabled(void);
/*! \brief Turn it on (1) or off (0) for the calling thread; returns the
 *  previous mode. */
SDK_API int32_t sdk_grad_mode_set_enabled(int32_t enabled);

/*! \brief 1 when `t` requires grad (a leaf marked so, or a result recorded in
 *  the graph), else 0. */
SDK_API int32_t sdk_tensor_requires_grad(const sdk_tensor* t);
/*! \brief Mark a leaf as requiring grad (1) or not (0). RuntimeError for a
 *  non-leaf, or a tensor of a non-float dtype; also when sdk is not imported. */
SDK_API sdk_status sdk_tensor_set_requires_grad(sdk_tensor* t, int32_t requires_grad);
/*! \brief The accumulated gradient of `t`, a NEW reference, or NULL when it has none. */
SDK_API sdk_status sdk_tensor_grad(const sdk_tensor* t, sdk_tensor** result);
/*! \brief 1 unless `t` is the result of a recorded function. */
SDK_API int32_t sdk_tensor_is_leaf(const sdk_tensor* t);

/*! \brief A backward function. On entry `values` holds one value per output of
 *  the recorded call: its gradient, or None when none reached it. It clears
 *  `values` and pushes one value per input: a gradient tensor, or None. Returns
 *  a status set with sdk_set_last_error on failure. It runs without the GIL. */
typedef sdk_status (*sdk_backward_fn)(void* context, sdk_values* values);

/*! \brief Record a differentiable call after computing it (when grad mode is
 *  on and an input requires grad). `inputs` are the call's arguments (NULL
 *  for an argument that is not a tensor: it gets no gradient); `outputs` its
 *  results (NULL for a result that is not a tensor or not differentiable).
 *  The outputs, which must be new tensors (not inputs), then require grad and
 *  lead back to a node named `name`Backward whose backward calls `backward(context,
 *  ...)`; `context_free(context)` runs when the node is freed (also when this
 *  call fails or records nothing). Gradients returned for inputs are checked
 *  against the inputs' shapes (summed over broadcast dims) and cast to their
 *  dtypes. `flags` is reserved: pass 0. */
SDK_API sdk_status sdk_autograd_record(const char* name, sdk_tensor* const* inputs,
                                       int64_t n_inputs, sdk_tensor* const* outputs,
                                       int64_t n_outputs, int32_t flags, sdk_backward_fn backward,
                                       void* context, void (*context_free)(void*));

/*! \brief Flags of sdk_tensor_backward (torch's Tensor::backward arguments). */
typedef enum {
  SDK_BACKWARD_RETAIN_GRAPH = 1, /*!< keep the graph for another backward */
  SDK_BACKWARD_CREATE_GRAPH = 2  /*!< record the backward pass (higher-order gradients) */
} sdk_backward_flag;

/*! \brief Run backward from `t` (torch's Tensor::backward): accumulate d(t)/d(leaf),
 *  times `gradient` (NULL: ones, for a single-element t), into every leaf's grad.
 *  `flags`: sdk_backward_flag bits. RuntimeError when t does not require grad,
 *  or when no engine is installed. Since ABI 1.5. */
SDK_API sdk_status sdk_tensor_backward(sdk_tensor* t, const sdk_tensor* gradient, int32_t flags);

/*! \brief The engine (what sdk._C registers; other code never needs it). Each
 *  tensor has one pointer-sized slot that only the engine reads and writes;
 *  `release_slot` is called (on any thread) when a tensor whose slot is set is
 *  freed. The tensor entries above call the engine only for tensors whose
 *  slot is set. */
typedef struct {
  uint32_t size; /*!< sizeof this struct, as compiled by the engine */
  uint32_t reserved;
  void (*release_slot)(void* slot);
  int32_t (*requires_grad)(const sdk_tensor* t);
  sdk_status (*set_requires_grad)(sdk_tensor* t, int32_t requires_grad);
  sdk_status (*grad)(const sdk_tensor* t, sdk_tensor** result);
  int32_t (*is_leaf)(const sdk_tensor* t);
  sdk_status (*record)(const char* name, sdk_tensor* const* inputs, int64_t n_inputs,
                       sdk_tensor* const* outputs, int64_t n_outputs, int32_t flags,
                       sdk_backward_fn backward, void* context, void (*context_free)(void*));
  /* Since ABI 1.5 (read only when `size` covers it): */
  sdk_status (*backward)(sdk_tensor* t, const sdk_tensor* gradient, int32_t flags);
} sdk_autograd_engine;

/*! \brief Install the engine (NULL removes it); the struct must outlive its use. */
SDK_API sdk_status sdk_autograd_set_engine(const sdk_autograd_engine* engine);
/*! \brief The tensor's engine slot (NULL when unset). */
SDK_API void* sdk_tensor_autograd_slot(const sdk_tensor* t);
/*! \brief Set the slot; returns the previous value (the caller now owns it). */
SDK_API void* sdk_tensor_set_autograd_slot(sdk_tensor* t, void* slot);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SDK_C_API_H_ */
