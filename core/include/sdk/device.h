// sdk/device.h: sdk::Device and sdk::DeviceType (kCPU, kCUDA), mirroring torch's Device.
#ifndef SDK_DEVICE_H_
#define SDK_DEVICE_H_

#include <cstdint>
#include <string>

#include "sdk/error.h"

namespace sdk {

/*! \brief Device kinds; values equal the ABI's sdk_device_type. */
enum class DeviceType : int8_t {
  CPU = SDK_CPU,
  CUDA = SDK_CUDA,
  /*! \brief Shape-only tensors with no data (what a Meta kernel sees; ABI 1.7). */
  Meta = SDK_META,
  /*! \brief One past the largest device type with memory (arrays indexed by device type,
   *  as torch's; Meta has none and lies beyond). */
  COMPILE_TIME_MAX_DEVICE_TYPES = SDK_CUDA + 1,
};

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kMeta = DeviceType::Meta;

/*! \brief A device kind and ordinal. As in torch, index -1 means "no index" (always so for
 *  the CPU), and is sent to the core as 0. */
class Device {
 public:
  constexpr Device(DeviceType type, int32_t index = -1)  // NOLINT: implicit like torch
      : type_(type), index_(type == DeviceType::CPU || type == DeviceType::Meta ? -1 : index) {}
  /*! \brief Parse "cpu", "cuda", "cuda:N" or "meta". */
  Device(const char* spec) : Device(parse(spec)) {}                 // NOLINT: implicit like torch
  Device(const std::string& spec) : Device(parse(spec.c_str())) {}  // NOLINT

  constexpr DeviceType type() const { return type_; }
  constexpr int32_t index() const { return index_; }
  constexpr bool has_index() const { return index_ >= 0; }
  constexpr bool is_cpu() const { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type_ == DeviceType::CUDA; }
  constexpr bool is_meta() const { return type_ == DeviceType::Meta; }
  /*! \brief "cpu", "cuda:N" or "meta". */
  std::string str() const {
    if (is_cpu()) return "cpu";
    if (is_meta()) return "meta";
    return has_index() ? "cuda:" + std::to_string(index_) : std::string("cuda");
  }
  /*! \brief The ABI struct. */
  constexpr sdk_device to_c() const {
    return sdk_device{static_cast<int32_t>(type_), index_ < 0 ? 0 : index_};
  }
  static constexpr Device from_c(sdk_device d) {
    return Device(static_cast<DeviceType>(d.type), d.index);
  }

  constexpr bool operator==(const Device& o) const {
    return type_ == o.type_ && index_ == o.index_;
  }
  constexpr bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  static Device parse(const char* spec) {
    std::string s = spec ? spec : "";
    if (s == "cpu") return Device(DeviceType::CPU);
    if (s == "cuda") return Device(DeviceType::CUDA);
    if (s == "meta") return Device(DeviceType::Meta);
    if (s.size() > 5 && s.compare(0, 5, "cuda:") == 0) {
      int32_t index = 0;
      for (size_t i = 5; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9' || index > 100000) {
          detail::throw_error(SDK_ERROR_VALUE, "invalid device string: '" + s + "'");
        }
        index = index * 10 + (s[i] - '0');
      }
      return Device(DeviceType::CUDA, index);
    }
    detail::throw_error(SDK_ERROR_VALUE,
                        "invalid device string: '" + s + "' (expected cpu, cuda, cuda:N or meta)");
  }

  DeviceType type_;
  int32_t index_;
};

inline void str_append(std::string& s, const Device& d) { s += d.str(); }
/*! \brief "CPU" / "CUDA" / "META", or lower case with lower_case (c10::DeviceTypeName). */
inline std::string DeviceTypeName(DeviceType type, bool lower_case = false) {
  if (type == DeviceType::CPU) return lower_case ? "cpu" : "CPU";
  if (type == DeviceType::Meta) return lower_case ? "meta" : "META";
  return lower_case ? "cuda" : "CUDA";
}
inline void str_append(std::string& s, DeviceType t) { s += DeviceTypeName(t, true); }

}  // namespace sdk

#endif  // SDK_DEVICE_H_
