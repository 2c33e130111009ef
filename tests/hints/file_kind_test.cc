#include "hints/file_kind.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

TEST(FileKind, NamesOfRocksDbAndLevelDb) {
  EXPECT_EQ(ClassifyLsmFile("/db/000012.sst"), LsmFileKind::kTable);
  EXPECT_EQ(ClassifyLsmFile("000012.ldb"), LsmFileKind::kTable);
  EXPECT_EQ(ClassifyLsmFile("/db/000013.log"), LsmFileKind::kWal);
  EXPECT_EQ(ClassifyLsmFile("/db/MANIFEST-000005"), LsmFileKind::kManifest);
  EXPECT_EQ(ClassifyLsmFile("/db/000014.blob"), LsmFileKind::kBlob);
  for (const char* log : {"/db/LOG", "LOG", "/db/LOG.old.1795482713670247", "/db/LOG.old"}) {
    EXPECT_EQ(ClassifyLsmFile(log), LsmFileKind::kInfoLog) << log;
  }
  for (const char* other : {"/db/CURRENT", "/db/LOCK", "/db/OPTIONS-000007", "/db/LOGS", "/db/LO", "/LOG/CURRENT",
                            "/db/MANIFEST-", "/db/.sst", "/x.sst/CURRENT", "/db/000012.sst.tmp", "/db/.blob",
                            "/db/000014.blob.tmp"}) {
    EXPECT_EQ(ClassifyLsmFile(other), LsmFileKind::kOther) << other;
  }
  EXPECT_TRUE(IsTableFile("/a/b/1.sst"));
  EXPECT_TRUE(IsWalFile("/a/b/1.log"));
  EXPECT_TRUE(IsManifestFile("/a/MANIFEST-000001"));
  EXPECT_TRUE(IsBlobFile("/a/000014.blob"));
}

}  // namespace
}  // namespace hintfs
