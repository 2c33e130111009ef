// hintfs-ycsb: a YCSB-style driver for RocksDB or LevelDB, on hintfs or on a
// host directory. Loads records and runs a workload (YCSB core workloads
// A-F, or given proportions) with a uniform, zipfian, latest or hotspot key
// distribution, from any number of client threads, optionally paced to a
// target rate; prints throughput, latency percentiles per operation and, on
// hintfs, the device reads per tier and what the SSD block cache and
// migration did. One JSON object per phase with --json, one CSV row per
// phase with --csv.
//
//   hintfs-ycsb --uri 'file:/x/ssd.img' --records 100000 --load
//   hintfs-ycsb --uri 'file:/x/ssd.img' --records 100000 --workload A --ops 50000 --zipf 0.9
//   hintfs-ycsb --engine leveldb --dir /var/tmp/db --records 100000 --load --workload C --ops 50000
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/bench/fs_activity.h"
#include "adapters/bench/key_generators.h"
#include "adapters/bench/kv_store.h"
#include "adapters/common/cli_conventions.h"
#include "cache/caching_filesystem.h"

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
  KvStoreOptions store;
  std::string workload, distribution, label;
  uint64_t records = 100000, ops = 0, warmup = 0;
  size_t value_size = 1000, key_size = 24;
  int threads = 1;
  double zipf = 0.9, hot_set = 0.05, hot_ops = 0.95, read = -1, update = -1, insert = -1, scan = -1, rmw = -1, target = 0;
  bool load = false, no_listener = false;
  double settle = 0;  // seconds to wait for compactions after the load, or before the run (0: no wait)
  uint64_t seed = 0;  // the operations' random streams (0: a fresh seed per run)
  std::string json_path, csv_path;
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
  uint64_t small_reads[2] = {0, 0};  // FsStats::small_reads: point reads per tier
  uint64_t written_bytes[2] = {0, 0};
  uint64_t migrated[2] = {0, 0};  // bytes migration wrote to each tier (and read from the other)
  uint64_t busy_ns[2] = {0, 0};   // modelled device busy time, summed over each tier's devices
  uint64_t cpu_ns = 0;            // this process's user + system time
  bool tiers = false;             // the figures per tier above are known
};

uint64_t ProcessCpuNs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

