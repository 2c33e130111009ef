// Opening every table of a LevelDB store up front.
//
// LevelDB opens a table lazily, at the first read that needs it: the footer,
// the index block and the filter block, three small reads, on a tiered store
// mostly from the slow tier. RocksDB with its default max_open_files=-1
// opens every table inside DB::Open instead. In a benchmark phase of a few thousand operations
// on a store just opened (the HHZS reproduction's 1,953), LevelDB's lazy
// opens were about a third of the phase's reads from the HDD
// (docs/benchmarks.md, issue 20, session 77); at the paper's scale they are a
// fraction of a percent. Opening the tables before the first phase makes a
// LevelDB phase measure what a RocksDB phase measures.
#ifndef HINTFS_ADAPTERS_BENCH_LEVELDB_TABLES_H_
#define HINTFS_ADAPTERS_BENCH_LEVELDB_TABLES_H_

#include <string>
#include <vector>

namespace leveldb {
class DB;
}

namespace hintfs {

// For each table listed in LevelDB's "leveldb.sstables" property (lines
// " NUMBER:SIZE['SMALLEST' @ SEQ : TYPE .. 'LARGEST' @ SEQ : TYPE]", keys
// escaped with \xHH for bytes outside ' '..'~'), its largest user key,
// unescaped. Lines that do not parse or are over 8 KiB, and tables whose
// smallest and largest user keys are equal, are left out (opening is an
// optimization: such a table is opened at its first read, as before).
std::vector<std::string> LevelDbTableProbeKeys(const std::string& sstables);

// Opens every table of db that LevelDbTableProbeKeys finds, reading only
// what LevelDB reads to open a table (GetApproximateSizes at a key inside it
// opens it into the table cache and consults its index; no data block is
// read). Returns the number of tables it asked to open. Tables past the
// table cache's capacity (max_open_files - 10) evict earlier ones.
int OpenEveryLevelDbTable(leveldb::DB* db);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_BENCH_LEVELDB_TABLES_H_
