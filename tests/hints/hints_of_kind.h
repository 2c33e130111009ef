// The hints of one kind among those a test collected from a hint bus.
#ifndef HINTFS_TESTS_HINTS_HINTS_OF_KIND_H_
#define HINTFS_TESTS_HINTS_HINTS_OF_KIND_H_

#include <vector>

#include "hints/hint.h"

namespace hintfs {
namespace test {

inline std::vector<Hint> HintsOfKind(const std::vector<Hint>& hints, Hint::Kind kind) {
  std::vector<Hint> out;
  for (const Hint& h : hints) {
    if (h.kind == kind) out.push_back(h);
  }
  return out;
}

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_HINTS_HINTS_OF_KIND_H_
