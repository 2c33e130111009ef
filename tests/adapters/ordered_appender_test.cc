// OrderedAppender: the kernel's write-back pattern (pages re-sent whole, out
// of order) becomes in-order appends; overwrites write only the bytes that
// changed; held bytes are readable; holes settle as zeros; truncation; durability;
// an open file reads its own bytes after its path is unlinked or renamed over.
#include "adapters/fuse/ordered_appender.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

class OrderedAppenderTest : public test::FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    Format();
  }

  std::unique_ptr<OrderedAppender> Open(const std::string& path) {
    FileStat st;
    if (!fs_->Stat(path, &st).ok()) {
      WriteFile(path, "");  // as the mount creates it
      st.size = 0;
    }
    return std::make_unique<OrderedAppender>(fs_.get(), path, st.size);
  }

  static std::string ReadAll(OrderedAppender* a) {
    std::string out(a->Size(), '\0');
    size_t got = 0;
    EXPECT_TRUE(a->Read(0, out.size(), &out[0], &got).ok());
    EXPECT_EQ(got, out.size());
    return out;
  }

  std::mt19937_64 rng_{7};  // before data_, which it makes
  std::string data_ = Random(&rng_, 5 * 4096 + 123);
};

TEST_F(OrderedAppenderTest, InOrderWritesAppend) {
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, std::string_view(data_).substr(0, 1000)));
  ASSERT_OK(a->Write(1000, std::string_view(data_).substr(1000)));
  EXPECT_EQ(a->Size(), data_.size());
  EXPECT_EQ(a->HeldBytes(), 0u);
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data_);
}

TEST_F(OrderedAppenderTest, RenamesOfTheFileOrADirectoryAboveMoveThePath) {
  ASSERT_OK(fs_->Mkdir("/d"));
  ASSERT_OK(fs_->Mkdir("/dd"));
  WriteFile("/d/f", "abc");
  auto a = Open("/d/f");
  auto other = Open("/dd/g");
  ASSERT_OK(fs_->Rename("/d", "/e"));
  a->Renamed("/d", "/e");
  other->Renamed("/d", "/e");  // "/dd" is not under "/d"
  EXPECT_EQ(a->path(), "/e/f");
  EXPECT_EQ(other->path(), "/dd/g");
  a->Renamed("/e/f2", "/x");  // a sibling whose name begins with the file's
  EXPECT_EQ(a->path(), "/e/f");
  // The writer, opened lazily, finds the file where it is now.
  ASSERT_OK(a->Write(3, "def"));
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/e/f"), "abcdef");
  ASSERT_OK(fs_->Rename("/e/f", "/e/h"));
  a->Renamed("/e/f", "/e/h");
  EXPECT_EQ(a->path(), "/e/h");
  ASSERT_OK(a->Write(6, "ghi"));
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/e/h"), "abcdefghi");
}

TEST_F(OrderedAppenderTest, RewrittenPageWithTheSameBytesIsSkipped) {
  // A page written back while 100 bytes long, then re-sent whole at 4096.
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, data_.substr(0, 100)));
  ASSERT_OK(a->Write(0, data_.substr(0, 4096)));
  ASSERT_OK(a->Write(0, data_.substr(0, 4096)));  // and again, nothing new
  ASSERT_OK(a->Write(4096, data_.substr(4096)));
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data_);
}

TEST_F(OrderedAppenderTest, ChangedStoredBytesAreWrittenAndOnlyThose) {
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, data_.substr(0, 5000)));
  ASSERT_OK(a->CloseWriter());  // on a device now
  std::string want = data_.substr(0, 5000);
  std::string page = data_.substr(4096, 4096);
  page[10] ^= 1;  // a byte already stored (4106 < 5000); the rest of the page is new
  uint64_t before = fs_->Stats().overwritten_bytes;
  ASSERT_OK(a->Write(4096, page));
  want.replace(4096, 4096, page);
  EXPECT_EQ(fs_->Stats().overwritten_bytes - before, 1u);
  EXPECT_EQ(a->Size(), 8192u);
  std::string got(want.size(), '\0');
  size_t n = 0;
  ASSERT_OK(a->Read(0, got.size(), &got[0], &n));
  EXPECT_EQ(got, want);
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), want);
}

