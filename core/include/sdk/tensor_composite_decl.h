// sdk/tensor_composite_decl.h: declarations of class Tensor's composite methods, included
// inside the class by sdk/tensor_base.h (this file is not a header of its own: no guard, no
// includes). Bodies, and the free-function forms, in sdk/composite.h and sdk/composite_math.h.
/*! \brief Always false: the SDK has no inference-mode or nested tensors. */
bool is_inference() const;
bool is_nested() const;
// torch's *_symint spellings: sizes are concrete in the SDK (sdk/symint.h)
Tensor view_symint(SymIntArrayRef size) const;
Tensor reshape_symint(SymIntArrayRef shape) const;
Tensor expand_symint(SymIntArrayRef size, bool implicit = false) const;
Tensor repeat_symint(SymIntArrayRef repeats) const;
Tensor narrow_symint(int64_t dim, SymInt start, SymInt length) const;
Tensor select_symint(int64_t dim, SymInt index) const;
Tensor slice_symint(int64_t dim = 0, std::optional<SymInt> start = std::nullopt,
                    std::optional<SymInt> end = std::nullopt, SymInt step = 1) const;
Tensor as_strided_symint(SymIntArrayRef size, SymIntArrayRef stride,
                         std::optional<SymInt> storage_offset = std::nullopt) const;
std::vector<Tensor> split_symint(SymInt split_size, int64_t dim = 0) const;
std::vector<Tensor> split_with_sizes_symint(SymIntArrayRef split_sizes, int64_t dim = 0) const;
Tensor new_empty_symint(SymIntArrayRef size, const TensorOptions& options = {}) const;
Tensor new_zeros_symint(SymIntArrayRef size, const TensorOptions& options = {}) const;
Tensor new_ones_symint(SymIntArrayRef size, const TensorOptions& options = {}) const;
Tensor new_full_symint(SymIntArrayRef size, const Scalar& fill_value,
                       const TensorOptions& options = {}) const;
Tensor new_empty_strided(IntArrayRef size, IntArrayRef stride,
                         const TensorOptions& options = {}) const;
/*! \brief Whether the one element is non-zero (RuntimeError for any other numel). */
bool is_nonzero() const;
/*! \brief Always false: the SDK has no distributed tensors. */
bool is_distributed() const;
/*! \brief This tensor: the SDK's tensors are dense (strided) already. */
Tensor to_dense(std::optional<ScalarType> dtype = std::nullopt,
                std::optional<bool> masked_grad = std::nullopt) const;
/*! \brief The data without autograd history, sharing storage (as detach()). */
Tensor tensor_data() const;
Tensor variable_data() const;
/*! \brief beta * self + alpha * outer(vec1, vec2). */
Tensor addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1) const;
const Tensor& addr_(const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                    const Scalar& alpha = 1) const;
/*! \brief The last two dims transposed (the conjugate transpose of real tensors). */
Tensor adjoint() const;
Tensor mH() const;
Tensor matrix_H() const;
/*! \brief The square matrix (or batch) to the integer power n (negative: of the inverse). */
Tensor matrix_power(int64_t n) const;
/*! \brief Prints the tensor (sdk::to_string) and a newline to stdout. */
void print() const;
Tensor as_strided_scatter(const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = std::nullopt) const;
/*! \brief nonzero() cut or padded with fill_value rows to exactly `size` rows. */
Tensor nonzero_static(int64_t size, int64_t fill_value = -1) const;
/*! \brief nonzero() as one index tensor per dim (numpy's form). */
std::vector<Tensor> nonzero_numpy() const;
/*! \brief Whether this tensor views the same storage with the same offset, sizes, strides. */
bool is_set_to(const Tensor& tensor) const;
/*! \brief Always true (torch's Variable and Tensor are one type). */
bool is_variable() const;
/*! \brief Each slice along dim whose p-norm exceeds maxnorm scaled down to it. */
Tensor renorm(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
const Tensor& renorm_(const Scalar& p, int64_t dim, const Scalar& maxnorm) const;
/*! \brief self's slices index[i] along dim reduced with source's slice i ("prod", "mean",
 *  "amax", "amin"; include_self false leaves self's value out where something lands). */
Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true) const;
const Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source,
                            std::string_view reduce, bool include_self = true) const;
