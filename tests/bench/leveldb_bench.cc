// fillrandom then readrandom with LevelDB's default Env on a directory, as
// LevelDB's db_bench does them (16-byte keys, 100-byte values, one thread);
// prints ops/s of each. Compare a hintfs FUSE mount with the host filesystem.
//   leveldb_bench DIR [NUM]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include <leveldb/db.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: leveldb_bench DIR [NUM]\n");
    return 2;
  }
  long num = argc > 2 ? std::atol(argv[2]) : 200000;
  leveldb::Options o;
  o.create_if_missing = true;
  o.error_if_exists = true;
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(o, std::string(argv[1]) + "/bench", &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "leveldb_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<leveldb::DB> db(raw);
  auto key = [](long i) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%016ld", i);
    return std::string(buf, 16);
  };
  std::mt19937_64 rng(301);
  std::string value(100, 'x');
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < num; i++) {
    for (char& c : value) c = static_cast<char>('a' + rng() % 26);
    if (!db->Put(leveldb::WriteOptions(), key(static_cast<long>(rng() % num)), value).ok()) return 1;
  }
  auto t1 = std::chrono::steady_clock::now();
  // Where the writer's time went: on its CPU (user, kernel) or waiting
  // (for a CPU, for a stall); on stderr, the figures stay on stdout.
  rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  std::fprintf(stderr, "fillrandom: %.2f s, writer thread on CPU %.2f s user + %.2f s kernel\n",
               std::chrono::duration<double>(t1 - t0).count(), secs(ru.ru_utime), secs(ru.ru_stime));
  long found = 0;
  std::string v;
  for (long i = 0; i < num; i++) found += db->Get(leveldb::ReadOptions(), key(static_cast<long>(rng() % num)), &v).ok();
  auto t2 = std::chrono::steady_clock::now();
  double fill = std::chrono::duration<double>(t1 - t0).count(), read = std::chrono::duration<double>(t2 - t1).count();
  std::printf("fillrandom %.0f ops/s\nreadrandom %.0f ops/s (%ld found)\n", num / fill, num / read, found);
  return 0;
}
