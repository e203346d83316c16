// Reading a field of untrusted JSON: the value when it is there with the
// expected type, else the fallback (nlohmann's value() throws on a wrong type,
// which a model server's or a config file's answer must not be able to cause).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

template <typename T>
T json_get(const Json& object, const char* key, T fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else if constexpr (std::is_same_v<T, bool>) {
    return it->is_boolean() ? it->template get<bool>() : fallback;
  } else if constexpr (std::is_integral_v<T>) {
    if (!it->is_number_integer()) return fallback;
    int64_t v = it->template get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) return v < 0 ? fallback : T(v);
    return T(v);
  } else {
    return it->is_number() ? it->template get<T>() : fallback;
  }
}

// A child of untrusted JSON: the member when `object` is an object that has it,
// else null. Chains safely: json_member(json_member(j, "a"), "b").
inline const Json& json_member(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// The elements of untrusted JSON that should be a list: the array, else an empty one.
inline const Json& json_items(const Json& list) {
  static const Json kEmpty = Json::array();
  return list.is_array() ? list : kEmpty;
}

}  // namespace bioagent
