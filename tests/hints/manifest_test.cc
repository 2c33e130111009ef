// The MANIFEST reader on real MANIFESTs written by RocksDB and LevelDB (on the
// host filesystem), fed whole, byte by byte and in random pieces, and on
// damaged copies: the live file set it derives matches the DB's table files,
// and damage is an error with an offset, never a crash.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "hints/manifest.h"
#include "hints/table_map.h"
#include "tests/fs/test_util.h"
#include "tests/hints/test_stores.h"

namespace hintfs {
namespace {

using test::FindManifest;
using test::List;
using test::Slurp;
using test::WriteLevelDb;
using test::WriteRocksDb;

std::set<uint64_t> TableNumbers(const std::string& dir, const std::string& ext) {
  std::set<uint64_t> numbers;
  for (const auto& n : List(dir)) {
    if (n.size() > ext.size() && n.substr(n.size() - ext.size()) == ext) numbers.insert(std::stoull(n));
  }
  return numbers;
}

struct Replay {
  std::map<uint64_t, int> live;  // file number -> level
  int flushes = 0, compactions = 0, deep = 0;
};

Replay Apply(const std::vector<VersionEdit>& edits) {
  Replay r;
  for (const auto& e : edits) {
    for (const auto& [level, number] : e.deleted_files) r.live.erase(number);
    for (const auto& f : e.new_files) {
      r.live[f.number] = f.level;
      r.deep += f.level >= 2;
    }
    r.flushes += e.IsFlush();
    r.compactions += e.IsCompaction();
  }
  return r;
}

std::vector<VersionEdit> ParseInPieces(const std::string& bytes, std::mt19937_64* rng, size_t max_piece) {
  ManifestReader reader;
  std::vector<VersionEdit> edits;
  for (size_t pos = 0; pos < bytes.size();) {
    size_t n = std::min(bytes.size() - pos, 1 + static_cast<size_t>((*rng)() % max_piece));
    Status s = reader.Feed(std::string_view(bytes).substr(pos, n), &edits);
    EXPECT_TRUE(s.ok()) << s.ToString();
    pos += n;
  }
  EXPECT_TRUE(reader.Finish().ok());
  return edits;
}

// RocksDB records each table's smallest and largest sequence numbers,
// LevelDB none. Each flush's tables hold only numbers above every table
// recorded before them, and each live table's first entry, read from its
// first bytes, is its smallest key with a number within the recorded ones.
void CheckSequenceNumbers(const std::string& dir, const std::string& ext, const std::vector<VersionEdit>& edits) {
  const bool rocksdb = ext == ".sst";
  std::map<uint64_t, ManifestFile> live;
  uint64_t largest = 0;
  int flushes_seen = 0;
  for (const VersionEdit& e : edits) {
    for (const auto& [level, number] : e.deleted_files) live.erase(number);
    uint64_t edit_largest = 0;
    for (const ManifestFile& f : e.new_files) {
      ASSERT_EQ(f.largest_seqno.has_value(), rocksdb) << f.number;
      ASSERT_EQ(f.smallest_seqno.has_value(), rocksdb) << f.number;
      if (rocksdb) {
        EXPECT_LE(*f.smallest_seqno, *f.largest_seqno) << f.number;
      }
      if (rocksdb && e.IsFlush()) {
        EXPECT_GT(*f.largest_seqno, largest) << "flush table " << f.number;
        flushes_seen++;
      }
      if (rocksdb) edit_largest = std::max(edit_largest, *f.largest_seqno);
      live[f.number] = f;
    }
    largest = std::max(largest, edit_largest);
  }
  if (rocksdb) {
    EXPECT_GT(flushes_seen, 3);
  }
  for (const auto& [number, f] : live) {
    char name[32];
    std::snprintf(name, sizeof(name), "/%06llu", static_cast<unsigned long long>(number));
    std::string head = Slurp(dir + name + ext).substr(0, 4096);
    FirstTableKey first;
    ASSERT_TRUE(ReadFirstTableKey(head, &first)) << number;
    EXPECT_EQ(first.user_key, f.smallest) << number;
    if (rocksdb) {
      EXPECT_GE(first.sequence, *f.smallest_seqno) << number;
      EXPECT_LE(first.sequence, *f.largest_seqno) << number;
    }
  }
}

void CheckRealManifest(const std::string& dir, const std::string& manifest, const std::string& ext) {
  ASSERT_FALSE(manifest.empty());
  std::string bytes = Slurp(manifest);
  ASSERT_GT(bytes.size(), 100u);
  std::mt19937_64 rng(5);
  auto whole = ParseInPieces(bytes, &rng, bytes.size());
  auto bytewise = ParseInPieces(bytes, &rng, 1);
  auto pieces = ParseInPieces(bytes, &rng, 5000);
  ASSERT_EQ(whole.size(), bytewise.size());
  ASSERT_EQ(whole.size(), pieces.size());
  Replay r = Apply(whole);
  std::set<uint64_t> live;
  for (const auto& [number, level] : r.live) live.insert(number);
  EXPECT_EQ(live, TableNumbers(dir, ext)) << "the MANIFEST's live files are the DB's table files";
  EXPECT_GT(r.flushes, 3);
  EXPECT_GT(r.compactions, 0);
  for (const VersionEdit& e : whole) {
    for (const ManifestFile& f : e.new_files) {  // the tests' keys are "key<N>"
      EXPECT_EQ(f.smallest.rfind("key", 0), 0u) << f.smallest;
      EXPECT_EQ(f.largest.rfind("key", 0), 0u) << f.largest;
      EXPECT_LE(f.smallest, f.largest);
    }
  }
  CheckSequenceNumbers(dir, ext, whole);
  std::vector<Hint> hints = HintsFromEdit(whole.back(), dir, ext);
  for (const Hint& h : hints) {
    EXPECT_EQ(h.path.rfind(dir + "/", 0), 0u);
    if (h.kind == Hint::Kind::kCompactionOutput) {
      EXPECT_EQ(h.smallest_key.rfind("key", 0), 0u);
    }
  }
}

TEST(Manifest, ReadsRocksDbManifests) {
  test::ScratchDir dir;
  std::string db = dir.File("rocks");
  CheckRealManifest(db, WriteRocksDb(db), ".sst");
}

TEST(Manifest, ReadsLevelDbManifests) {
  test::ScratchDir dir;
  std::string db = dir.File("level");
  CheckRealManifest(db, WriteLevelDb(db), ".ldb");
}

TEST(Manifest, DamageIsAnErrorWithAnOffset) {
  test::ScratchDir dir;
  std::string db = dir.File("rocks");
  std::string bytes = Slurp(WriteRocksDb(db));
  std::mt19937_64 rng(6);
  int errors = 0;
  for (int i = 0; i < 300; i++) {
    std::string damaged = bytes;
    size_t at = rng() % damaged.size();
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng() % 255));
    ManifestReader reader;
    std::vector<VersionEdit> edits;
    Status s = reader.Feed(damaged, &edits);
    if (s.ok()) s = reader.Finish();
    if (!s.ok()) {
      errors++;
      EXPECT_TRUE(s.IsCorruption());
      EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.ToString();
    }
  }
  EXPECT_GT(errors, 250);  // a flip in block padding can go unnoticed
  // Truncated: the last record is incomplete.
  ManifestReader reader;
  std::vector<VersionEdit> edits;
  ASSERT_TRUE(reader.Feed(std::string_view(bytes).substr(0, bytes.size() - 3), &edits).ok());
  EXPECT_TRUE(reader.Finish().IsCorruption());
  // Garbage.
  std::string garbage(100000, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  ManifestReader g;
  EXPECT_FALSE(g.Feed(garbage, &edits).ok());
}

TEST(Manifest, VersionEditDecoderRejectsTruncation) {
  // kNewFile (7): level 2, number 12, size 100, internal keys "a" and "bc"
  // (user key, then the 8-byte sequence and type).
  const std::string trailer(8, '\1');
  std::string edit = std::string{7, 2, 12, 100, 9, 'a'} + trailer + std::string{10, 'b', 'c'} + trailer;
  VersionEdit e;
  ASSERT_TRUE(DecodeVersionEdit(edit, &e).ok());
  ASSERT_EQ(e.new_files.size(), 1u);
  EXPECT_EQ(e.new_files[0].level, 2);
  EXPECT_EQ(e.new_files[0].number, 12u);
  EXPECT_EQ(e.new_files[0].smallest, "a");
  EXPECT_EQ(e.new_files[0].largest, "bc");
  // A table the edit drops at L1 and adds at L2 was moved: no deletion hint.
  VersionEdit move;
  ASSERT_TRUE(DecodeVersionEdit(std::string{6, 1, 12} + std::string{6, 1, 13} + edit, &move).ok());
  std::vector<Hint> hints = HintsFromEdit(move, "/db", ".ldb");
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints[0].kind, Hint::Kind::kFileDeleted) << "deletions come first";
  EXPECT_EQ(hints[0].path, "/db/000013.ldb");
  EXPECT_EQ(hints[1].kind, Hint::Kind::kCompactionOutput);
  EXPECT_EQ(hints[1].path, "/db/000012.ldb");
  EXPECT_EQ(hints[1].level, 2);
  // A key too short to hold its trailer is damage.
  EXPECT_TRUE(DecodeVersionEdit(std::string{7, 2, 12, 100, 1, 'a', 1, 'b'}, &e).IsCorruption());
  for (size_t n = 1; n < edit.size(); n++) {
    EXPECT_TRUE(DecodeVersionEdit(std::string_view(edit).substr(0, n), &e).IsCorruption()) << n;
  }
  EXPECT_TRUE(DecodeVersionEdit(std::string{static_cast<char>(99)}, &e).IsCorruption());
}

