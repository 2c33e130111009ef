// Admission policies of the SSD block cache: which blocks are worth a place.
// A policy hears every access to a block that missed the store's own cache
// (RecordAccess) and answers whether a block is hot enough to admit (IsHot).
//   all        every block (HHZS §3.5: every block evicted from the store's
//              block cache that lives on the HDD)
//   cbf        HyperDB's cascading bloom filters (§3.3, §4): accesses go into
//              the open filter (10 bits a key); when it has seen `window`
//              distinct keys it is sealed and a new one opened; at most 4
//              filters, the oldest dropped; a key is hot when present in at
//              least 3 consecutive filters, newest first
//   expsmooth  HotRAP's hotness tracker (§3.2, §3.7): an exponentially
//              smoothed score per key (alpha 0.999, a time slice per 10% of
//              the cache size accessed); a key is hot while its score is
//              among the top `hot set size limit` bytes; the limit is tuned
//              (Algorithm 1) from the size of stable keys, between 5% and 70%
//              of the cache, plus 10% of the upper bound for unstable keys
// Policies are thread safe.
#ifndef HINTFS_CACHE_ADMISSION_H_
#define HINTFS_CACHE_ADMISSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/status.h"

namespace hintfs {

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  virtual std::string name() const = 0;
  // key (a block) of size bytes was accessed and missed the store's cache.
  virtual void RecordAccess(std::string_view key, uint64_t size) = 0;
  virtual bool IsHot(std::string_view key) = 0;
  // The policy's own state as a JSON object.
  virtual std::string StateJson() const = 0;
};

// The names NewAdmissionPolicy knows.
std::vector<std::string> AdmissionPolicyNames();

// cache_bytes sizes the policy (cbf's window, expsmooth's limits);
// block_bytes is the typical block size. NotFound lists the names.
Status NewAdmissionPolicy(const std::string& name, uint64_t cache_bytes, uint64_t block_bytes,
                          std::unique_ptr<AdmissionPolicy>* policy);

}  // namespace hintfs

#endif  // HINTFS_CACHE_ADMISSION_H_
