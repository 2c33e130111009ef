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
// A commit carries the queued ops as far as asked (Durability):
//  - kPowerCut first makes data durable (the flush_data callback), then
//    writes the batch, then flushes the metadata device: a file's extents are
//    never durable before its bytes are.
//  - kProcessKill writes the batch and flushes nothing. The batch is then in
//    the device (or the host's page cache under an emulated device), so it
//    survives the process being killed, as a write(2) to a kernel filesystem
//    does; a power cut may drop it, or keep it while dropping data it refers
//    to. Such a batch is marked "unflushed"; replay reports which files the
//    unflushed batches after the last flushed one changed, so mount can check
//    their extents against the devices (ReplayReport).
#ifndef HINTFS_FS_JOURNAL_H_
#define HINTFS_FS_JOURNAL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fs/host_log.h"
#include "fs/metadata.h"
#include "fs/op_backlog.h"
#include "fs/status.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

struct JournalStats {
  uint64_t epoch = 0;           // snapshot generation of the active zone
  uint32_t active_zone = 0;
  uint64_t active_bytes = 0;    // bytes used in the active zone
  uint64_t next_seq = 0;
  uint64_t batches_committed = 0;  // since mount
  uint64_t unflushed_batches_committed = 0;  // of those, written with kProcessKill
  uint64_t host_log_records = 0;   // kProcessKill commits the host log took (since mount)
  uint64_t bytes_committed = 0;    // since mount
  uint64_t rolls = 0;              // since mount
  uint64_t snapshot_bytes = 0;     // the active zone's snapshot
  uint64_t grown_bytes = 0;        // journaled since it (device batches and host log records)
  uint64_t zone_capacity = 0;      // what a snapshot must fit
  uint64_t replayed_batches = 0;   // at mount
  bool torn_tail = false;          // recovery found a torn batch after the last valid one
};

// How far Commit carries the queued ops.
enum class Durability {
  kProcessKill,  // written, nothing flushed: survives a killed process
  kPowerCut,     // data and journal flushed: survives a power cut
};

// What replay found past the last batch written with kPowerCut.
struct ReplayReport {
  uint64_t unflushed_batches = 0;
  uint64_t host_log_records = 0;  // replayed from the host log (host_log.h)
  std::string damage;  // salvage: the damage replay stopped at (empty: none)
  // Files whose extents or size unflushed batches changed, as they were
  // before the first such change (a record with id 0 for a file they
  // created): the last state durable against a power cut.
  std::map<uint64_t, InodeRecord> durable;
};

class Journal {
 public:
  Journal(ZonedDevice* device, uint32_t first_zone, uint32_t zone_count,
          std::function<Status()> flush_data);

  // mkfs: writes the first snapshot of image into the first metadata zone.
  Status Format(const MetadataImage& image);

  // Before Recover: commits for a process kill go to log (host memory that
  // outlives the process) while it has room, instead of a device batch.
  // owner names the filesystem, boot and device power cycles; the journal
  // fills in where its records start. Recover replays what the log holds
  // for exactly that owner.
  void UseHostLog(std::unique_ptr<HostLog> log, const HostLogOwner& owner);
  // Clean unmount, after a final kPowerCut commit: the host log is deleted.
  void RemoveHostLog();
  // Before Recover: replay stops at damage (a batch that does not check out
  // or apply) instead of failing, and keeps what came before, once the
  // zone's snapshot is whole; ReplayReport::damage says where (fsck --repair,
  // backup --salvage).
  void SetSalvage(bool salvage) { salvage_ = salvage; }

  // mount: rebuilds *image from the newest complete snapshot and its batches.
  // Unless read_only, resets stale metadata zones and rolls past a torn tail
  // so that later appends are always replayable. *report (if given) says what
  // came from unflushed batches.
  Status Recover(bool read_only, MetadataImage* image, ReplayReport* report = nullptr);

  // Queues ops (kept together in one batch) for the next commit. Returns the
  // commit generation that will carry them: they are durable once
  // committed_generation() reaches it.
  uint64_t Add(std::vector<MetadataOp> ops);
  uint64_t Add(const MetadataOp& op) { return Add(std::vector<MetadataOp>{op}); }
  uint64_t pending_generation();
  // The newest generation durable against a power cut (kPowerCut commits).
  uint64_t committed_generation();

  // Writes every queued op, durable as far as asked. Concurrent commits share
  // batches: a call returns once its ops are written (and flushed, for
  // kPowerCut). After a write error the journal refuses further commits (the
  // on-device state is unknown until remount).
  Status Commit(Durability durability = Durability::kPowerCut);

  // About the most the next snapshot may take: the last snapshot's bytes
  // plus everything journaled since. An op's record is at least what it
  // adds to the snapshot, but for a new file's few op headers (a snapshot
  // writes an inode as up to four ops), so the filesystem, which acts on
  // it, leaves a margin. A snapshot must fit one metadata zone
  // (stats().zone_capacity); a roll that finds it does not fails the
  // journal, so the filesystem refuses changes that would only grow the
  // metadata (range moves) well before that.
  uint64_t SnapshotBound();
  // Makes SnapshotBound exact (deletions and joined extents make it loose)
  // by encoding the image as a roll would, without writing it: CPU only,
  // about a millisecond per megabyte of metadata.
  void Remeasure();

  // The image as of the last commit.
  MetadataImage image();
  JournalStats stats();

 private:
  Status CommitLocked(Durability durability);
  // Writes the backlog (ops no device batch holds yet) as one batch — for a
  // power cut: data flushed first, the batch flushed after, and written even
  // when empty if unflushed batches precede it — then starts the host log over.
  Status WriteBacklogLocked(bool flush);
  void StartHostLogLocked();
  Status ReplayHostLogLocked(MetadataImage* image, ReplayReport* report);
  // Records in report the state before ops of the files they change.
  static void NoteUnflushed(const std::vector<MetadataOp>& ops, const MetadataImage& image,
                            ReplayReport* report);
  static void EncodeOps(const std::vector<MetadataOp>& ops, std::string* payload);
  static Status DecodeOps(std::string_view payload, std::vector<MetadataOp>* ops);
  // Calls fn with each batch's ops of a snapshot of image_ at stats_.epoch.
  void ForEachSnapshotChunkLocked(const std::function<void(const std::vector<MetadataOp>&)>& fn) const;
  // Sets stats_.snapshot_bytes to what a roll would write now.
  void MeasureSnapshotLocked();
  Status RollLocked();
  Status WriteBatch(const std::vector<MetadataOp>& ops, bool flushed, uint32_t zone, uint64_t* wp);
  Status ReplayZone(uint32_t zone, uint64_t zone_wp, MetadataImage* image, uint64_t* end,
                    uint64_t* last_seq, uint64_t* epoch, bool* complete, uint64_t* batches,
                    ReplayReport* report);
  std::string EncodeBatch(const std::vector<MetadataOp>& ops, uint64_t seq, bool flushed) const;
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
  uint64_t unflushed_batches_ = 0;     // written with kProcessKill since the last flush
  std::unique_ptr<HostLog> host_log_;
  HostLogOwner host_owner_;
  bool host_log_started_ = false;  // records may be appended
  bool salvage_ = false;
  OpBacklog backlog_;              // in the image (and the host log), in no device batch

  std::mutex commit_mu_;  // serializes commits and rolls; guards the rest
  MetadataImage image_;
  uint32_t active_zone_ = 0;
  uint64_t active_wp_ = 0;  // device offset of the next batch
  Status failed_;
  JournalStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_JOURNAL_H_
