// The metadata journal. It lives in a fixed set of metadata zones on one
// device. Exactly one zone is active: it begins with a snapshot of the whole
// MetadataImage (ops between SnapshotBegin and SnapshotEnd) and continues with
// batches, each an atomic, checksummed list of ops. When the active zone
// cannot take the next batch, the journal rolls: it writes a fresh snapshot
// into an empty metadata zone, makes it durable, and only then resets the old
// zone. Recovery picks the zone with the newest complete snapshot and replays
// it up to the first invalid batch (a torn tail); an invalid batch followed by
// a valid later one is reported as corruption, never silently skipped.
//
// A commit first makes data durable (the flush_data callback), then writes
// the batch, then flushes the metadata device: a file's extents are never
// durable before its bytes are.
#ifndef HINTFS_FS_JOURNAL_H_
#define HINTFS_FS_JOURNAL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "fs/metadata.h"
#include "fs/status.h"
#include "fs/zoned_device.h"

namespace hintfs {

struct JournalStats {
  uint64_t epoch = 0;           // snapshot generation of the active zone
  uint32_t active_zone = 0;
  uint64_t active_bytes = 0;    // bytes used in the active zone
  uint64_t next_seq = 0;
  uint64_t batches_committed = 0;  // since mount
  uint64_t bytes_committed = 0;    // since mount
  uint64_t rolls = 0;              // since mount
  uint64_t replayed_batches = 0;   // at mount
  bool torn_tail = false;          // recovery found a torn batch after the last valid one
};

class Journal {
 public:
  Journal(ZonedDevice* device, uint32_t first_zone, uint32_t zone_count,
          std::function<Status()> flush_data);

  // mkfs: writes the first snapshot of image into the first metadata zone.
  Status Format(const MetadataImage& image);

  // mount: rebuilds *image from the newest complete snapshot and its batches.
  // Unless read_only, resets stale metadata zones and rolls past a torn tail
  // so that later appends are always replayable.
  Status Recover(bool read_only, MetadataImage* image);

  // Queues ops (kept together in one batch) for the next commit. Returns the
  // commit generation that will carry them: they are durable once
  // committed_generation() reaches it.
  uint64_t Add(std::vector<MetadataOp> ops);
  uint64_t Add(const MetadataOp& op) { return Add(std::vector<MetadataOp>{op}); }
  uint64_t pending_generation();
  uint64_t committed_generation();

  // Makes every queued op durable. After a write error the journal refuses
  // further commits (the on-device state is unknown until remount).
  Status Commit();

  // The image as of the last commit.
  MetadataImage image();
  JournalStats stats();

 private:
  Status CommitLocked();
  Status RollLocked();
  Status WriteBatch(const std::vector<MetadataOp>& ops, uint32_t zone, uint64_t* wp);
  Status ReplayZone(uint32_t zone, uint64_t zone_wp, MetadataImage* image, uint64_t* end,
                    uint64_t* last_seq, uint64_t* epoch, bool* complete, uint64_t* batches);
  std::string EncodeBatch(const std::vector<MetadataOp>& ops, uint64_t seq) const;
  uint64_t ZoneEnd(uint32_t zone) const;

  ZonedDevice* device_;
  const uint32_t first_zone_;
  const uint32_t zone_count_;
  const std::function<Status()> flush_data_;

  std::mutex pending_mu_;  // guards pending_ and pending_gen_
  std::vector<MetadataOp> pending_;
  uint64_t pending_gen_ = 1;
  std::atomic<uint64_t> committed_gen_{0};
  std::atomic<uint64_t> next_seq_{1};  // advanced only under commit_mu_

  std::mutex commit_mu_;  // serializes commits and rolls; guards the rest
  MetadataImage image_;
  uint32_t active_zone_ = 0;
  uint64_t active_wp_ = 0;  // device offset of the next batch
  Status failed_;
  JournalStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_JOURNAL_H_
