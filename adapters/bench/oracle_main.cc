// hintfs-oracle: how much of a YCSB workload's point reads the slow tier must
// serve at best, for a RocksDB or LevelDB store on a hintfs filesystem as it
// lies now (adapters/bench/read_oracle.h: the hottest tables, data blocks or
// records that fit in the fast tier). Mounts the filesystem read-only, reads
// the live tables the store's MANIFEST names (every data block, to learn
// which block holds which key, and where each block is now) and weighs each
// record by the probability hintfs-ycsb's key distribution gives it.
//
//   hintfs-oracle --uri file:/x/ssd.img --db /db --records 400000 --zipf 0.9 --fast-bytes 36MiB,40MiB
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/bench/key_generators.h"
#include "adapters/bench/read_oracle.h"
#include "adapters/common/cli_conventions.h"
#include "fs/filesystem.h"
#include "fs/uri.h"
#include "fs/walk.h"
#include "hints/manifest.h"
#include "hints/table_map.h"
#include "placement/policy_registry.h"

namespace hintfs {
namespace {

using json = nlohmann::json;

struct Args {
  std::string uri, db = "/db", distribution = "zipfian", fast_bytes = "40MiB", reads, json_path, block_cache = "0";
  std::vector<std::string> runs;  // OPS:READ:UPDATE:RMW
  uint64_t records = 100000, new_keys = 0;
  size_t top = 0;
  double zipf = 0.9, hot_set = 0.05, hot_ops = 0.95;
  size_t key_size = 24, value_size = 1000;
};

// A run the online bound is given for.
struct RunSpec {
  uint64_t ops = 0;
  RunMix mix;
};

uint64_t PointReads(const RunSpec& run) {
  return static_cast<uint64_t>(static_cast<double>(run.ops) * (run.mix.read + run.mix.read_modify_write) + 0.5);
}

// OPS:READ:UPDATE:RMW, the shares each in [0, 1] and summing to at most 1.
Status ParseRun(const std::string& text, RunSpec* run) {
  std::istringstream in(text);
  std::vector<std::string> parts;
  for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
  if (parts.size() != 4) return Status::InvalidArgument("'" + text + "' is not OPS:READ:UPDATE:RMW");
  double shares[3] = {0, 0, 0};
  try {
    size_t used = 0;
    run->ops = std::stoull(parts[0], &used);
    if (used != parts[0].size() || parts[0][0] == '-') throw std::invalid_argument(parts[0]);
    for (int i = 0; i < 3; i++) {
      shares[i] = std::stod(parts[i + 1], &used);
      if (used != parts[i + 1].size() || !(shares[i] >= 0 && shares[i] <= 1)) throw std::invalid_argument(parts[i + 1]);
    }
  } catch (const std::exception&) {
    return Status::InvalidArgument("'" + text + "': OPS is a count, READ, UPDATE and RMW shares from 0 to 1");
  }
  if (shares[0] + shares[1] + shares[2] > 1 + 1e-9) {
    return Status::InvalidArgument("'" + text + "': the shares sum to more than 1");
  }
  run->mix = RunMix{shares[0], shares[1], shares[2]};
  return Status::OK();
}

// The table files of the store's live tables, by file number.
Status TablePaths(Filesystem* fs, const std::string& db, const std::map<uint64_t, int>& levels,
                  std::map<uint64_t, std::string>* paths) {
  return Walk(fs, db, /*recursive=*/false, [&](const std::string& path, const DirEntry&) {
    uint64_t number = 0;
    if (TableFileNumber(path, &number) && levels.count(number)) (*paths)[number] = path;
  });
}

// Adds every live table's blocks and keys to the oracle; on an error in a
// table, *where names it.
Status AddTables(Filesystem* fs, const std::string& db, ReadOracle* oracle, size_t* tables, std::string* where) {
  std::map<uint64_t, int> levels;
  Status s = LiveTableLevels(fs, db, &levels);
  std::map<uint64_t, std::string> paths;
  if (s.ok()) s = TablePaths(fs, db, levels, &paths);
  if (s.ok() && paths.size() != levels.size()) {
    return Status::NotFound(fmt::format("the MANIFEST of {} names {} live tables, {} are there", db,
                                        levels.size(), paths.size()));
  }
  for (const auto& [number, path] : paths) {
    if (!s.ok()) return s;
    *where = path + ": ";
    std::string bytes;
    s = ReadWholeFile(fs, path, &bytes);
    TableReadFn read = ReadTableBytes(bytes);
    TableMap map;
    if (s.ok()) s = ParseTable(bytes.size(), read, &map);
    if (!s.ok()) return s;
    std::unique_ptr<FileReader> reader;
    s = fs->OpenReader(path, &reader);
    if (!s.ok()) return s;
    std::vector<OracleBlock> blocks;
    for (const TableBlockHandle& h : map.data_blocks) {
      uint64_t size = h.size + TableMap::kBlockTrailer;
      blocks.push_back(OracleBlock{size, reader->Locate(h.offset, size).slow});
    }
    size_t table = oracle->AddTable(number, levels.at(number), bytes.size(), std::move(blocks));
    s = ForEachTableKey(map, read, [&](size_t block, std::string_view key) {
      oracle->AddKey(key, table, block);
      return Status::OK();
    });
  }
  if (!s.ok()) return s;
  where->clear();
  *tables = paths.size();
  return s;
}

// A comma-separated list of sizes ("36MiB,40MiB"; counts are sizes without
// a suffix). An empty text is an empty list when empty_ok.
Status ParseSizes(const std::string& text, bool empty_ok, std::vector<uint64_t>* sizes) {
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    uint64_t size = 0;
    Status s = ParseSize(item, &size);
    if (!s.ok()) return s;
    sizes->push_back(size);
  }
  return sizes->empty() && !empty_ok ? Status::InvalidArgument("no size") : Status::OK();
}

json Report(const Args& a, const ReadOracle& oracle, size_t tables, const std::vector<uint64_t>& sizes,
            const std::vector<RunSpec>& runs) {
  json j = {{"records", a.records},
            {"distribution", a.distribution},
            {"tables", tables},
            {"memory_share", oracle.MemoryShare()},
            {"start_slow_share", oracle.StartSlowShare()},
            {"levels", json::array()},
            {"hottest_tables", json::array()},
            {"slow_share", json::array()},
            {"online", json::array()}};
  if (a.distribution == "zipfian" || a.distribution == "latest") j["zipf"] = a.zipf;
  if (a.distribution == "zipfian") j["new_keys"] = a.new_keys;
  if (a.distribution == "hotspot") j["hot_set"] = a.hot_set, j["hot_ops"] = a.hot_ops;
  for (const auto& [level, l] : oracle.Levels()) {
    j["levels"].push_back({{"level", level}, {"tables", l.tables}, {"bytes", l.bytes}, {"read_share", l.read_share}});
  }
  for (const TableReads& t : oracle.HottestTables(a.top)) {
    j["hottest_tables"].push_back({{"number", t.number}, {"level", t.level}, {"bytes", t.bytes},
                                   {"slow_bytes_share", t.slow_bytes_share}, {"read_share", t.read_share}});
  }
  for (const OracleShares& s : oracle.Shares(sizes)) {
    j["slow_share"].push_back({{"fast_bytes", s.fast_bytes}, {"tables", s.tables}, {"blocks", s.blocks},
                               {"records", s.records}});
  }
  // Reads of records the memtable holds, or the run wrote, reach no device.
  for (const RunSpec& run : runs) {
    OnlineBound b = oracle.Online(run.ops, run.mix);
    j["online"].push_back({{"ops", run.ops},
                           {"read", run.mix.read},
                           {"update", run.mix.update},
                           {"read_modify_write", run.mix.read_modify_write},
                           {"reads", PointReads(run)},
                           {"device_reads", b.device_reads},
                           {"placed_share", b.placed_share},
                           {"slow_share", b.online_share}});
  }
  return j;
}

void Print(const json& j) {
  std::printf("%s, %llu records: %llu live tables, %.1f%% of reads from memory (the memtable; a block cache of %llu "
              "blocks)\n",
              j["distribution"].get<std::string>().c_str(), static_cast<unsigned long long>(j["records"].get<uint64_t>()),
              static_cast<unsigned long long>(j["tables"].get<uint64_t>()), 100 * j["memory_share"].get<double>(),
              static_cast<unsigned long long>(j["block_cache_blocks"].get<uint64_t>()));
  for (const json& l : j["levels"]) {
    std::printf("  L%d: %3llu tables %7.1f MiB  %5.1f%% of device reads\n", l["level"].get<int>(),
                static_cast<unsigned long long>(l["tables"].get<uint64_t>()), l["bytes"].get<double>() / 1048576.0,
                100 * l["read_share"].get<double>());
  }
  if (!j["hottest_tables"].empty()) std::printf("  the tables with the most reads per byte:\n");
  for (const json& t : j["hottest_tables"]) {
    std::printf("    %06llu L%d %5.2f MiB %3.0f%% slow  %5.2f%% of device reads\n",
                static_cast<unsigned long long>(t["number"].get<uint64_t>()), t["level"].get<int>(),
                t["bytes"].get<double>() / 1048576.0, 100 * t["slow_bytes_share"].get<double>(),
                100 * t["read_share"].get<double>());
  }
  std::printf("  slow tier's share of device reads at best, by what the fast tier holds:\n");
  for (const json& s : j["slow_share"]) {
    std::printf("    fast %7.1f MiB: tables %5.1f%%  blocks %5.1f%%  records %5.1f%%\n",
                s["fast_bytes"].get<double>() / 1048576.0, 100 * s["tables"].get<double>(),
                100 * s["blocks"].get<double>(), 100 * s["records"].get<double>());
  }
  std::printf("  slow share of the placement as it is: %.1f%%\n", 100 * j["start_slow_share"].get<double>());
  for (const json& o : j["online"]) {
    std::printf("  %llu operations (read %g, update %g, read-modify-write %g): %.0f device reads, %.1f%% slow as "
                "placed, %.1f%% at best promoting each block at its first read\n",
                static_cast<unsigned long long>(o["ops"].get<uint64_t>()), o["read"].get<double>(),
                o["update"].get<double>(), o["read_modify_write"].get<double>(), o["device_reads"].get<double>(),
                100 * o["placed_share"].get<double>(), 100 * o["slow_share"].get<double>());
  }
}

int Run(const Args& a) {
  std::vector<uint64_t> sizes, reads;
  Status s = ParseSizes(a.fast_bytes, /*empty_ok=*/false, &sizes);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs-oracle: --fast-bytes: %s (see hintfs-oracle --help)\n", s.ToString().c_str());
    return kExitUsage;
  }
  s = ParseSizes(a.reads, /*empty_ok=*/true, &reads);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs-oracle: --reads: %s (see hintfs-oracle --help)\n", s.ToString().c_str());
    return kExitUsage;
  }
  uint64_t block_cache = 0;
  s = ParseSize(a.block_cache, &block_cache);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs-oracle: --block-cache: %s (see hintfs-oracle --help)\n", s.ToString().c_str());
    return kExitUsage;
  }
  std::vector<RunSpec> runs;
  for (uint64_t r : reads) runs.push_back(RunSpec{r, RunMix{}});
  for (const std::string& text : a.runs) {
    RunSpec run;
    s = ParseRun(text, &run);
    if (!s.ok()) {
      std::fprintf(stderr, "hintfs-oracle: --run: %s (see hintfs-oracle --help)\n", s.ToString().c_str());
      return kExitUsage;
    }
    runs.push_back(run);
  }
  MountOptions opts;
  opts.read_only = true;
  opts.policy_factory = [](const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
    return NewAllocationPolicy(name, policy);
  };
  std::unique_ptr<Filesystem> fs;
  s = Filesystem::Mount(a.uri, opts, &fs);
  ReadOracle oracle;
  size_t tables = 0;
  std::string where;
  if (s.ok()) s = AddTables(fs.get(), a.db, &oracle, &tables, &where);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs-oracle: %s%s\n", where.c_str(), s.ToString().c_str());
    return ExitStatusFor(s);
  }
  std::vector<double> p =
      RecordProbabilities(KeyDistribution{a.distribution, a.zipf, a.hot_set, a.hot_ops}, a.records, a.new_keys);
  for (uint64_t r = 0; r < a.records; r++) oracle.AddRecordReads(RecordKey(r, a.key_size), a.key_size + a.value_size, p[r]);
  const size_t cached = block_cache > 0 ? oracle.KeepHottestInMemory(block_cache) : 0;
  json j = Report(a, oracle, tables, sizes, runs);
  j["block_cache_bytes"] = block_cache;
  j["block_cache_blocks"] = cached;
  Print(j);
  if (!a.json_path.empty()) {
    std::ofstream out(a.json_path);
    out << j.dump(1) << "\n";
    if (!out) {
      std::fprintf(stderr, "hintfs-oracle: cannot write %s\n", a.json_path.c_str());
      return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace
}  // namespace hintfs

int main(int argc, char** argv) {
  hintfs::Args a;
  CLI::App app{"The least share of a YCSB workload's point reads the slow tier must serve, by what the fast tier holds"};
  hintfs::ApplyCliConventions(&app, "hintfs-oracle");
  app.add_option("--uri", a.uri, "mount spec of a member of the hintfs filesystem holding the store")->required();
  app.add_option("--db", a.db, "the store's directory inside hintfs");
  app.add_option("--records", a.records, "records hintfs-ycsb loaded (the key space)")->check(CLI::Range(1, 1 << 30));
  app.add_option("--distribution", a.distribution, "key distribution of the reads")
      ->check(CLI::IsMember({"uniform", "zipfian", "latest", "hotspot"}));
  app.add_option("--zipf", a.zipf, "zipfian skew (theta)")->check(CLI::Range(0.01, 5.0));
  app.add_option("--new-keys", a.new_keys,
                 "zipfian: the records a run inserts may take part of the hot ranks (hintfs-ycsb hashes ranks over "
                 "the loaded records and twice the inserts it expects: give that)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 32));
  app.add_option("--hot-set", a.hot_set, "hotspot: the share of the records that is hot")->check(CLI::Range(0.0, 1.0));
  app.add_option("--hot-ops", a.hot_ops, "hotspot: the share of the reads that go to the hot set")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--key-size", a.key_size, "key bytes, as hintfs-ycsb wrote them")->check(CLI::Range(8, 1024));
  app.add_option("--value-size", a.value_size, "value bytes (a record is key and value)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--block-cache", a.block_cache,
                 "the store's block cache (hintfs-ycsb --block-cache): the hottest data blocks that fit are read "
                 "from memory, never from a device (0: none)");
  app.add_option("--fast-bytes", a.fast_bytes, "fast-tier sizes to compute for, comma-separated (e.g. 36MiB,40MiB)");
  app.add_option("--reads", a.reads, "point reads of read-only runs to give the online bound for, comma-separated "
                                      "(e.g. 1953,80000)");
  app.add_option("--run", a.runs,
                 "a run to give the online bound for, OPS:READ:UPDATE:RMW (shares of the operations; YCSB A of 1953 "
                 "operations is 1953:0.5:0.5:0, F 1953:0.5:0:0.5); repeatable");
  app.add_option("--top", a.top, "also list this many tables with the most reads per byte");
  app.add_option("--json", a.json_path, "also write the figures as one JSON object to this host file");
  app.footer(
      "Example:\n"
      "  hintfs-oracle --uri file:/var/tmp/ssd.img --db /db --records 400000 --zipf 0.9 --fast-bytes 36MiB,40MiB\n"
      "  hintfs-oracle --uri file:/var/tmp/ssd.img --records 409600 --zipf 0.99 --block-cache 476KiB\n"
      "Exit status: 0 success, 1 failure, 2 bad usage, 3 damage.");
  int status = hintfs::ParseCommandLine(&app, argc, argv);
  if (status >= 0) return status;
  return hintfs::Run(a);
}