void Put(Filesystem* fs, const std::string& path, const std::string& bytes) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs->OpenWriter(path, WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(bytes));
  ASSERT_OK(w->Close());
}

TEST(Manifest, LiveTableLevelsAreTheStoresLevelsNow) {
  test::ScratchDir dir;
  const std::string manifest = WriteRocksDb(dir.path());
  ASSERT_FALSE(manifest.empty());
  const std::string dev = test::UniqueName("store-levels");
  MkfsOptions mk;
  mk.devices = {{Tier::kFast, "mem:" + dev + "?zone_size=1MiB&zones=12"}};
  ASSERT_OK(Filesystem::Mkfs(mk));
  std::unique_ptr<Filesystem> fs;
  ASSERT_OK(Filesystem::Mount("mem:" + dev, MountOptions(), &fs));
  ASSERT_OK(fs->Mkdir("/db"));
  std::map<uint64_t, int> levels;
  EXPECT_TRUE(LiveTableLevels(fs.get(), "/db", &levels).IsNotFound()) << "no CURRENT";
  const std::string name = manifest.substr(manifest.rfind('/') + 1);
  Put(fs.get(), "/db/CURRENT", name + "\n");
  EXPECT_TRUE(LiveTableLevels(fs.get(), "/db", &levels).IsNotFound()) << "no MANIFEST";
  const std::string bytes = Slurp(manifest);
  Put(fs.get(), "/db/" + name, bytes);
  ASSERT_OK(LiveTableLevels(fs.get(), "/db", &levels));
  ManifestReader reader;
  std::vector<VersionEdit> edits;
  ASSERT_OK(reader.Feed(bytes, &edits));
  EXPECT_EQ(levels, Apply(edits).live);
  bool deep = false;
  for (const auto& [number, level] : levels) deep = deep || level >= 1;
  EXPECT_TRUE(deep) << "CompactRange left tables below L0";

  // A trivial move: dropped at its level and added one deeper in one edit
  // (the hand-made edit of VersionEditDecoderRejectsTruncation: table 12 from
  // L1 to L2). A deletion at another level than the table's is not its own.
  const std::string trailer(8, '\1');
  const std::string add12 = std::string{7, 2, 12, 100, 9, 'a'} + trailer + std::string{10, 'b', 'c'} + trailer;
  VersionEdit flush, move, stale;
  ASSERT_OK(DecodeVersionEdit(std::string{7, 1, 12, 100, 9, 'a'} + trailer + std::string{10, 'b', 'c'} + trailer, &flush));
  ASSERT_OK(DecodeVersionEdit(std::string{6, 1, 12} + add12, &move));
  ASSERT_OK(DecodeVersionEdit(std::string{6, 1, 12}, &stale));
  std::map<uint64_t, int> moved;
  ApplyEdits({flush, move, stale}, &moved);
  EXPECT_EQ(moved, (std::map<uint64_t, int>{{12, 2}}));
  // Damage: CURRENT names no MANIFEST.
  Put(fs.get(), "/db/CURRENT", "LOCK\n");
  EXPECT_TRUE(LiveTableLevels(fs.get(), "/db", &levels).IsCorruption());
  uint64_t number = 0;
  EXPECT_TRUE(TableFileNumber("/db/000123.sst", &number));
  EXPECT_EQ(number, 123u);
  EXPECT_FALSE(TableFileNumber("/db/MANIFEST-000001", &number));
  EXPECT_FALSE(TableFileNumber("/db/12a.sst", &number));
}

}  // namespace
}  // namespace hintfs
