// sdk/containers.h: torch's c10::List<T> and c10::Dict<K, V> (shared, reference-semantics
// containers that kernels and schemas use), and how List arguments box into the op registry.
//
// As in torch, copying a List or a Dict shares its elements (copy() makes an independent
// one). A kernel may take `const sdk::List<T>&` wherever the registry has a list type:
// int[], float[], bool[], Tensor[], Tensor?[] (List<std::optional<Tensor>>) and every list
// of lists (List<List<int64_t>> for int[][]). The registry has no dictionary values: a Dict
// in an op's signature is refused at compile time.
#ifndef SDK_CONTAINERS_H_
#define SDK_CONTAINERS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sdk/library.h"

namespace sdk {

/*! \brief A list whose copies share the elements (torch's c10::List<T>). */
template <typename T>
class List {
 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  List() : v_(std::make_shared<std::vector<T>>()) {}
  List(std::initializer_list<T> values) : v_(std::make_shared<std::vector<T>>(values)) {}
  // Implicit, unlike torch's: IValue::toIntList() gives an IntArrayRef here where torch
  // gives a List<int64_t>, and real code passes it on as a List.
  List(ArrayRef<T> values) : v_(std::make_shared<std::vector<T>>(values.begin(), values.end())) {}
  explicit List(std::vector<T> values) : v_(std::make_shared<std::vector<T>>(std::move(values))) {}

  size_t size() const { return v_->size(); }
  bool empty() const { return v_->empty(); }
  /*! \brief Element `pos` (bounds-checked, as torch's get()). */
  typename std::vector<T>::const_reference get(size_t pos) const { return (*v_)[checked(pos)]; }
  typename std::vector<T>::reference operator[](size_t pos) const { return (*v_)[checked(pos)]; }
  void set(size_t pos, T value) const { (*v_)[checked(pos)] = std::move(value); }
  /*! \brief Move element `pos` out (it is left valid but unspecified). */
  T extract(size_t pos) const { return std::move((*v_)[checked(pos)]); }
  void push_back(T value) const { v_->push_back(std::move(value)); }
  template <typename... Args>
  void emplace_back(Args&&... args) const {
    v_->emplace_back(std::forward<Args>(args)...);
  }
  void append(List<T> other) const { v_->insert(v_->end(), other.begin(), other.end()); }
  void pop_back() const {
    if (v_->empty()) detail::throw_error(SDK_ERROR_INDEX, "List::pop_back: the list is empty");
    v_->pop_back();
  }
  void reserve(size_t n) const { v_->reserve(n); }
  void resize(size_t n) const { v_->resize(n); }
  void clear() const { v_->clear(); }
  iterator insert(const_iterator pos, T value) const { return v_->insert(pos, std::move(value)); }
  iterator erase(const_iterator pos) const { return v_->erase(pos); }
  iterator begin() const { return v_->begin(); }
  iterator end() const { return v_->end(); }
  /*! \brief The elements, copied into a std::vector. */
  std::vector<T> vec() const { return *v_; }
  /*! \brief A list with its own copy of the elements. */
  List copy() const { return List(*v_); }
  /*! \brief Whether two lists share their elements. */
  bool is(const List& other) const { return v_ == other.v_; }
  size_t use_count() const { return static_cast<size_t>(v_.use_count()); }
  /*! \brief A view of the elements (valid while the list is not resized). */
  operator ArrayRef<T>() const { return ArrayRef<T>(v_->data(), v_->size()); }  // NOLINT

 private:
  size_t checked(size_t pos) const {
    if (pos >= v_->size()) {
      detail::throw_error(
          SDK_ERROR_INDEX,
          detail::concat("List: index ", pos, " out of range for a list of size ", v_->size()));
    }
    return pos;
  }
  std::shared_ptr<std::vector<T>> v_;
};

template <typename T>
bool operator==(const List<T>& a, const List<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a.get(i) == b.get(i))) return false;
  }
  return true;
}
template <typename T>
bool operator!=(const List<T>& a, const List<T>& b) {
  return !(a == b);
}

/*! \brief A dictionary in insertion order whose copies share the entries (torch's
 *  c10::Dict<K, V>); iterating yields entries with key() and value(). */