// obj[key] if it is a count, else 0 (a statistics file is read, not trusted).
uint64_t CountAt(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// Totals from a mount's statistics (mount_stats.h); false if they cannot be
// read or lack a figure.
bool MountTotals(const std::string& file, Totals* out) {
  json j = ReadMountStats(file);
  if (j.is_discarded()) return false;
  for (const char* group : {"bytes_read", "small_reads", "bytes_written", "migrated_bytes"}) {
    if (!j.contains(group) || !j[group].is_object()) return false;
  }
  if (!j.contains("devices") || !j["devices"].is_array()) return false;
  Totals t = *out;
  const char* tiers[2] = {"fast", "slow"};
  const char* destinations[2] = {"to_fast", "to_slow"};
  for (int i = 0; i < 2; i++) {
    t.read_bytes[i] = CountAt(j["bytes_read"], tiers[i]);
    t.small_reads[i] = CountAt(j["small_reads"], tiers[i]);
    t.written_bytes[i] = CountAt(j["bytes_written"], tiers[i]);
    t.migrated[i] = CountAt(j["migrated_bytes"], destinations[i]);
  }
  for (const json& d : j["devices"]) {
    if (!d.is_object()) return false;
    const bool fast = d.contains("tier") && d["tier"] == "fast";
    t.busy_ns[fast ? 0 : 1] += CountAt(d, "busy_ns");
  }
  t.tiers = true;
  *out = t;
  return true;
}

// What the filesystem under the store has done so far: fs when the store
// runs on it in this process, else the mount whose statistics file is
// mount_stats ("" for none: then only the CPU time).
Totals Snapshot(Filesystem* fs, const std::string& mount_stats) {
  Totals t;
  t.cpu_ns = ProcessCpuNs();
  if (fs == nullptr) {
    if (!mount_stats.empty()) MountTotals(mount_stats, &t);
    return t;
  }
  t.tiers = true;
  FsStats st = fs->Stats();
  for (int i = 0; i < 2; i++) {
    t.read_bytes[i] = st.bytes_read[i];
    t.small_reads[i] = st.small_reads[i];
    t.written_bytes[i] = st.bytes_written[i];
    t.migrated[i] = st.migrated_bytes[i];
  }
  std::vector<DeviceUsage> usage;
  if (fs->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) t.busy_ns[u.tier == Tier::kFast ? 0 : 1] += u.busy_ns;
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

// One CSV row per phase: the figures a plot needs, flat.
void AppendCsv(const std::string& path, const std::string& label, const json& j) {
  FILE* probe = std::fopen(path.c_str(), "r");
  bool fresh = probe == nullptr || std::fgetc(probe) == EOF;
  if (probe) std::fclose(probe);
  FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) {
    std::fprintf(stderr, "hintfs-ycsb: cannot write %s\n", path.c_str());
    return;
  }
  if (fresh) {
    std::fprintf(f, "label,phase,ops,seconds,ops_per_s,errors");
    for (const char* op : kOpNames) std::fprintf(f, ",%s_p50_us,%s_p99_us,%s_p999_us,%s_p9999_us", op, op, op, op);
    std::fprintf(f, ",fast_read_bytes,slow_read_bytes,fast_written_bytes,slow_written_bytes,hdd_read_share,"
                    "cache_hit_ratio,migrated_to_fast,migrated_to_slow,fast_busy,slow_busy,cpu_cores,"
                    "point_read_hdd_share\n");
  }
  std::fprintf(f, "%s,%s,%llu,%.3f,%.1f,%llu", label.c_str(), j["phase"].get<std::string>().c_str(),
               static_cast<unsigned long long>(j["ops"].get<uint64_t>()), j["seconds"].get<double>(),
               j["ops_per_s"].get<double>(), static_cast<unsigned long long>(j["errors"].get<uint64_t>()));
  for (const char* op : kOpNames) {
    const json& l = j["latency"].contains(op) ? j["latency"][op] : json::object();
    for (const char* q : {"p50_us", "p99_us", "p999_us", "p9999_us"}) {
      if (l.contains(q)) std::fprintf(f, ",%.1f", l[q].get<double>());
      else std::fprintf(f, ",");
    }
  }
  auto number = [&](const char* a, const char* b) -> std::string {
    if (!j.contains(a)) return "";
    const json& v = b ? j[a][b] : j[a];
    return v.is_number_float() ? fmt::format("{:.4f}", v.get<double>()) : v.dump();
  };
  std::fprintf(f, ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", number("read_bytes", "fast").c_str(),
               number("read_bytes", "slow").c_str(), number("written_bytes", "fast").c_str(),
               number("written_bytes", "slow").c_str(), number("hdd_read_share", nullptr).c_str(), j.contains("cache") ? number("cache", "hit_ratio").c_str() : "",
               number("migrated", "to_fast_bytes").c_str(), number("migrated", "to_slow_bytes").c_str(),
               number("utilization", "fast").c_str(), number("utilization", "slow").c_str(),
               number("cpu_cores", nullptr).c_str(), number("point_read_hdd_share", nullptr).c_str());
  std::fclose(f);
}

// What every phase works on.
struct PhaseContext {
  const Args& a;
  KvStore* db;
  Filesystem* fs;                // null on the host filesystem
  CachingFilesystem* caching;    // null without the file-level cache
  std::atomic<uint64_t>* records;  // grows with inserts
  std::string mount_stats;       // without fs: the statistics of the hintfs mount under the store, or ""
};

// One phase's operations on a.threads threads; latencies per thread and op
// in lat (thread * kOps + op).
// YCSB's expected new keys: twice the inserts of the warmup and the run
// together, so that both draw over one key space and the warmup heats the
// records the run reads.
uint64_t ExpectedNewKeys(const Args& a, const Mix& mix) {
  return static_cast<uint64_t>(2.0 * mix.insert * static_cast<double>(a.warmup + a.ops));
}

void RunWorkers(const PhaseContext& c, const std::string& name, uint64_t ops, const Mix& mix,
                Clock::time_point start, std::vector<std::vector<uint64_t>>* lat, std::atomic<uint64_t>* errors) {
  const Args& a = c.a;
  std::atomic<uint64_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < a.threads; w++) {
    workers.emplace_back([&, w] {
      // Each thread, the warmup and the run draw streams of their own, and
      // so does every run (YCSB seeds each from the clock): with one fixed
      // seed every phase of a reproduction drew the same keys in the same
      // order, and a cache kept across phases served the next phase's cold
      // keys from the last one's reads (docs/benchmarks.md, session 92).
      std::seed_seq seeds{a.seed, static_cast<uint64_t>(w), static_cast<uint64_t>(name == "warmup")};
      std::mt19937_64 rng(seeds);
      auto chooser = NewKeyChooser(KeyDistribution{mix.distribution, a.zipf, a.hot_set, a.hot_ops}, a.records,
                                   ExpectedNewKeys(a, mix));
      std::string value;
      for (uint64_t i; (i = next.fetch_add(1)) < ops;) {
        if (a.target > 0) {
          // Paced: operation i is due i / target seconds after the start.
          auto due = start + std::chrono::nanoseconds(static_cast<int64_t>(1e9 * static_cast<double>(i) / a.target));
          std::this_thread::sleep_until(due);
        }
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
          uint64_t r = name == "load" ? i : c.records->fetch_add(1);
          ok = c.db->Put(RecordKey(r, a.key_size), ValueFor(r, 0, a.value_size));
        } else {
          uint64_t r = chooser->Next(&rng, c.records->load());
          std::string key = RecordKey(r, a.key_size);
          if (op == kRead || op == kRmw) ok = c.db->Get(key, &value);
          if (op == kUpdate || op == kRmw) ok = ok && c.db->Put(key, ValueFor(r, i + 1, a.value_size));
          if (op == kScan) ok = c.db->Scan(key, 1 + rng() % 100);  // YCSB: scan length uniform in [1, 100]
        }
        if (!ok) (*errors)++;
        (*lat)[static_cast<size_t>(w) * kOps + op].push_back(
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
        if (w == 0 && i % 20000 == 0 && isatty(2)) {
          std::fprintf(stderr, "\r%s: %llu / %llu", name.c_str(), static_cast<unsigned long long>(i),
                       static_cast<unsigned long long>(ops));
        }
      }
    });
  }
  for (auto& t : workers) t.join();
}

