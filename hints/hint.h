// The hint vocabulary: what an LSM store tells (or hintfs infers) about the
// work it is doing, in the terms HHZS uses. Sources publish hints on a
// HintBus (hint_bus.h); placement, migration and caching subscribe.
#ifndef HINTFS_HINTS_HINT_H_
#define HINTFS_HINTS_HINT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hintfs {

struct HintFile {
  std::string path;
  int level = -1;  // -1: unknown
};

// What a store expects of a file's reads (RocksDB's Temperature): hot files
// belong on the fast tier, warm and cold ones on the slow tier.
enum class Temperature : uint8_t { kUnknown = 0, kHot = 1, kWarm = 2, kCold = 3 };

const char* TemperatureName(Temperature t);

struct Hint {
  enum class Kind : uint8_t {
    kFlushBegin = 1,          // job, bytes (memtable bytes being flushed)
    kTableFileCreation = 2,   // path, job, level, reason: before the file's first byte
    kCompactionBegin = 3,     // job, inputs (with levels), level (output), count (selected tables)
    kCompactionOutput = 4,    // job, path, level: one output table written
    kCompactionEnd = 5,       // job, outputs, level
    kFileDeleted = 6,         // path
    // 7 to 9 are kept for kinds that were planned and never published (a
    // store's block-cache eviction, lifetime and temperature hints).
    kFileTemperature = 10,    // path, temperature: before the file's first byte
  };
  // Whether k names a kind (1-6 and 10).
  static bool IsKind(uint8_t k) { return (k >= 1 && k <= 6) || k == 10; }
  Kind kind = Kind::kFlushBegin;
  uint64_t time_ns = 0;
  int64_t job = -1;
  std::string path;
  int level = -1;
  std::string reason;  // "flush", "compaction", "recovery", ...
  uint64_t bytes = 0;
  uint64_t offset = 0;
  uint32_t count = 0;
  Temperature temperature = Temperature::kUnknown;
  std::vector<HintFile> inputs;
  std::vector<HintFile> outputs;
  // A table's user-key range, where the source knows it (compaction outputs
  // read from the MANIFEST). Not kept in traces.
  std::string smallest_key, largest_key;
  // The smallest and largest sequence numbers of the table's keys, where the
  // source knows them (RocksDB's MANIFEST records them; LevelDB's does not).
  // Not kept in traces.
  std::optional<uint64_t> smallest_seqno, largest_seqno;
};

const char* HintKindName(Hint::Kind kind);

}  // namespace hintfs

#endif  // HINTFS_HINTS_HINT_H_
