// sdk/intrusive_ptr.h: a reference-counted pointer whose count lives in the object (torch's
// c10::intrusive_ptr): intrusive_ptr_target, intrusive_ptr, weak_intrusive_ptr, make_intrusive.
//
// The object counts its strong references and its weak references plus one for all the strong
// ones, as torch does: the last strong reference calls release_resources(), the last reference
// of either kind deletes the object. Counts are atomic, so references may be taken and dropped
// from any thread. Because the count is in the object, a raw pointer can be handed across a C
// boundary and adopted again (release() / reclaim()), which is how the core and Python hold
// custom-class objects (sdk/custom_class.h).
#ifndef SDK_INTRUSIVE_PTR_H_
#define SDK_INTRUSIVE_PTR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace sdk {

template <typename T>
class intrusive_ptr;
template <typename T>
class weak_intrusive_ptr;

/*! \brief The base of an object that intrusive_ptr counts. */
class intrusive_ptr_target {
 public:
  intrusive_ptr_target() noexcept = default;
  // a copy is a new object: it starts with no references of its own
  intrusive_ptr_target(const intrusive_ptr_target&) noexcept {}
  intrusive_ptr_target& operator=(const intrusive_ptr_target&) noexcept { return *this; }
  virtual ~intrusive_ptr_target() = default;

 protected:
  /*! \brief Called when the last strong reference goes while weak ones remain: free what the
   *  object holds (it is deleted when the last weak reference goes). */
  virtual void release_resources() {}

 private:
  template <typename T>
  friend class intrusive_ptr;
  template <typename T>
  friend class weak_intrusive_ptr;
  friend struct intrusive_ptr_counts;
  mutable std::atomic<size_t> refcount_{0};
  mutable std::atomic<size_t> weakcount_{0};  // weak references, plus one while strong ones exist
};

/*! \brief The counting of intrusive_ptr_target, shared by the pointers and the C-boundary
 *  functions of sdk/custom_class.h (which have only an intrusive_ptr_target*). */
