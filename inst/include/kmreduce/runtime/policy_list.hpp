// kmreduce: a list of policies chosen by name across the R boundary.
//
// A list is a std::tuple of policy classes, each with
//   static const char* name();
// policy_names<List>() gives their names in order, policy_index<List>(name,
// what) the position of one (an unknown name throws std::invalid_argument
// naming `what` and the known names), and with_policy<List>(index, f) calls
// f(policy) with a value of the policy at that position, so that the work
// is compiled once per policy. The seedings (cluster/seeding.hpp) and the
// projections (reduce/projections.hpp) are such lists.
#ifndef KMREDUCE_POLICY_LIST_HPP
#define KMREDUCE_POLICY_LIST_HPP

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace kmreduce {

namespace detail {

template <class List, std::size_t I>
using policy_at = typename std::tuple_element<I, List>::type;

template <class List, std::size_t I = 0>
typename std::enable_if<I == std::tuple_size<List>::value>::type policy_names_(
    std::vector<std::string>&) {}
template <class List, std::size_t I = 0>
typename std::enable_if<(I < std::tuple_size<List>::value)>::type policy_names_(
    std::vector<std::string>& out) {
  out.emplace_back(policy_at<List, I>::name());
  policy_names_<List, I + 1>(out);
}

template <class List, std::size_t I = 0, class F>
typename std::enable_if<I == std::tuple_size<List>::value>::type with_policy_(std::size_t,
                                                                              F&) {
  throw std::invalid_argument("no such policy");
}
template <class List, std::size_t I = 0, class F>
typename std::enable_if<(I < std::tuple_size<List>::value)>::type with_policy_(
    std::size_t index, F& f) {
  if (index == I) {
    f(policy_at<List, I>());
  } else {
    with_policy_<List, I + 1>(index, f);
  }
}

}  // namespace detail

// The names of the policies of `List`, in its order.
template <class List>
std::vector<std::string> policy_names() {
  std::vector<std::string> out;
  detail::policy_names_<List>(out);
  return out;
}

// The position of the policy called `name` in `List`; an unknown name throws
// std::invalid_argument: "<what> must be one of "a", "b", not "name"".
template <class List>
std::size_t policy_index(const std::string& name, const std::string& what) {
  const std::vector<std::string> names = policy_names<List>();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  std::string known;
  for (const std::string& s : names) known += (known.empty() ? "\"" : ", \"") + s + "\"";
  throw std::invalid_argument(what + " must be one of " + known + ", not \"" + name + "\"");
}

// Calls f(policy) with a value of the policy at `index` of `List`.
template <class List, class F>
void with_policy(std::size_t index, F&& f) {
  detail::with_policy_<List>(index, f);
}

}  // namespace kmreduce

#endif  // KMREDUCE_POLICY_LIST_HPP
