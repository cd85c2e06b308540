// sdk/acc_type.h: the types kernels accumulate and compute in (torch's at::acc_type and
// at::opmath_type), so a float16 sum does not lose its low bits.
#ifndef SDK_ACC_TYPE_H_
#define SDK_ACC_TYPE_H_

#include <cstdint>

#include "sdk/device.h"
#include "sdk/dtype.h"
#include "sdk/half.h"

namespace sdk {

/*! \brief AccumulateType<T, is_cuda>::type: what a reduction over T adds up in. As torch:
 *  16-bit floats accumulate in float, integers and bool in int64_t (bool stays bool), and
 *  float in double on the CPU but in float on CUDA. */
template <typename T, bool is_cuda>
struct AccumulateType {
  static_assert(sizeof(T) == 0, "AccumulateType: no accumulation type for this type");
};

#define SDK_DETAIL_ACC_TYPE(T, cpu, cuda) \
  template <>                             \
  struct AccumulateType<T, false> {       \
    using type = cpu;                     \
  };                                      \
  template <>                             \
  struct AccumulateType<T, true> {        \
    using type = cuda;                    \
  };
SDK_DETAIL_ACC_TYPE(Half, float, float)
SDK_DETAIL_ACC_TYPE(BFloat16, float, float)
SDK_DETAIL_ACC_TYPE(float, double, float)
SDK_DETAIL_ACC_TYPE(double, double, double)
SDK_DETAIL_ACC_TYPE(bool, bool, bool)
SDK_DETAIL_ACC_TYPE(int8_t, int64_t, int64_t)
SDK_DETAIL_ACC_TYPE(uint8_t, int64_t, int64_t)
SDK_DETAIL_ACC_TYPE(char, int64_t, int64_t)
SDK_DETAIL_ACC_TYPE(int16_t, int64_t, int64_t)
SDK_DETAIL_ACC_TYPE(int32_t, int64_t, int64_t)
SDK_DETAIL_ACC_TYPE(int64_t, int64_t, int64_t)
#undef SDK_DETAIL_ACC_TYPE

/*! \brief at::acc_type: acc_type<scalar_t, is_cuda>. */
template <typename T, bool is_cuda>
using acc_type = typename AccumulateType<T, is_cuda>::type;

/*! \brief AccumulateType's rule on dtypes (at::toAccumulateType): the 16-bit and 8-bit floats
 *  accumulate in float, float in double on the CPU (float on CUDA), integers in int64. */
constexpr ScalarType toAccumulateType(ScalarType type, bool is_cuda) {
  return type == kBool                 ? kBool
         : type == kDouble             ? kDouble
         : type == kFloat              ? (is_cuda ? kFloat : kDouble)
         : isFloatingType(type)        ? kFloat
         : isIntegralType(type, false) ? kLong
                                       : type;
}
constexpr ScalarType toAccumulateType(ScalarType type, DeviceType device) {
  return toAccumulateType(type, device == DeviceType::CUDA);
}

/*! \brief acc_type by device type (at::acc_type_device<T, kCUDA>). */
template <typename T, DeviceType device>
using acc_type_device = acc_type<T, device == DeviceType::CUDA>;

/*! \brief OpMathType<T>::type: what elementwise math on T is done in: float for the 16-bit
 *  floats, T itself otherwise (at::opmath_type). */
template <typename T>
struct OpMathType {
  using type = T;
};
template <>
struct OpMathType<Half> {
  using type = float;
};
template <>
struct OpMathType<BFloat16> {
  using type = float;
};

template <typename T>
using opmath_type = typename OpMathType<T>::type;

}  // namespace sdk

#endif  // SDK_ACC_TYPE_H_
