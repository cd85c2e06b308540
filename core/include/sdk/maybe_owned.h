// sdk/maybe_owned.h: torch's c10::MaybeOwned<T>: a borrowed reference or an owned value behind
// one interface (what Tensor::expect_contiguous returns: the tensor itself when it is already
// contiguous, a contiguous copy otherwise).
#ifndef SDK_MAYBE_OWNED_H_
#define SDK_MAYBE_OWNED_H_

#include <optional>
#include <utility>

namespace sdk {

/*! \brief Either borrows a T (which must outlive it) or owns one. */
template <typename T>
class MaybeOwned {
 public:
  static MaybeOwned borrowed(const T& value) { return MaybeOwned(&value); }
  static MaybeOwned owned(T&& value) { return MaybeOwned(std::move(value)); }
  template <typename... Args>
  static MaybeOwned owned(std::in_place_t, Args&&... args) {
    return MaybeOwned(T(std::forward<Args>(args)...));
  }

  MaybeOwned(const MaybeOwned& o) : borrowed_(o.borrowed_), owned_(o.owned_) {}
  MaybeOwned(MaybeOwned&& o) noexcept : borrowed_(o.borrowed_), owned_(std::move(o.owned_)) {}
  MaybeOwned& operator=(const MaybeOwned& o) {
    borrowed_ = o.borrowed_;
    owned_ = o.owned_;
    return *this;
  }
  MaybeOwned& operator=(MaybeOwned&& o) noexcept {
    borrowed_ = o.borrowed_;
    owned_ = std::move(o.owned_);
    return *this;
  }

  bool unsafeIsBorrowed() const { return borrowed_ != nullptr; }
  const T& operator*() const& { return borrowed_ ? *borrowed_ : *owned_; }
  const T* operator->() const { return &**this; }
  /*! \brief The value, moved out when owned, copied when borrowed. */
  T operator*() && { return borrowed_ ? *borrowed_ : std::move(*owned_); }

 private:
  explicit MaybeOwned(const T* borrowed) : borrowed_(borrowed) {}
  explicit MaybeOwned(T&& value) : owned_(std::move(value)) {}
  const T* borrowed_ = nullptr;  // set when borrowed; else owned_ holds the value
  std::optional<T> owned_;
};

}  // namespace sdk

#endif  // SDK_MAYBE_OWNED_H_
