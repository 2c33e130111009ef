#include "placement/tiering.h"

namespace hintfs {

TieringSource* TieringOf(AllocationPolicy* policy) {
  // A capability query: policies that tier derive from both interfaces.
  return dynamic_cast<TieringSource*>(policy);
}

}  // namespace hintfs
