// hintfs-ycsb: a YCSB-style driver for RocksDB on hintfs. Loads records and
// runs a workload (YCSB core workloads A-F, or given proportions) with a
// uniform, zipfian or latest key distribution, then prints throughput,
// latency percentiles per operation, the device reads per tier, and what the
// SSD block cache and migration did. One JSON object per phase with --json.
//
//   hintfs-ycsb --uri 'file:/x/ssd.img?policy=hhzs' --records 100000 --load
//   hintfs-ycsb --uri 'file:/x/ssd.img' --records 100000 --workload A --ops 50000 --zipf 0.9
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/secondary_cache.h>
#include <rocksdb/table.h>

#include "adapters/bench/key_generators.h"
#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "cache/caching_filesystem.h"
#include "fs/uri.h"

namespace hintfs {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Mix {
  double read = 0, update = 0, insert = 0, scan = 0, rmw = 0;
  std::string distribution = "zipfian";
};

bool WorkloadMix(const std::string& name, Mix* m) {
  *m = Mix();
  if (name == "A") m->read = 0.5, m->update = 0.5;
  else if (name == "B") m->read = 0.95, m->update = 0.05;
  else if (name == "C") m->read = 1.0;
  else if (name == "D") m->read = 0.95, m->insert = 0.05, m->distribution = "latest";
  else if (name == "E") m->scan = 0.95, m->insert = 0.05;
  else if (name == "F") m->read = 0.5, m->rmw = 0.5;
  else return false;
  return true;
}

enum Op { kRead, kUpdate, kInsert, kScan, kRmw, kOps };
const char* kOpNames[kOps] = {"read", "update", "insert", "scan", "rmw"};

struct Args {
  std::string uri, db = "/db", db_options, workload, distribution;
  uint64_t records = 100000, ops = 0, block_cache = 8 << 20;
  size_t value_size = 1000, key_size = 24;
  int threads = 1;
  double zipf = 0.9, read = -1, update = -1, insert = -1, scan = -1, rmw = -1;
  bool load = false, secondary_cache = false, no_listener = false;
  std::string json_path;
};

std::string ValueFor(uint64_t record, uint64_t version, size_t size) {
  std::string v = fmt::format("{}:{}:", record, version);
  uint64_t x = Fnv64(record * 1000003 + version);
  while (v.size() < size) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v.push_back(static_cast<char>('a' + (x >> 59)));
  }
  v.resize(size);
  return v;
}

struct Totals {
  uint64_t read_bytes[2] = {0, 0};
  uint64_t migrated[2] = {0, 0};  // bytes migration wrote to each tier (and read from the other)
};

Totals Snapshot(Filesystem* fs) {
  FsStats st = fs->Stats();
  Totals t;
  for (int i = 0; i < 2; i++) {
    t.read_bytes[i] = st.bytes_read[i];
    t.migrated[i] = st.migrated_bytes[i];
  }
  return t;
}

json Percentiles(std::vector<uint64_t>* ns) {
  if (ns->empty()) return json::object();
  std::sort(ns->begin(), ns->end());
  auto at = [&](double q) {
    size_t i = std::min(ns->size() - 1, static_cast<size_t>(q * static_cast<double>(ns->size())));
    return static_cast<double>((*ns)[i]) / 1000.0;
  };
  return json{{"count", ns->size()}, {"p50_us", at(0.5)}, {"p99_us", at(0.99)}, {"p999_us", at(0.999)},
              {"p9999_us", at(0.9999)}};
}

