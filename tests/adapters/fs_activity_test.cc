#include "adapters/bench/fs_activity.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace hintfs {
namespace {

constexpr QuietOptions kFast{std::chrono::milliseconds(1), std::chrono::milliseconds(5)};

// A source that answers the looks it was given, then the last forever.
ActivitySource Scripted(std::vector<std::optional<FsActivity>> looks, int* asked) {
  return [looks, asked]() {
    int i = (*asked)++;
    return looks[std::min<size_t>(static_cast<size_t>(i), looks.size() - 1)];
  };
}

FsActivity Look(uint64_t bytes, bool held = false) {
  FsActivity a;
  a.bytes = bytes;
  a.moves_held = held;
  return a;
}

TEST(FsActivityTest, QuietFilesystemEndsTheWait) {
  int asked = 0;
  WaitForFilesystemQuiet(Scripted({Look(7)}, &asked), 60, kFast);
  EXPECT_GE(asked, 2);  // looked again before calling it quiet
}

TEST(FsActivityTest, WaitsWhileBytesGrow) {
  int asked = 0;
  std::vector<std::optional<FsActivity>> looks;
  for (uint64_t i = 0; i < 20; i++) looks.push_back(Look(i * 100));
  WaitForFilesystemQuiet(Scripted(looks, &asked), 60, kFast);
  EXPECT_GT(asked, 20);
}

TEST(FsActivityTest, WaitsWhileMigrationHoldsMovesBack) {
  // Nothing is written while moves are held: only the held flag keeps the
  // wait going, until the moves it held come (bytes grow) and end.
  int asked = 0;
  std::vector<std::optional<FsActivity>> looks(30, Look(5, /*held=*/true));
  looks.push_back(Look(9));
  WaitForFilesystemQuiet(Scripted(looks, &asked), 60, kFast);
  EXPECT_GT(asked, 31);
}

TEST(FsActivityTest, UnreadableLooksDoNotCountAsQuiet) {
  int asked = 0;
  std::vector<std::optional<FsActivity>> looks = {Look(1)};
  for (int i = 0; i < 20; i++) looks.push_back(std::nullopt);
  looks.push_back(Look(1));
  WaitForFilesystemQuiet(Scripted(looks, &asked), 60, kFast);
  EXPECT_GT(asked, 21);
}

TEST(FsActivityTest, NothingToWatchWaitsNot) {
  int asked = 0;
  EXPECT_EQ(WaitForFilesystemQuiet(Scripted({std::nullopt}, &asked), 60, kFast), 0);
  EXPECT_EQ(asked, 1);
}

TEST(FsActivityTest, GivesUpAtTheTimeout) {
  int asked = 0;
  WaitForFilesystemQuiet(Scripted({Look(1, /*held=*/true)}, &asked), 0.05, kFast);
  EXPECT_GE(asked, 2);  // returned although moves were still held
}

TEST(FsActivityTest, ReadsTheMountStatisticsFile) {
  std::filesystem::path root = std::filesystem::path(testing::TempDir()) / "fs_activity_mount";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / ".hintfs");
  std::filesystem::create_directories(root / "db");
  const std::filesystem::path file = root / ".hintfs" / "stats.json";
  auto write = [&](const std::string& text) { std::ofstream(file) << text; };
  write(R"({"bytes_written": {"fast": 10, "slow": 5}, "migrated_bytes": {"to_fast": 1, "to_slow": 2},
            "policy_state": {"up_moves_held_ms": 1200}})");
  ASSERT_EQ(MountStatsFile((root / "db").string()), file.string());
  ActivitySource source = FilesystemActivity(nullptr, (root / "db").string());
  std::optional<FsActivity> a = source();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->bytes, 18u);
  EXPECT_TRUE(a->moves_held);

  write(R"({"bytes_written": {"fast": 10, "slow": 5}, "migrated_bytes": {"to_fast": 1, "to_slow": 2},
            "policy_state": {"policy": "b3"}})");
  a = source();
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->moves_held);

  write("{not json");
  EXPECT_FALSE(source().has_value());
  write(R"({"bytes_written": {"fast": 1}})");  // a figure missing
  EXPECT_FALSE(source().has_value());
  std::filesystem::remove_all(root);
}

TEST(FsActivityTest, DirectoryOffAnyMountHasNoStatistics) {
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "fs_activity_plain";
  std::filesystem::create_directories(dir);
  EXPECT_EQ(MountStatsFile(dir.string()), "");
  EXPECT_FALSE(FilesystemActivity(nullptr, dir.string())().has_value());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hintfs