// The tier traffic between two snapshots (and the cache's) into j; returns
// the summary for the phase's line.
std::string AddTraffic(const PhaseContext& c, const Totals& before, const Totals& after,
                       const BlockCacheStats& cache_before, json* out) {
  json& j = *out;
  std::string tiers;
  // Utilizations say what bound the phase: a device near 1.0, or the CPU
  // (cpu_cores near the machine's core count).
  double span_ns = 1e9 * j["seconds"].get<double>();
  j["cpu_cores"] = static_cast<double>(after.cpu_ns - before.cpu_ns) / span_ns;
  if (before.tiers && after.tiers) {
    j["utilization"] = {{"fast", static_cast<double>(after.busy_ns[0] - before.busy_ns[0]) / span_ns},
                        {"slow", static_cast<double>(after.busy_ns[1] - before.busy_ns[1]) / span_ns}};
    uint64_t fast = after.read_bytes[0] - before.read_bytes[0], slow = after.read_bytes[1] - before.read_bytes[1];
    uint64_t to_fast = after.migrated[0] - before.migrated[0], to_slow = after.migrated[1] - before.migrated[1];
    j["read_bytes"] = {{"fast", fast}, {"slow", slow}};
    j["written_bytes"] = {{"fast", after.written_bytes[0] - before.written_bytes[0]},
                          {"slow", after.written_bytes[1] - before.written_bytes[1]}};
    auto slow_share = [](uint64_t f, uint64_t sl) {
      return f + sl == 0 ? 0.0 : static_cast<double>(sl) / static_cast<double>(f + sl);
    };
    j["hdd_read_share"] = slow_share(fast, slow);
    // The same without migration's own reads (it reads what it moves from
    // the tier it leaves): what the store's reads and compactions cost.
    uint64_t fg_fast = fast - std::min(fast, to_slow), fg_slow = slow - std::min(slow, to_fast);
    j["hdd_read_share_store"] = slow_share(fg_fast, fg_slow);
    j["migrated"] = {{"to_fast_bytes", to_fast}, {"to_slow_bytes", to_slow}};
    // Counted, not weighed by bytes: what a point-read bound speaks of.
    uint64_t small_fast = after.small_reads[0] - before.small_reads[0];
    uint64_t small_slow = after.small_reads[1] - before.small_reads[1];
    j["point_reads"] = {{"fast", small_fast}, {"slow", small_slow}};
    j["point_read_hdd_share"] = slow_share(small_fast, small_slow);
    auto mib = [](uint64_t b) { return static_cast<double>(b) / 1048576.0; };
    tiers = fmt::format("  read fast/slow {:.1f}/{:.1f} MiB (hdd {:.1f}%)  written {:.1f}/{:.1f} MiB", mib(fast),
                        mib(slow), 100 * j["hdd_read_share"].get<double>(), mib(j["written_bytes"]["fast"]),
                        mib(j["written_bytes"]["slow"]));
    if (to_fast + to_slow) tiers += fmt::format("  migrated {:.1f}/{:.1f} MiB", mib(to_fast), mib(to_slow));
    tiers += fmt::format("  busy fast/slow {:.0f}/{:.0f}%", 100 * j["utilization"]["fast"].get<double>(),
                         100 * j["utilization"]["slow"].get<double>());
  }
  if (c.caching) {
    BlockCacheStats now = c.caching->cache()->stats();
    uint64_t lookups = now.lookups - cache_before.lookups, hits = now.hits - cache_before.hits;
    j["cache"] = {{"lookups", lookups}, {"hits", hits},
                  {"hit_ratio", lookups == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(lookups)},
                  {"admitted", now.admitted - cache_before.admitted}};
    tiers += fmt::format("  cache hits {:.1f}% (this phase)", 100 * j["cache"]["hit_ratio"].get<double>());
  }
  tiers += fmt::format("  cpu {:.2f} cores", j["cpu_cores"].get<double>());
  return tiers;
}