template <typename K, typename V>
class Dict {
 public:
  /*! \brief One entry, as the iterator yields it. */
  class Entry {
   public:
    Entry(K key, V value) : key_(std::move(key)), value_(std::move(value)) {}
    const K& key() const { return key_; }
    const V& value() const { return value_; }
    void setValue(V value) { value_ = std::move(value); }

   private:
    friend class Dict;
    K key_;
    V value_;
  };
  using iterator = typename std::vector<Entry>::iterator;

  Dict() : d_(std::make_shared<Data>()) {}
  Dict(std::initializer_list<std::pair<K, V>> entries) : Dict() {
    for (const auto& e : entries) insert_or_assign(e.first, e.second);
  }

  size_t size() const { return d_->entries.size(); }
  bool empty() const { return d_->entries.empty(); }
  iterator begin() const { return d_->entries.begin(); }
  iterator end() const { return d_->entries.end(); }
  /*! \brief The entry of `key`, or end(). */
  iterator find(const K& key) const {
    auto it = d_->index.find(key);
    return it == d_->index.end() ? end() : begin() + static_cast<std::ptrdiff_t>(it->second);
  }
  bool contains(const K& key) const { return d_->index.count(key) != 0; }
  /*! \brief The value of `key`; an IndexError naming the key when it is absent. */
  const V& at(const K& key) const {
    auto it = d_->index.find(key);
    if (it == d_->index.end()) {
      detail::throw_error(SDK_ERROR_INDEX, detail::concat("Dict: no key ", key));
    }
    return d_->entries[it->second].value();
  }
  /*! \brief Add an entry unless the key is present: (its entry, whether it was added). */
  std::pair<iterator, bool> insert(K key, V value) const {
    iterator it = find(key);
    if (it != end()) return {it, false};
    d_->index.emplace(key, d_->entries.size());
    d_->entries.emplace_back(std::move(key), std::move(value));
    return {end() - 1, true};
  }
  /*! \brief Add an entry or replace the value of the key's entry. */
  std::pair<iterator, bool> insert_or_assign(K key, V value) const {
    iterator it = find(key);
    if (it == end()) return insert(std::move(key), std::move(value));
    it->setValue(std::move(value));
    return {it, false};
  }
  /*! \brief Remove the key's entry; returns how many were removed (0 or 1). */
  size_t erase(const K& key) const {
    auto it = d_->index.find(key);
    if (it == d_->index.end()) return 0;
    d_->entries.erase(d_->entries.begin() + static_cast<std::ptrdiff_t>(it->second));
    reindex();
    return 1;
  }
  void clear() const {
    d_->entries.clear();
    d_->index.clear();
  }
  void reserve(size_t n) const {
    d_->entries.reserve(n);
    d_->index.reserve(n);
  }
  /*! \brief A dict with its own copy of the entries. */
  Dict copy() const {
    Dict out;
    *out.d_ = *d_;
    return out;
  }
  bool is(const Dict& other) const { return d_ == other.d_; }

 private:
  struct Data {
    std::vector<Entry> entries;
    std::unordered_map<K, size_t> index;  // key -> position in entries
  };
  void reindex() const {
    d_->index.clear();
    for (size_t i = 0; i < d_->entries.size(); ++i) d_->index.emplace(d_->entries[i].key(), i);
  }
  std::shared_ptr<Data> d_;
};

namespace detail {

// A List argument or result boxes as the vector of the same elements (List<List<T>> as the
// vector of Lists, each of which boxes as a vector again).
template <typename T>
struct Box<List<T>> {
  using Stored = List<T>;
  static auto schema() { return Box<std::vector<T>>::schema(); }
  static Stored read(const sdk_values* v, int64_t i) {
    return List<T>(Box<std::vector<T>>::read(v, i));
  }
  static void push(sdk_values* v, const List<T>& x) { Box<std::vector<T>>::push(v, x.vec()); }
};

template <typename K, typename V>
struct Box<Dict<K, V>> {
  static_assert(sizeof(K) == 0,
                "sdk::Dict cannot be an operator argument or result: the op registry has no "
                "dictionary values; pass the keys and the values as two lists");
};

}  // namespace detail
}  // namespace sdk

#endif  // SDK_CONTAINERS_H_