TEST_F(OrderedAppenderTest, OutOfOrderPagesAreHeldReadableThenAppended) {
  // Write-back resumed past a page that grew: pages 2..4 arrive before the
  // regrown page 1.
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, data_.substr(0, 4096 + 10)));
  ASSERT_OK(a->Write(2 * 4096, data_.substr(2 * 4096)));
  EXPECT_EQ(a->HeldBytes(), data_.size() - 2 * 4096);
  EXPECT_EQ(a->Size(), data_.size());
  // Reads see held bytes, and zeros in the gap not yet filled.
  std::string got(3 * 4096, '\0');
  size_t n = 0;
  ASSERT_OK(a->Read(4096, got.size(), &got[0], &n));
  ASSERT_EQ(n, got.size());
  EXPECT_EQ(got.substr(0, 10), data_.substr(4096, 10));
  EXPECT_EQ(got.substr(10, 4096 - 10), std::string(4096 - 10, '\0'));
  EXPECT_EQ(got.substr(4096), data_.substr(2 * 4096, 2 * 4096));
  // The page fills the gap: everything is appended, in order.
  ASSERT_OK(a->Write(4096, data_.substr(4096, 4096)));
  EXPECT_EQ(a->HeldBytes(), 0u);
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data_);
}

TEST_F(OrderedAppenderTest, NewerBytesReplaceHeldOnes) {
  auto a = Open("/f");
  std::string old_page(4096, 'o');
  ASSERT_OK(a->Write(8192, old_page));
  ASSERT_OK(a->Write(8192 + 1000, data_.substr(0, 500)));  // a rewrite inside it
  ASSERT_OK(a->Write(0, std::string(8192, 'a')));
  std::string want = std::string(8192, 'a') + std::string(1000, 'o') + data_.substr(0, 500) +
                     std::string(4096 - 1500, 'o');
  EXPECT_EQ(ReadAll(a.get()), want);
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), want);
}

TEST_F(OrderedAppenderTest, RandomWriteBackOrdersGiveTheWholeFile) {
  // Any order of page-sized pieces, some re-sent, ends as the file.
  for (int round = 0; round < 20; round++) {
    std::string path = "/r" + std::to_string(round);
    auto a = Open(path);
    std::vector<size_t> pages;
    for (size_t p = 0; p * 4096 < data_.size(); p++) pages.push_back(p);
    std::shuffle(pages.begin(), pages.end(), rng_);
    for (size_t i = 0; i < pages.size(); i++) {
      size_t p = pages[i];
      ASSERT_OK(a->Write(p * 4096, data_.substr(p * 4096, 4096)));
      if (rng_() % 3 == 0) {
        size_t q = pages[rng_() % (i + 1)];  // a page already sent, again
        ASSERT_OK(a->Write(q * 4096, data_.substr(q * 4096, 4096)));
      }
    }
    EXPECT_EQ(a->HeldBytes(), 0u);
    ASSERT_OK(a->CloseWriter());
    EXPECT_EQ(ReadFile(path), data_) << "round " << round;
  }
}

TEST_F(OrderedAppenderTest, HolesSettleAsZeros) {
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, "abc"));
  ASSERT_OK(a->Write(10000, "xyz"));  // a write past the end, as after lseek
  ASSERT_OK(a->Sync());
  EXPECT_EQ(a->HeldBytes(), 0u);
  std::string want = "abc" + std::string(10000 - 3, '\0') + "xyz";
  EXPECT_EQ(ReadFile("/f"), want);
  a.reset();  // before the filesystem it writes to goes
  Remount();
  EXPECT_EQ(ReadFile("/f"), want);
}

TEST_F(OrderedAppenderTest, TruncateCutsStoredAndHeldBytes) {
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, data_.substr(0, 3000)));
  ASSERT_OK(a->Write(8192, data_.substr(8192, 4096)));  // held
  ASSERT_OK(a->Truncate(10000));  // cuts the held run
  EXPECT_EQ(a->Size(), 10000u);
  EXPECT_EQ(a->HeldBytes(), 10000u - 8192);
  ASSERT_OK(a->Truncate(2000));  // into the stored bytes; the held ones go
  EXPECT_EQ(a->HeldBytes(), 0u);
  EXPECT_EQ(ReadAll(a.get()), data_.substr(0, 2000));
  ASSERT_OK(a->Write(2000, "tail"));  // appends continue at the cut
  ASSERT_OK(a->Truncate(2010));             // an extension is a hole
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data_.substr(0, 2000) + "tail" + std::string(6, '\0'));
}

TEST_F(OrderedAppenderTest, CloseSettlesHeldBytes) {
  auto a = Open("/f");
  ASSERT_OK(a->Write(0, data_.substr(0, 4096)));
  ASSERT_OK(a->Sync());
  ASSERT_OK(a->Write(8192, data_.substr(8192, 4096)));  // held, never settled
  a->Close().ok();
  a.reset();
  Remount();
  // Close settles: the hole becomes zeros and the held page follows.
  std::string want = data_.substr(0, 4096) + std::string(4096, '\0') + data_.substr(8192, 4096);
  EXPECT_EQ(ReadFile("/f"), want);
}

