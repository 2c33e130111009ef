// ReadOracle: the least share of a store's point reads that must reach the
// slow tier, for a store as it lies on its devices and a known key
// distribution, when a fast tier of a given size holds, chosen with hindsight
// and placed once:
//
//   tables   the whole tables with the most reads per byte: the ceiling of
//            any policy that places or moves whole files (HHZS);
//   blocks   the data blocks with the most reads per byte: the ceiling of
//            block-granular tiering (issue 21's "block oracle");
//   records  the records with the most reads, packed densely: the ceiling of
//            a store that moves records itself (HotRAP's bound).
//
// Those know the key distribution. A policy that starts from where the load
// left the data and learns only from the run's own reads cannot avoid one
// slow read of every slow block the run reads from a device at all: the
// online bound (promotion at the first read, free and unlimited) gives the
// share that leaves for a run of a given length and mix of reads and
// writes, against the share of the starting placement left alone.
//
// A point read of a key lands on the data block that holds the key in the
// shallowest level that has it (at L0, the newest table): Bloom filters keep
// a store from reading blocks of the other levels, bar their false positives,
// which the oracle ignores, as it ignores index and filter blocks (held in
// memory). The store's block cache serves the hottest data blocks from
// memory when it is given (KeepHottestInMemory): under Zipfian keys a
// cache of a few hundred blocks takes a third of the reads, the hottest
// third, which never reach a device, so that the oracles without it
// answered for reads no placement ever sees (docs/benchmarks.md). Keys no
// table holds are read from the memtable and count for no tier. Moving data, and the compactions that
// rewrite tables during a run, cost an oracle nothing: real policies are
// measured against it, never above it.
#ifndef HINTFS_ADAPTERS_BENCH_READ_ORACLE_H_
#define HINTFS_ADAPTERS_BENCH_READ_ORACLE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hintfs {

// What the oracles give for one fast-tier size: each one's share of the
// reads that reach a device which the slow tier still serves (0 to 1; 0
// when no read reaches a device). Every share below is 0 in that case too.
struct OracleShares {
  uint64_t fast_bytes = 0;
  double tables = 0, blocks = 0, records = 0;
};

struct OracleBlock {
  uint64_t bytes = 0;  // trailer included: what a read of it covers
  bool slow = false;   // where the block is now (the start of a run)
};

struct LevelReads {
  uint64_t tables = 0, bytes = 0;
  double read_share = 0;  // of the reads that reach a device
};

struct TableReads {
  uint64_t number = 0;
  int level = 0;
  uint64_t bytes = 0;
  double slow_bytes_share = 0;  // of its data blocks' bytes, on the slow tier now
  double read_share = 0;        // of the reads that reach a device
};

// What each operation of a run does: it picks a stored record with the
// probability AddRecordReads gave it and reads it (read), writes it
// (update), or reads and then writes it (read_modify_write). The shares need
// not sum to 1: the rest (inserts of new keys, say) touch no stored record.
// A record the run has written is read from memory afterwards: the memtable,
// or the L0 table a flush made of it, which every LSM policy keeps on the
// fast tier. So a run that writes the keys it reads (YCSB A and F) reads
// a hot record from a device only until it first writes it, whatever the
// placement: the repeated reads a promotion would serve from the fast tier
// are mostly memory's already.
struct RunMix {
  double read = 1, update = 0, read_modify_write = 0;
};

struct OnlineBound {
  double device_reads = 0;  // expected reads of stored blocks in the run
  double placed_share = 0;  // the slow tier's share of them with nothing moved
  double online_share = 0;  // with every block promoted at its first read
};

class ReadOracle {
 public:
  // A live table of the store: its file number, level, size on the device
  // and its data blocks. Returns its index for AddKey.
  size_t AddTable(uint64_t number, int level, uint64_t file_bytes, std::vector<OracleBlock> blocks);
  // Key lies in data block `block` of table `table` (an AddTable index).
  // Where several tables hold a key, reads go to the shallowest level's
  // (at L0 to the newest, the largest number), whatever the order of calls.
  void AddKey(std::string_view key, size_t table, size_t block);
  // One record of the workload, of record_bytes, read with probability
  // `reads`. Call after every AddKey.
  void AddRecordReads(std::string_view key, uint64_t record_bytes, double reads);
  // The store's block cache of cache_bytes holds the data blocks with the
  // most reads that fit (a frequency-ordered stand-in for its LRU, which
  // under independent reads keeps about those): their reads are served
  // from memory from now on, as the memtable's are. Call after every
  // AddRecordReads. Returns how many blocks it holds.
  size_t KeepHottestInMemory(uint64_t cache_bytes);

  // The slow tier's share under each oracle for each fast-tier size.
  std::vector<OracleShares> Shares(const std::vector<uint64_t>& fast_bytes) const;
  // The slow tier's share if nothing moves: reads of blocks now on it (a
  // read-only run's OnlineBound::placed_share).
  double StartSlowShare() const;
  // The least slow share a policy starting from the present placement and
  // learning from the run alone reaches in a run of `ops` operations of
  // `mix`: the expected number of distinct slow blocks the run reads from
  // a device, over its expected device reads (OnlineBound).
  OnlineBound Online(uint64_t ops, const RunMix& mix) const;
  // Tables, bytes and the share of reads at each level present.
  std::map<int, LevelReads> Levels() const;
  // The n tables with the most reads per byte, densest first.
  std::vector<TableReads> HottestTables(size_t n) const;
  // Of all reads, the share no device serves (the memtable's and the
  // block cache's).
  double MemoryShare() const;

 private:
  struct Table {
    uint64_t number;
    int level;
    uint64_t file_bytes;
    std::vector<OracleBlock> blocks;
    std::vector<double> block_reads;
  };
  struct Location {
    size_t table, block;
  };
  struct Record {
    uint64_t bytes;
    double reads;
    Location where;
  };
  bool Shallower(size_t a, size_t b) const;
  double DeviceReads() const;

  std::vector<Table> tables_;
  std::unordered_map<std::string, Location> keys_;
  std::vector<Record> records_;
  double memory_reads_ = 0;
};

// Of the items (bytes, reads), the reads the greedy choice by reads per byte
// fits into capacity (an item that does not fit is passed over for smaller
// ones after it); exact when items are about the same size.
double HottestThatFit(std::vector<std::pair<uint64_t, double>> items, uint64_t capacity);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_BENCH_READ_ORACLE_H_