// The latency percentiles of each op that ran.
json Latencies(int threads, std::vector<std::vector<uint64_t>>* lat) {
  json latency;
  for (int op = 0; op < kOps; op++) {
    std::vector<uint64_t> all;
    for (int w = 0; w < threads; w++) {
      auto& v = (*lat)[static_cast<size_t>(w) * kOps + op];
      all.insert(all.end(), v.begin(), v.end());
    }
    if (!all.empty()) latency[kOpNames[op]] = Percentiles(&all);
  }
  return latency;
}

// Runs one phase, prints its lines and appends its JSON to phases; false if
// an operation failed.
bool RunPhase(const PhaseContext& c, const std::string& name, uint64_t ops, const Mix& mix,
              std::vector<json>* phases) {
  const Args& a = c.a;
  std::atomic<uint64_t> errors{0};
  std::vector<std::vector<uint64_t>> lat(static_cast<size_t>(a.threads) * kOps);
  Totals before = Snapshot(c.fs, c.mount_stats);
  BlockCacheStats cache_before;
  if (c.caching) cache_before = c.caching->cache()->stats();
  auto start = Clock::now();
  RunWorkers(c, name, ops, mix, start, &lat, &errors);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (isatty(2)) std::fprintf(stderr, "\r%*s\r", 40, "");
  Totals after = Snapshot(c.fs, c.mount_stats);
  json j{{"phase", name}, {"ops", ops}, {"seconds", seconds}, {"ops_per_s", static_cast<double>(ops) / seconds},
         {"errors", errors.load()}};
  json latency = Latencies(a.threads, &lat);
  j["latency"] = latency;
  if (!a.label.empty()) j["label"] = a.label;
  j["seed"] = a.seed;
  std::string tiers = AddTraffic(c, before, after, cache_before, &j);
  // Placement's view at the phase's end (levels, slots, tiering level): why
  // tables went where the traffic figures say.
  if (c.fs) {
    j["policy_state"] = json::parse(c.fs->PolicyStateJson(), nullptr, /*allow_exceptions=*/false);
  } else if (!c.mount_stats.empty()) {
    json mount = ReadMountStats(c.mount_stats);
    if (mount.is_object() && mount.contains("policy_state")) j["policy_state"] = mount["policy_state"];
  }
  std::printf("%-6s %10.0f ops/s  %8.1f s%s\n", name.c_str(), j["ops_per_s"].get<double>(), seconds, tiers.c_str());
  for (const auto& [op, l] : latency.items()) {
    std::printf("       %-7s %9llu ops  p50 %9.1f  p99 %9.1f  p99.9 %9.1f  p99.99 %9.1f us\n", op.c_str(),
                static_cast<unsigned long long>(l["count"].get<uint64_t>()), l["p50_us"].get<double>(),
                l["p99_us"].get<double>(), l["p999_us"].get<double>(), l["p9999_us"].get<double>());
  }
  if (!a.csv_path.empty()) AppendCsv(a.csv_path, a.label, j);
  phases->push_back(j);
  return errors.load() == 0;
}