int Run(const Args& a) {
  RegisterHintfsWithRocksDb();
  rocksdb::ConfigOptions cfg;
  std::shared_ptr<rocksdb::FileSystem> rfs;
  rocksdb::Status rs = rocksdb::FileSystem::CreateFromString(cfg, std::string(kRocksDbScheme) + a.uri, &rfs);
  if (!rs.ok()) {
    std::fprintf(stderr, "hintfs-ycsb: %s\n", rs.ToString().c_str());
    return 1;
  }
  DeviceUri parsed;
  DeviceUri::Parse(a.uri, &parsed);
  std::string device = parsed.scheme + ":" + parsed.path;
  std::shared_ptr<Filesystem> fs;
  Status s = AcquireMount(device, &fs);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs-ycsb: %s\n", s.ToString().c_str());
    return 1;
  }
  auto env = rocksdb::NewCompositeEnv(rfs);
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  if (!a.db_options.empty()) {
    rs = rocksdb::GetOptionsFromString(cfg, o, a.db_options, &o);
    if (!rs.ok()) {
      std::fprintf(stderr, "hintfs-ycsb: --db-options: %s\n", rs.ToString().c_str());
      return 2;
    }
  }
  o.env = env.get();
  if (!a.no_listener) o.listeners.push_back(NewHintRocksListener());
  rocksdb::LRUCacheOptions lru(a.block_cache, -1, false, 0.5);
  std::shared_ptr<rocksdb::SecondaryCache> secondary;
  if (a.secondary_cache) {
    rs = NewHintSecondaryCache(device, &secondary);
    if (!rs.ok()) {
      std::fprintf(stderr, "hintfs-ycsb: %s\n", rs.ToString().c_str());
      return 1;
    }
    lru.secondary_cache = secondary;
  }
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = rocksdb::NewLRUCache(lru);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* raw = nullptr;
  rs = rocksdb::DB::Open(o, a.db, &raw);
  if (!rs.ok()) {
    std::fprintf(stderr, "hintfs-ycsb: open %s: %s\n", a.db.c_str(), rs.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::atomic<uint64_t> records{a.records};
  std::vector<json> phases;
  auto* caching = dynamic_cast<CachingFilesystem*>(fs.get());

  auto phase = [&](const std::string& name, uint64_t ops, const Mix& mix) -> bool {
    std::atomic<uint64_t> next{0}, errors{0};
    std::vector<std::vector<uint64_t>> lat(static_cast<size_t>(a.threads) * kOps);
    Totals before = Snapshot(fs.get());
    BlockCacheStats cache_before;
    if (caching) cache_before = caching->cache()->stats();
    auto start = Clock::now();
    std::vector<std::thread> workers;
    for (int w = 0; w < a.threads; w++) {
      workers.emplace_back([&, w] {
        std::mt19937_64 rng(static_cast<uint64_t>(w) * 7919 + 1);
        auto chooser = NewKeyChooser(mix.distribution, a.records, a.zipf);
        std::string value;
        for (uint64_t i; (i = next.fetch_add(1)) < ops;) {
          Op op;
          if (name == "load") {
            op = kInsert;
          } else {
            double u = std::uniform_real_distribution<double>(0, 1)(rng);
            op = u < mix.read ? kRead
                 : u < mix.read + mix.update ? kUpdate
                 : u < mix.read + mix.update + mix.insert ? kInsert
                 : u < mix.read + mix.update + mix.insert + mix.scan ? kScan : kRmw;
          }
          auto t0 = Clock::now();
          bool ok = true;
          if (op == kInsert) {
            uint64_t r = name == "load" ? i : records.fetch_add(1);
            ok = db->Put(rocksdb::WriteOptions(), RecordKey(r, a.key_size), ValueFor(r, 0, a.value_size)).ok();
          } else {
            uint64_t r = chooser->Next(&rng, records.load());
            std::string key = RecordKey(r, a.key_size);
            if (op == kRead || op == kRmw) {
              rocksdb::Status g = db->Get(rocksdb::ReadOptions(), key, &value);
              ok = g.ok() || g.IsNotFound();
            }
            if (op == kUpdate || op == kRmw) {
              ok = ok && db->Put(rocksdb::WriteOptions(), key, ValueFor(r, i + 1, a.value_size)).ok();
            }
            if (op == kScan) {
              std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
              uint64_t len = 1 + rng() % 100;
              it->Seek(key);
              for (uint64_t k = 0; k < len && it->Valid(); k++) it->Next();
              ok = it->status().ok();
            }
          }
          if (!ok) errors++;
          lat[static_cast<size_t>(w) * kOps + op].push_back(
              static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
          if (w == 0 && i % 20000 == 0 && isatty(2)) {
            std::fprintf(stderr, "\r%s: %llu / %llu", name.c_str(), static_cast<unsigned long long>(i),
                         static_cast<unsigned long long>(ops));
          }
        }
      });
    }
    for (auto& t : workers) t.join();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (isatty(2)) std::fprintf(stderr, "\r%*s\r", 40, "");
    Totals after = Snapshot(fs.get());
    json j{{"phase", name}, {"ops", ops}, {"seconds", seconds}, {"ops_per_s", static_cast<double>(ops) / seconds},
           {"errors", errors.load()}};
    json latency;
    for (int op = 0; op < kOps; op++) {
      std::vector<uint64_t> all;
      for (int w = 0; w < a.threads; w++) {
        auto& v = lat[static_cast<size_t>(w) * kOps + op];
        all.insert(all.end(), v.begin(), v.end());
      }
      if (!all.empty()) latency[kOpNames[op]] = Percentiles(&all);
    }
    j["latency"] = latency;
    uint64_t fast = after.read_bytes[0] - before.read_bytes[0], slow = after.read_bytes[1] - before.read_bytes[1];
    uint64_t to_fast = after.migrated[0] - before.migrated[0], to_slow = after.migrated[1] - before.migrated[1];
    j["read_bytes"] = {{"fast", fast}, {"slow", slow}};
    j["hdd_read_share"] = fast + slow == 0 ? 0.0 : static_cast<double>(slow) / static_cast<double>(fast + slow);
    // The same without migration's own reads (it reads what it moves from
    // the tier it leaves): what the store's reads and compactions cost.
    uint64_t fg_fast = fast - std::min(fast, to_slow), fg_slow = slow - std::min(slow, to_fast);
    j["hdd_read_share_store"] =
        fg_fast + fg_slow == 0 ? 0.0 : static_cast<double>(fg_slow) / static_cast<double>(fg_fast + fg_slow);
    j["migrated"] = {{"to_fast_bytes", to_fast}, {"to_slow_bytes", to_slow}};
    if (caching) {
      BlockCacheStats c = caching->cache()->stats();
      uint64_t lookups = c.lookups - cache_before.lookups, hits = c.hits - cache_before.hits;
      j["cache"] = {{"lookups", lookups}, {"hits", hits},
                    {"hit_ratio", lookups == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(lookups)},
                    {"admitted", c.admitted - cache_before.admitted}};
    }
    std::printf("%-6s %10.0f ops/s  %8.1f s  hdd reads %5.1f%%%s\n", name.c_str(), j["ops_per_s"].get<double>(),
                seconds, 100 * j["hdd_read_share"].get<double>(),
                caching ? fmt::format("  cache hits {:.1f}%", 100 * j["cache"]["hit_ratio"].get<double>()).c_str()
                        : "");
    phases.push_back(j);
    return errors.load() == 0;
  };

  bool ok = true;
  if (a.load) ok = phase("load", a.records, Mix()) && ok;
  if (a.ops > 0) {
    Mix mix;
    if (!a.workload.empty()) WorkloadMix(a.workload, &mix);
    if (a.read >= 0) mix.read = a.read;
    if (a.update >= 0) mix.update = a.update;
    if (a.insert >= 0) mix.insert = a.insert;
    if (a.scan >= 0) mix.scan = a.scan;
    if (a.rmw >= 0) mix.rmw = a.rmw;
    if (!a.distribution.empty()) mix.distribution = a.distribution;
    ok = phase("run", a.ops, mix) && ok;
  }
  db->Close();
  db.reset();
  if (!a.json_path.empty()) {
    FILE* f = std::fopen(a.json_path.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "hintfs-ycsb: cannot write %s\n", a.json_path.c_str());
      return 1;
    }
    for (const json& p : phases) std::fprintf(f, "%s\n", p.dump().c_str());
    std::fclose(f);
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace hintfs

int main(int argc, char** argv) {
  hintfs::Args a;
  CLI::App app{"YCSB-style workloads for RocksDB on hintfs"};
  app.add_option("--uri", a.uri, "mount spec of a hintfs member (options in its query)")->required();
  app.add_option("--db", a.db, "database path inside hintfs");
  app.add_option("--db-options", a.db_options, "RocksDB options, \"name=value;...\"");
  app.add_option("--records", a.records, "records loaded (and the key space)");
  app.add_flag("--load", a.load, "insert the records first");
  app.add_option("--ops", a.ops, "operations of the run phase (0: none)");
  app.add_option("--workload", a.workload, "YCSB core workload")->check(CLI::IsMember({"A", "B", "C", "D", "E", "F"}));
  app.add_option("--read", a.read, "read proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--update", a.update, "update proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--insert", a.insert, "insert proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--scan", a.scan, "scan proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--rmw", a.rmw, "read-modify-write proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--distribution", a.distribution, "key distribution")
      ->check(CLI::IsMember({"uniform", "zipfian", "latest"}));
  app.add_option("--zipf", a.zipf, "zipfian skew (theta)")->check(CLI::Range(0.01, 5.0));
  app.add_option("--value-size", a.value_size, "value bytes")->check(CLI::Range(1, 1 << 20));
  app.add_option("--key-size", a.key_size, "key bytes")->check(CLI::Range(8, 1024));
  app.add_option("--threads", a.threads, "client threads")->check(CLI::Range(1, 256));
  app.add_option("--block-cache", a.block_cache, "RocksDB block cache bytes");
  app.add_flag("--secondary-cache", a.secondary_cache, "attach the hintfs SSD cache as RocksDB's secondary cache");
  app.add_flag("--no-listener", a.no_listener, "run without HintfsEventListener");
  app.add_option("--json", a.json_path, "write one JSON object per phase to this host file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "hintfs-ycsb: %s\n", e.what());
    return 2;
  }
  return hintfs::Run(a);
}