Tensor absolute() const;
const Tensor& absolute_() const;
Tensor negative() const;
const Tensor& negative_() const;
Tensor positive() const;
Tensor greater(const Tensor& other) const;
Tensor greater(const Scalar& other) const;
const Tensor& greater_(const Tensor& other) const;
const Tensor& greater_(const Scalar& other) const;
Tensor greater_equal(const Tensor& other) const;
Tensor greater_equal(const Scalar& other) const;
const Tensor& greater_equal_(const Tensor& other) const;
const Tensor& greater_equal_(const Scalar& other) const;
Tensor less(const Tensor& other) const;
Tensor less(const Scalar& other) const;
const Tensor& less_(const Tensor& other) const;
const Tensor& less_(const Scalar& other) const;
Tensor less_equal(const Tensor& other) const;
Tensor less_equal(const Scalar& other) const;
const Tensor& less_equal_(const Tensor& other) const;
const Tensor& less_equal_(const Scalar& other) const;
Tensor not_equal(const Tensor& other) const;
Tensor not_equal(const Scalar& other) const;
const Tensor& not_equal_(const Tensor& other) const;
const Tensor& not_equal_(const Scalar& other) const;
/*! \brief Dims `source` moved to the positions `destination`, the others in order. */
Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
Tensor ravel() const;
Tensor broadcast_to(IntArrayRef size) const;
Tensor argwhere() const;
Tensor msort() const;
Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
std::vector<Tensor> unsafe_chunk(int64_t chunks, int64_t dim = 0) const;
std::vector<Tensor> unsafe_split(int64_t split_size, int64_t dim = 0) const;
std::vector<Tensor> unsafe_split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
std::vector<Tensor> hsplit(int64_t sections) const;
std::vector<Tensor> hsplit(IntArrayRef indices) const;
std::vector<Tensor> vsplit(int64_t sections) const;
std::vector<Tensor> vsplit(IntArrayRef indices) const;
std::vector<Tensor> dsplit(int64_t sections) const;
std::vector<Tensor> dsplit(IntArrayRef indices) const;
Tensor tile(IntArrayRef dims) const;
Tensor fliplr() const;
Tensor flipud() const;
Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
Tensor diagflat(int64_t offset = 0) const;
Tensor select_scatter(const Tensor& src, int64_t dim, int64_t index) const;
Tensor slice_scatter(const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
Tensor diagonal_scatter(const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1) const;
/*! \brief Summed down to `size` (the reverse of expand: the gradient of a broadcast). */
Tensor sum_to_size(IntArrayRef size) const;
Tensor deg2rad() const;
const Tensor& deg2rad_() const;
Tensor rad2deg() const;
const Tensor& rad2deg_() const;
Tensor signbit() const;
Tensor sinc() const;
const Tensor& sinc_() const;
Tensor logaddexp2(const Tensor& other) const;
Tensor heaviside(const Tensor& values) const;
const Tensor& heaviside_(const Tensor& values) const;
Tensor float_power(const Tensor& exponent) const;
Tensor float_power(const Scalar& exponent) const;
const Tensor& float_power_(const Tensor& exponent) const;
const Tensor& float_power_(const Scalar& exponent) const;
Tensor ldexp(const Tensor& other) const;
const Tensor& ldexp_(const Tensor& other) const;
Tensor nansum(IntArrayRef dim = {}, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt) const;
Tensor nanmean(IntArrayRef dim = {}, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt) const;
std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false) const;
Tensor trace() const;
Tensor kron(const Tensor& other) const;
Tensor inner(const Tensor& other) const;
Tensor vdot(const Tensor& other) const;
Tensor dist(const Tensor& other, const Scalar& p = 2) const;
Tensor isreal() const;
Tensor cov(int64_t correction = 1, const std::optional<Tensor>& fweights = {},
           const std::optional<Tensor>& aweights = {}) const;
Tensor corrcoef() const;
// torch's operator spellings as methods (Tensor::__and__, ... , __irshift__), which kernels call
// by name; the shifts as bitwise_left_shift / bitwise_right_shift
#define SDK_DETAIL_DUNDER_DECL(name, iname)       \
  Tensor name(const Tensor& other) const;         \
  Tensor name(const Scalar& other) const;         \
  const Tensor& iname(const Tensor& other) const; \
  const Tensor& iname(const Scalar& other) const;
SDK_DETAIL_DUNDER_DECL(__and__, __iand__)
SDK_DETAIL_DUNDER_DECL(__or__, __ior__)
SDK_DETAIL_DUNDER_DECL(__xor__, __ixor__)
SDK_DETAIL_DUNDER_DECL(__lshift__, __ilshift__)
SDK_DETAIL_DUNDER_DECL(__rshift__, __irshift__)
#undef SDK_DETAIL_DUNDER_DECL
const Tensor& bitwise_left_shift_(const Tensor& other) const;
const Tensor& bitwise_left_shift_(const Scalar& other) const;
const Tensor& bitwise_right_shift_(const Tensor& other) const;
const Tensor& bitwise_right_shift_(const Scalar& other) const;