int Run(Args a) {
  a.store.listener = !a.no_listener;
  std::unique_ptr<KvStore> db;
  std::string error;
  bool usage = false;
  if (!OpenKvStore(a.store, &db, &error, &usage)) {
    std::fprintf(stderr, "hintfs-ycsb: %s\n", error.c_str());
    return usage ? 2 : 1;
  }
  Filesystem* fs = db->hintfs();
  std::atomic<uint64_t> records{a.records};
  std::vector<json> phases;
  PhaseContext context{a, db.get(), fs, dynamic_cast<CachingFilesystem*>(fs), &records,
                       fs == nullptr ? MountStatsFile(a.store.host_dir) : std::string()};
  auto phase = [&](const std::string& name, uint64_t ops, const Mix& mix) {
    return RunPhase(context, name, ops, mix, &phases);
  };


  bool ok = true;
  if (a.load) ok = phase("load", a.records, Mix()) && ok;
  if (a.settle > 0) {
    auto t0 = Clock::now();
    bool settled = db->WaitForCompactions(a.settle);
    double compactions = std::chrono::duration<double>(Clock::now() - t0).count();
    double quiet =
        settled ? WaitForFilesystemQuiet(FilesystemActivity(fs, a.store.host_dir), a.settle - compactions) : 0;
    std::printf("settle %8.1f s%s (writes and migration quiet after %.1f s of it)\n", compactions + quiet,
                settled ? "" : "  (compactions still pending at the timeout)", quiet);
  }
  if (a.ops > 0) {
    Mix mix;
    if (!a.workload.empty()) WorkloadMix(a.workload, &mix);
    if (a.read >= 0) mix.read = a.read;
    if (a.update >= 0) mix.update = a.update;
    if (a.insert >= 0) mix.insert = a.insert;
    if (a.scan >= 0) mix.scan = a.scan;
    if (a.rmw >= 0) mix.rmw = a.rmw;
    if (!a.distribution.empty()) mix.distribution = a.distribution;
    if (a.warmup > 0) ok = phase("warmup", a.warmup, mix) && ok;
    ok = phase("run", a.ops, mix) && ok;
  }
  if (!db->Close()) {
    std::fprintf(stderr, "hintfs-ycsb: closing the store failed\n");
    ok = false;
  }
  if (context.caching != nullptr) {
    // The whole mount's figure, from the counters `hintfs info` shows after
    // the run (the phases' lines count only their own lookups), taken once
    // the store is closed: closing may still read (a compaction finishing);
    // the filesystem lives until the store object goes.
    BlockCacheStats total = context.caching->cache()->stats();
    std::printf("cache since mount: %llu hits of %llu lookups (%.1f%%), as hintfs info will show\n",
                static_cast<unsigned long long>(total.hits), static_cast<unsigned long long>(total.lookups),
                total.lookups == 0 ? 0.0 : 100.0 * static_cast<double>(total.hits) / static_cast<double>(total.lookups));
  }
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
  CLI::App app{"YCSB-style workloads for RocksDB or LevelDB, on hintfs or the host filesystem"};
  hintfs::ApplyCliConventions(&app, "hintfs-ycsb");
  app.add_option("--uri", a.store.hintfs_spec, "target: mount spec of a hintfs member (options in its query)");
  app.add_option("--dir", a.store.host_dir, "target: a database directory on the host filesystem");
  app.add_option("--engine", a.store.engine, "key-value store")->check(CLI::IsMember({"rocksdb", "leveldb"}));
  app.add_option("--db", a.store.db_path, "database path inside hintfs");
  app.add_option("--db-options", a.store.db_options,
                 "RocksDB options \"name=value;...\"; LevelDB: write_buffer_size, max_file_size, block_size, max_open_files");
  app.add_option("--records", a.records, "records loaded (and the key space)");
  app.add_flag("--load", a.load, "insert the records first");
  app.add_option("--settle", a.settle,
                 "after the load (without --load: before the run phase), wait up to this many seconds for "
                 "compactions to finish (RocksDB), then for "
                 "hintfs to write and migrate nothing for 3 s (LevelDB's compactions included; on a hintfs "
                 "mount, read from its .hintfs/stats.json)")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--ops", a.ops, "operations of the run phase (0: none)");
  app.add_option("--warmup", a.warmup,
                 "operations of a phase \"warmup\" before the run phase, of the same mix, reported apart (HotRAP "
                 "measures the last tenth of its runs)");
  app.add_option("--workload", a.workload, "YCSB core workload")->check(CLI::IsMember({"A", "B", "C", "D", "E", "F"}));
  app.add_option("--read", a.read, "read proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--update", a.update, "update proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--insert", a.insert, "insert proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--scan", a.scan, "scan proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--rmw", a.rmw, "read-modify-write proportion")->check(CLI::Range(0.0, 1.0));
  app.add_option("--distribution", a.distribution, "key distribution")
      ->check(CLI::IsMember({"uniform", "zipfian", "latest", "hotspot"}));
  app.add_option("--zipf", a.zipf, "zipfian skew (theta)")->check(CLI::Range(0.01, 5.0));
  app.add_option("--hot-set", a.hot_set, "hotspot: the share of the loaded records that is hot")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--hot-ops", a.hot_ops, "hotspot: the share of the operations that go to the hot set")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--value-size", a.value_size, "value bytes")->check(CLI::Range(1, 1 << 20));
  app.add_option("--key-size", a.key_size, "key bytes")->check(CLI::Range(8, 1024));
  app.add_option("--threads", a.threads, "client threads")->check(CLI::Range(1, 256));
  app.add_option("--seed", a.seed, "seed of the operations' random streams (default: a fresh one, in --json)");
  app.add_option("--target", a.target, "operations per second over all threads (0: as fast as possible)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--block-cache", a.store.block_cache_bytes, "block cache bytes");
  app.add_option("--bloom-bits", a.store.bloom_bits, "bits per key of a Bloom filter in every table (0: none)")
      ->check(CLI::Range(0, 40));
  app.add_flag("--secondary-cache", a.store.secondary_cache, "attach the hintfs SSD cache as RocksDB's secondary cache");
  app.add_flag("--no-listener", a.no_listener, "run without HintfsEventListener");
  app.add_flag("--open-tables", a.store.open_tables,
               "LevelDB: open every table (footer, index, filter) when the store opens, as RocksDB does with "
               "max_open_files=-1, rather than at each table's first read");
  app.add_option("--json", a.json_path, "write one JSON object per phase to this host file");
  app.add_option("--csv", a.csv_path, "append one row per phase to this host CSV file (header if new)");
  app.add_option("--label", a.label, "a label for this run's JSON and CSV rows (e.g. scheme/workload)");
  app.footer(
      "Examples:\n"
      "  hintfs-ycsb --uri 'file:/var/tmp/ssd.img?policy=hhzs' --db /ycsb --records 100000 --load \\\n"
      "              --workload A --ops 100000 --threads 8\n"
      "  hintfs-ycsb --dir /var/tmp/ycsb-host --engine leveldb --records 10000 --load --workload C --ops 10000\n"
      "Exit status: 0 success, 1 failure, 2 bad usage.");
  int status = hintfs::ParseCommandLine(&app, argc, argv);
  if (status >= 0) return status;
  if (a.label.find_first_of(",\n\"") != std::string::npos) {
    std::fprintf(stderr, "hintfs-ycsb: --label may not contain commas, quotes or newlines\n");
    return 2;
  }
  if (a.seed == 0) a.seed = std::random_device{}() | 1;  // never 0 again: the JSON's seed replays the run
  return hintfs::Run(a);
}