TEST_F(OrderedAppenderTest, ReadsDuringOutOfOrderWriteBackSeeOnlyWrittenBytesOrZeros) {
  // Pages arrive in a random order while readers read random ranges: every
  // byte a reader gets is the file's byte or a zero of a gap not yet filled.
  std::string data = Random(&rng_, 64 * 4096 + 77);
  for (char& c : data) c = static_cast<char>(c | 1);  // no zero bytes in the data
  auto a = Open("/f");
  std::vector<size_t> pages;
  for (size_t p = 0; p * 4096 < data.size(); p++) pages.push_back(p);
  std::shuffle(pages.begin(), pages.end(), rng_);
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; t++) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      std::string buf(20000, '\0');
      while (!done.load()) {
        uint64_t off = rng() % data.size();
        size_t got = 0;
        if (!a->Read(off, buf.size(), &buf[0], &got).ok()) bad++;
        for (size_t i = 0; i < got; i++) {
          if (buf[i] != 0 && buf[i] != data[off + i]) bad++;
        }
      }
    });
  }
  for (size_t p : pages) ASSERT_OK(a->Write(p * 4096, data.substr(p * 4096, 4096)));
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(a->HeldBytes(), 0u);
  EXPECT_EQ(ReadAll(a.get()), data);
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data);
}

TEST_F(OrderedAppenderTest, PicksUpAnExistingFile) {
  WriteFile("/f", data_.substr(0, 777));
  auto a = Open("/f");
  EXPECT_EQ(a->Size(), 777u);
  ASSERT_OK(a->Write(0, data_.substr(0, 1000)));  // the kernel re-sends the first page
  ASSERT_OK(a->CloseWriter());
  EXPECT_EQ(ReadFile("/f"), data_.substr(0, 1000));
}

// The first read comes after the unlink: a program that opened the file
// and reads it later (a mapping faulting its pages in) still reads it.
TEST_F(OrderedAppenderTest, AnUnlinkedOpenFileStillReadsItsBytes) {
  WriteFile("/f", data_);
  auto a = Open("/f");
  ASSERT_OK(a->PinReader());
  ASSERT_OK(fs_->Unlink("/f"));
  EXPECT_EQ(ReadAll(a.get()), data_);
}

// Renamed over (git's index, written to a lock file and renamed): the open
// file's reads return its own bytes, not those of the file that replaced it,
// also when several reads at once need readers of their own.
TEST_F(OrderedAppenderTest, AFileRenamedOverStillReadsItsOwnBytes) {
  WriteFile("/f", data_);
  auto a = Open("/f");
  ASSERT_OK(a->PinReader());
  WriteFile("/g", std::string(1000, 'g'));
  ASSERT_OK(fs_->Rename("/g", "/f"));
  EXPECT_EQ(ReadAll(a.get()), data_);
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; t++) {
    readers.emplace_back([&] {
      for (int i = 0; i < 50; i++) {
        if (ReadAll(a.get()) != data_) bad++;
      }
    });
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(ReadFile("/f"), std::string(1000, 'g')) << "the path names the new file";
}

// A writer taken before the name goes (the mount does so for a file open
// for writing) keeps the file's later writes with it.
TEST_F(OrderedAppenderTest, AWriterTakenBeforeARenameOverKeepsTheWritesWithTheFile) {
  WriteFile("/f", "abc");
  auto a = Open("/f");
  ASSERT_OK(a->PinReader());
  ASSERT_OK(a->TakeWriter());
  WriteFile("/g", "other");
  ASSERT_OK(fs_->Rename("/g", "/f"));
  ASSERT_OK(a->Write(3, "def"));
  ASSERT_OK(a->Sync());
  EXPECT_EQ(ReadAll(a.get()), "abcdef");
  EXPECT_EQ(ReadFile("/f"), "other");
}

// Writes that would need a writer opened by the path refuse rather than go
// into the file that replaced this one, or bring an unlinked name back.
TEST_F(OrderedAppenderTest, WritesAfterARenameOverOrAnUnlinkTouchNoOtherFile) {
  WriteFile("/f", "abc");
  auto a = Open("/f");
  ASSERT_OK(a->PinReader());
  WriteFile("/g", "other");
  ASSERT_OK(fs_->Rename("/g", "/f"));
  Status s = a->Write(3, "def");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(a->Truncate(1).IsIOError());
  EXPECT_EQ(ReadFile("/f"), "other");
  WriteFile("/h", "abc");
  auto b = Open("/h");
  ASSERT_OK(b->PinReader());
  ASSERT_OK(fs_->Unlink("/h"));
  EXPECT_TRUE(b->Write(3, "def").IsIOError());
  FileStat st;
  EXPECT_TRUE(fs_->Stat("/h", &st).IsNotFound()) << "the unlinked name stays unlinked";
}

}  // namespace
}  // namespace hintfs