struct intrusive_ptr_counts {
  static void incref(const intrusive_ptr_target* t) noexcept {
    t->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  static void decref(intrusive_ptr_target* t) noexcept {
    if (t->refcount_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    bool last = t->weakcount_.load(std::memory_order_acquire) == 1;
    if (!last) {
      t->release_resources();
      last = t->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1;
    }
    if (last) delete t;
  }
  static void weak_incref(const intrusive_ptr_target* t) noexcept {
    t->weakcount_.fetch_add(1, std::memory_order_relaxed);
  }
  static void weak_decref(intrusive_ptr_target* t) noexcept {
    if (t->weakcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
  }
  // A new strong reference unless the count already reached zero.
  static bool try_incref(const intrusive_ptr_target* t) noexcept {
    size_t n = t->refcount_.load(std::memory_order_relaxed);
    while (n != 0) {
      if (t->refcount_.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) return true;
    }
    return false;
  }
  static void adopt_new(const intrusive_ptr_target* t) noexcept {
    t->refcount_.store(1, std::memory_order_relaxed);
    t->weakcount_.store(1, std::memory_order_relaxed);
  }
  static size_t use_count(const intrusive_ptr_target* t) noexcept {
    return t->refcount_.load(std::memory_order_acquire);
  }
  static size_t weak_use_count(const intrusive_ptr_target* t) noexcept {
    size_t strong = t->refcount_.load(std::memory_order_acquire);
    size_t weak = t->weakcount_.load(std::memory_order_acquire);
    return strong > 0 ? weak - 1 : weak;
  }
};

/*! \brief A strong reference to a T (a subclass of intrusive_ptr_target), or null. */
template <typename T>
class intrusive_ptr {
  static_assert(std::is_base_of_v<intrusive_ptr_target, T>,
                "intrusive_ptr<T> needs T to derive from sdk::intrusive_ptr_target "
                "(or sdk::CustomClassHolder)");

 public:
  using element_type = T;

  intrusive_ptr() noexcept = default;
  intrusive_ptr(std::nullptr_t) noexcept {}  // NOLINT: null converts, as in torch
  /*! \brief Own a new object (its counts must be zero: made with new, never counted). */
  explicit intrusive_ptr(T* fresh) : p_(fresh) {
    if (p_) intrusive_ptr_counts::adopt_new(p_);
  }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) {
    if (p_) intrusive_ptr_counts::incref(p_);
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <typename U, std::enable_if_t<std::is_convertible_v<U*, T*>, int> = 0>
  intrusive_ptr(const intrusive_ptr<U>& o) noexcept : p_(o.get()) {  // NOLINT: upcast
    if (p_) intrusive_ptr_counts::incref(p_);
  }
  template <typename U, std::enable_if_t<std::is_convertible_v<U*, T*>, int> = 0>
  intrusive_ptr(intrusive_ptr<U>&& o) noexcept : p_(o.release()) {}  // NOLINT: upcast
  ~intrusive_ptr() { reset(); }

  intrusive_ptr& operator=(intrusive_ptr o) noexcept {
    swap(o);
    return *this;
  }

  T* get() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool defined() const noexcept { return p_ != nullptr; }
  /*! \brief Strong references to the object (0 for null). */
  size_t use_count() const noexcept { return p_ ? intrusive_ptr_counts::use_count(p_) : 0; }
  /*! \brief Weak references to the object (0 for null). */
  size_t weak_use_count() const noexcept {
    return p_ ? intrusive_ptr_counts::weak_use_count(p_) : 0;
  }
  bool unique() const noexcept { return use_count() == 1; }
  void reset() noexcept {
    if (p_)
      intrusive_ptr_counts::decref(const_cast<std::remove_const_t<T>*>(std::exchange(p_, nullptr)));
  }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }

  /*! \brief Give up the reference without dropping it: the caller owns it (reclaim() takes it
   *  back). */
  T* release() noexcept { return std::exchange(p_, nullptr); }
  /*! \brief Adopt a reference that release() gave up (no count changes). */
  static intrusive_ptr reclaim(T* owning) noexcept {
    intrusive_ptr r;
    r.p_ = owning;
    return r;
  }
  /*! \brief A new reference to an object someone else holds. */
  static intrusive_ptr reclaim_copy(T* borrowed) noexcept {
    if (borrowed) intrusive_ptr_counts::incref(borrowed);
    return reclaim(borrowed);
  }
  template <typename... Args>
  static intrusive_ptr make(Args&&... args) {
    return intrusive_ptr(new T(std::forward<Args>(args)...));
  }
  /*! \brief A new reference to the object `this` points to (inside a method of T). */
  static intrusive_ptr unsafe_reclaim_from_nonowning(T* borrowed) noexcept {
    return reclaim_copy(borrowed);
  }

 private:
  T* p_ = nullptr;
};

/*! \brief A new T owned by an intrusive_ptr (torch's c10::make_intrusive). */
template <typename T, typename... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>::make(std::forward<Args>(args)...);
}

/*! \brief intrusive_ptr<T> of a pointer that is really a U (static_cast; torch's
 *  static_intrusive_pointer_cast). */
template <typename T, typename U>
intrusive_ptr<T> static_intrusive_pointer_cast(intrusive_ptr<U> p) {
  return intrusive_ptr<T>::reclaim(static_cast<T*>(p.release()));
}
/*! \brief dynamic_cast of the pointee; null when it is not a T. */
template <typename T, typename U>
intrusive_ptr<T> dynamic_intrusive_pointer_cast(const intrusive_ptr<U>& p) {
  return intrusive_ptr<T>::reclaim_copy(dynamic_cast<T*>(p.get()));
}

template <typename T, typename U>
bool operator==(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <typename T, typename U>
bool operator!=(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <typename T>
bool operator==(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
template <typename T>
bool operator!=(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return static_cast<bool>(a);
}
template <typename T>
bool operator<(const intrusive_ptr<T>& a, const intrusive_ptr<T>& b) noexcept {
  return std::less<T*>()(a.get(), b.get());
}

/*! \brief A weak reference: keeps the memory, not the object, alive; lock() gives a strong
 *  reference while one exists. */
template <typename T>
class weak_intrusive_ptr {
 public:
  explicit weak_intrusive_ptr(const intrusive_ptr<T>& strong) : p_(strong.get()) {
    if (p_) intrusive_ptr_counts::weak_incref(p_);
  }
  weak_intrusive_ptr(const weak_intrusive_ptr& o) noexcept : p_(o.p_) {
    if (p_) intrusive_ptr_counts::weak_incref(p_);
  }
  weak_intrusive_ptr(weak_intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  ~weak_intrusive_ptr() { reset(); }
  weak_intrusive_ptr& operator=(weak_intrusive_ptr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  weak_intrusive_ptr& operator=(const intrusive_ptr<T>& strong) {
    return *this = weak_intrusive_ptr(strong);
  }

  void reset() noexcept {
    if (p_) {
      intrusive_ptr_counts::weak_decref(
          const_cast<std::remove_const_t<T>*>(std::exchange(p_, nullptr)));
    }
  }
  /*! \brief A strong reference, or null when the object is gone. */
  intrusive_ptr<T> lock() const noexcept {
    if (!p_ || !intrusive_ptr_counts::try_incref(p_)) return intrusive_ptr<T>();
    return intrusive_ptr<T>::reclaim(p_);
  }
  size_t use_count() const noexcept { return p_ ? intrusive_ptr_counts::use_count(p_) : 0; }
  size_t weak_use_count() const noexcept {
    return p_ ? intrusive_ptr_counts::weak_use_count(p_) : 0;
  }
  bool expired() const noexcept { return use_count() == 0; }
  void swap(weak_intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }

 private:
  T* p_ = nullptr;
};

}  // namespace sdk

/*! \brief Hashing by the pointee's address, so an intrusive_ptr keys unordered containers. */
template <typename T>
struct std::hash<sdk::intrusive_ptr<T>> {
  size_t operator()(const sdk::intrusive_ptr<T>& p) const noexcept {
    return std::hash<T*>()(p.get());
  }
};

#endif  // SDK_INTRUSIVE_PTR_H_
