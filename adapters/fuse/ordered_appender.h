// One open file of the FUSE mount, shared by every handle the kernel holds on
// it: turns the writes the kernel sends into what a zoned file takes, appends
// at its end and overwrites written out of place (FileWriter::WriteAt).
//
// With the kernel's write-back cache, writes reach the daemon when the
// kernel writes dirty pages back, not when the program wrote them, and two
// patterns need care:
//
//  - A page that was written back while partly filled and then grew is sent
//    again whole, from its start: bytes the file already holds come back.
//    They are compared with what is stored and only the bytes that differ
//    are written, so a growing log's pages cost a read, not a rewrite.
//  - Write-back resumes where the last round stopped, so the regrown page
//    can arrive after pages behind it. Writes past the end are held in
//    memory until the gap before them fills, and reads see them meanwhile.
//
// Newer bytes for a held range replace older ones (the kernel re-sends a page
// only after the previous write-back of it was answered). A gap still open
// when the file is settled (fsync, close) is a hole: it becomes zeros, as
// after a write past the end of any file.
//
// Thread-safe.
#ifndef HINTFS_ADAPTERS_FUSE_ORDERED_APPENDER_H_
#define HINTFS_ADAPTERS_FUSE_ORDERED_APPENDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fs/filesystem.h"

namespace hintfs {

class OrderedAppender {
 public:
  // path names the file now; size is its size (the caller's Stat).
  OrderedAppender(Filesystem* fs, std::string path, uint64_t size);
  ~OrderedAppender();

  OrderedAppender(const OrderedAppender&) = delete;
  OrderedAppender& operator=(const OrderedAppender&) = delete;

  // Takes a writer the caller already opened on the file (create).
  void Adopt(std::unique_ptr<FileWriter> writer);

  // After a rename of `from` to `to`, of the file or of a directory above
  // it, so the writer and readers, opened lazily, find the file.
  void Renamed(const std::string& from, const std::string& to);
  std::string path();

  // Opens a reader that stays with the file until Close, if none is open
  // yet; call it while the path names the file (at open). Reads then keep
  // returning this file's bytes after its path is unlinked or renamed over,
  // as an open file descriptor does: readers opened later by the path would
  // find no file, or the file that replaced it (a program's mapping of a
  // file renamed over read the new file's bytes, short, and died of SIGBUS).
  // Errors: the filesystem's OpenReader's.
  Status PinReader();
  // Takes the file's writer now if it has none (it is otherwise taken at the
  // first write): before the path stops naming the file, so that writes
  // after that reach it. Errors: as Write's when it opens the writer.
  Status TakeWriter();

  // Takes bytes written at offset. *held (if given) tells whether
  // some of the bytes had to wait for a gap before them. Bytes the file took
  // are flushed (FileWriter::Flush) before it returns, so they survive the
  // daemon being killed; held bytes live only in memory until their gap fills.
  // Errors: the filesystem's (NoSpace, IOError, Corruption of a block an
  // overwrite patches); bytes before the failing piece may have been taken;
  // IOError (ESTALE) when a writer must be opened and the path no longer
  // names the pinned file (unlinked or renamed over: a writer is opened by
  // path, and would write into the file now there).
  Status Write(uint64_t offset, std::string_view data, bool* held = nullptr);

  // Reads [offset, offset + n) of the file as written so far, held bytes and
  // holes (zeros) included; *got is short only at the end.
  Status Read(uint64_t offset, size_t n, char* dst, size_t* got);

  // Cuts or extends the file; an extension is a hole until settled.
  // Errors: the filesystem's; IOError (ESTALE) for a cut of stored bytes
  // once the path no longer names the pinned file (as Write).
  Status Truncate(uint64_t size);

  // Appends everything held, holes as zeros, so the stored file is the whole
  // file.
  Status Settle();
  // Settle, then make the file durable (FileWriter::Sync).
  Status Sync();
  // Settle, then give the writer up (FileWriter::Close) so others may write.
  Status CloseWriter();

  // CloseWriter, and the readers go too: nothing of the filesystem is held
  // any more (before it unmounts, with handles the kernel never released).
  Status Close();

  // The file's size as the program sees it (held bytes and holes included).
  uint64_t Size();
  // Bytes held in memory, waiting for a gap before them to fill.
  uint64_t HeldBytes();

 private:
  // IOError (ESTALE) if the path no longer names the pinned file: calls by
  // path (a writer, a cut) would reach another file, or none.
  Status PathNamesFileLocked();
  Status OpenWriterLocked();
  // *changed: the file took bytes (to flush).
  Status WriteLocked(uint64_t offset, std::string_view data, bool* held, bool* changed);
  // Writes data over stored bytes at offset: when the write goes on past
  // the stored end (crosses_end: a regrown page sent again), only the
  // bytes that differ from the stored ones.
  Status OverwriteStoredLocked(uint64_t offset, std::string_view data, bool crosses_end, bool* changed);
  // Readers are used one thread at a time: a read takes one (or opens one)
  // and gives it back, so reads of a file need not wait for each other.
  // When the path no longer names the file, *shared is the pinned reader
  // instead (readers are thread safe; it is only slower to share one).
  Status TakeReaderLocked(std::unique_ptr<FileReader>* reader, std::shared_ptr<FileReader>* shared);
  void ReturnReaderLocked(std::unique_ptr<FileReader> reader);
  static Status ReadStored(FileReader* reader, uint64_t offset, size_t n, char* dst);
  // Puts data at offset >= stored_, replacing held bytes it overlaps.
  void HoldLocked(uint64_t offset, std::string_view data);
  // Appends held runs that start at the stored end.
  Status DrainLocked();
  Status AppendZerosLocked(uint64_t n);
  Status SettleLocked();

  Filesystem* const fs_;
  std::mutex mu_;
  std::string path_;
  std::unique_ptr<FileWriter> writer_;  // opened at the first write
  std::vector<std::unique_ptr<FileReader>> readers_;  // idle ones
  std::shared_ptr<FileReader> pinned_;  // PinReader's; null before it
  uint64_t file_id_ = 0;                // the file pinned_ reads (ReadLocation::file_id)
  // The path was found naming another file or none: from then on reads go
  // to pinned_ without opening readers by the path (nothing gives an
  // unlinked or replaced file its name back), and writes by path fail.
  bool detached_ = false;
  uint64_t stored_;  // bytes the filesystem holds (appended through writer_)
  uint64_t size_;    // the file's size; > stored_ while bytes are held or a hole is open
  std::map<uint64_t, std::string> held_;  // offset -> bytes, disjoint, non-empty, all >= stored_
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_ORDERED_APPENDER_H_
