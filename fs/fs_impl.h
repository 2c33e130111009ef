// Internal: the implementation of Filesystem, shared by fs_mount.cc (mkfs,
// mount, recovery, unmount), fs_impl.cc (namespace), fs_file_io.cc (writers
// and readers), fs_space.cc (zone allocation, reclaim, usage), fs_gc.cc (GC),
// fs_migrate.cc (migration) and fs_check.cc (fsck).
//
// Locking, outermost first: Inode::mu -> FsImpl::mu_ -> Journal. An inode's
// extent list changes only with both its mu and mu_ held, so either lock is
// enough to read it. GC takes inode locks with try_lock, so it never waits on
// a writer that is itself waiting for space; such a writer lends its file to
// GC meanwhile (Inode::lent_to_gc).
#ifndef HINTFS_FS_FS_IMPL_H_
#define HINTFS_FS_FS_IMPL_H_

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fs/filesystem.h"
#include "fs/fs_state.h"
#include "fs/journal.h"
#include "fs/readahead.h"
#include "fs/read_fanout.h"
#include "fs/recent_blocks.h"
#include "fs/rate_limiter.h"
#include "fs/clock.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

class FsImpl : public Filesystem {
 public:
  FsImpl(const MountOptions& options, Superblock sb, std::vector<std::unique_ptr<Member>> members);
  ~FsImpl() override;

  // Replays the journal and builds the live structures.
  Status Open();

  Status Unmount() override;
  Status OpenWriter(const std::string& path, WriteMode mode,
                    std::unique_ptr<FileWriter>* writer) override;
  Status OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) override;
  Status Stat(const std::string& path, FileStat* stat) override;
  Status ReadDir(const std::string& path, std::vector<DirEntry>* entries) override;
  Status Mkdir(const std::string& path) override;
  Status Rmdir(const std::string& path) override;
  Status Unlink(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Link(const std::string& existing, const std::string& new_path) override;
  Status Symlink(const std::string& target, const std::string& path) override;
  Status ReadLink(const std::string& path, std::string* target) override;
  Status MakeSpecial(const std::string& path, uint32_t format, uint64_t rdev) override;
  Status ReadSpecial(const std::string& path, uint32_t* format, uint64_t* rdev) override;
  Status SetOwnership(const std::string& path, uint32_t mode, uint32_t uid, uint32_t gid) override;
  Status Truncate(const std::string& path, uint64_t size) override;
  Status SetMtime(const std::string& path, int64_t mtime_ns) override;
  Status SetTag(const std::string& path, const std::string& tag) override;
  Status KeepOnFastTier(const std::string& dir, ZoneRole file_class) override;
  void SetZoneLender(ZoneRole lender_class, ZoneLender lender) override;
  Status Lock(const std::string& path, std::unique_ptr<FileLock>* lock) override;
  Status SyncMetadata() override;
  Status SetAttribute(const std::string& name, const std::string& value) override;
  std::map<std::string, std::string> Attributes() override;
  Status CollectGarbage(uint32_t max_zones, uint32_t* zones_freed) override;
  Status Usage(std::vector<DeviceUsage>* usage) override;
  Status Zones(std::vector<ZoneReport>* zones) override;
  FsStats Stats() override;
  const Superblock& superblock() const override { return sb_; }
  std::string policy_name() const override { return policy_->name(); }
  std::string PolicyStateJson() const override { return policy_->StateJson(); }
  Status Check(bool deep, FsckReport* report, const ProgressFn& progress) override;
  Status MigrateFile(const std::string& path, Tier to, RateLimiter* limiter,
                     MigrateResult* result) override;
  Status MigrateRange(const std::string& path, uint64_t offset, uint64_t length, Tier to, ZoneRole zone_class,
                      RateLimiter* limiter, MigrateResult* result) override;
  Status RelayoutFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) override;
  Status MigrateRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class, RateLimiter* limiter,
                       std::vector<MigrateResult>* results) override;

  // ---- used by handles (fs_file_io.cc)
  // Sends pending bytes to the device: whole blocks, or with include_partial
  // everything (the last block padded). The bytes are the inode's buffer, or
  // *direct when given (the buffer then empty; what is sent is removed from
  // its front and added to the size). ino->mu held.
  Status WriteOut(Inode* ino, bool include_partial, std::string_view* direct = nullptr);

  // ---- checked block I/O (fs_blocks.cc); no lock held
  // Writes n bytes (whole blocks) at zone's write pointer, at, into a zone
  // the caller holds for writing; counts them as used and records their
  // checksums (a journal op is queued).
  Status WriteBlocks(uint32_t device, uint32_t zone, uint64_t at, const char* data, size_t n);
  // Reads [offset, offset + n) of zone, checking (unless check is false) the
  // checksum of every block it touches; a mismatch is an IOError naming the
  // block. Zones written before checksums existed are read unchecked.
  Status ReadChecked(uint32_t device, uint32_t zone, uint64_t offset, size_t n, char* dst, bool check = true);
  // A read of a file's bytes for the store: from the slow tier's blocks
  // written moments ago when it has them (recent_blocks.h; *from_memory
  // says so), else ReadChecked.
  Status ReadForStore(uint32_t device, uint32_t zone, uint64_t offset, size_t n, char* dst, bool* from_memory);
  // IOError naming the first of blocks (block first of zone, at device
  // offset from) whose CRC32C is not the one wanted.
  Status CheckBlocks(const char* blocks, const std::vector<uint32_t>& want, uint32_t device, uint32_t zone,
                     uint64_t first, uint64_t from) const;
  // Closes a zone the caller holds for good: writes its checksums after its
  // last block as its trailer, records that it is sealed, finishes it.
  Status SealZone(uint32_t device, uint32_t zone);
  Status SealZoneLocked(uint32_t device, uint32_t zone);  // mu_ held
  // Seals a zone nothing will be written into again and counts it full (its
  // unwritten rest becomes garbage). mu_ held.
  Status RetireZoneLocked(uint32_t device, uint32_t zone);
  Status WriteTrailerLocked(uint32_t device, uint32_t zone);  // mu_ held
  // Reads a sealed zone's checksums from its trailer if they are not in memory.
  Status LoadTrailer(uint32_t device, uint32_t zone);
  // Reads and checks the trailer of a zone sealed after blocks data blocks.
  // *foreign (if given) tells a sound trailer the journal did not record
  // (another copy of the member) from a damaged one.
  Status ReadTrailer(uint32_t device, uint32_t zone, uint32_t blocks, std::vector<uint32_t>* crcs,
                     bool* foreign = nullptr);
  // Mount: a sample of every member's sealed zones has the trailers the
  // journal recorded; Corruption naming the member otherwise (damaged
  // trailers are left to the reads of their zones and fsck).
  Status CheckMembersAgree();
  // fsck --deep: every sealed zone's trailer reads back and agrees with what
  // the journal or memory holds.
  void CheckTrailers(const std::function<void(std::string)>& error);
  // fsck's parts (fs_check.cc).
  using Reporter = std::function<void(std::string)>;
  struct NamespaceLinks {
    std::map<uint64_t, uint32_t> links;  // names per inode
    std::map<uint64_t, bool> reachable;  // from the root
    uint32_t LinksOf(uint64_t id) const {
      auto it = links.find(id);
      return it == links.end() ? 0 : it->second;
    }
    bool Reachable(uint64_t id) const {
      auto it = reachable.find(id);
      return it != reachable.end() && it->second;
    }
  };
  void CheckSuperblocks(const Reporter& error);
  Status CheckReportedZones(const JournalStats& js, std::vector<std::vector<ZoneInfo>>* zones,
                            const Reporter& error, const Reporter& warn);
  void CheckNamespace(const MetadataImage& image, NamespaceLinks* names, const Reporter& error);
  // Returns the bytes the extents hold.
  uint64_t CheckExtents(const std::map<uint64_t, InodeRecord>& records, const std::vector<std::vector<ZoneInfo>>& zones,
                        const NamespaceLinks& names, FsckReport* report, const Reporter& error, const Reporter& warn);
  void ReadEveryExtent(const std::map<uint64_t, InodeRecord>& records, uint64_t total_bytes, FsckReport* report,
                       const ProgressFn& progress, const Reporter& error, const Reporter& warn);
  // A file repair set aside in /lost+found: fsck warns of its damage.
  bool SetAside(uint64_t inode);
  // The room left for data in a zone (0 once sealed). mu_ held.
  uint64_t RoomLocked(const Member* m, const ZoneSlot& slot) const;
  // Close and unmount: everything to the device, zone released, extents queued.
  Status FinishWriting(Inode* ino);                  // ino->mu held
  // Whole blocks to the device, and the extents with the rest (the tail)
  // queued for the journal: what Flush and Sync commit. ino->mu held.
  // With keep_whole_blocks (Flush), a file appending to a zone keeps its
  // whole blocks in the tail too while they fit (KeepsBlocksInTail).
  Status QueueAllBytes(Inode* ino, bool keep_whole_blocks = false);
  // Whether a flush of ino may leave its whole blocks in the journaled tail:
  // it appends to a zone, the tail stays within kMaxTailBytes, and all such
  // tails stay within an eighth of a metadata zone (a journal snapshot holds
  // them and must fit one). A store that flushes after each 4 KiB block, as
  // LevelDB's table builder does, would otherwise write its tables one block
  // per device command, where a kernel filesystem's page cache writes them
  // out in large pieces: on an HDD each such write pays a seek and waits
  // behind the reads queued there; on an SSD each waits out the command's
  // latency (the zn540's 20 us; 12 of 40 stack samples of LevelDB's
  // compaction thread in a HHZS load, docs/benchmarks.md, issue 20, session
  // 84). ino->mu held.
  bool KeepsBlocksInTail(const Inode* ino) const;
  // Sets what of ino's buffer counts as kept whole blocks. ino->mu held.
  void CountKeptBytes(Inode* ino, uint64_t bytes);
  Status SyncInode(Inode* ino);                       // ino->mu not held
  // Writes data over the file's bytes at offset (all inside its size) out
  // of place (fs_overwrite.cc); the journal op is queued. ino->mu held, so
  // on NoSpace the caller collects garbage without it (GC moves this file's
  // blocks too: they may be what fills the zones) and tries again.
  Status Overwrite(Inode* ino, uint64_t offset, std::string_view data);
  // Writes every queued op to the journal without flushing anything: the
  // changes survive the process being killed, as writes to a kernel
  // filesystem do (Durability::kProcessKill). No lock held.
  Status CommitUnflushed() { return journal_->Commit(Durability::kProcessKill); }
  void QueueInodeLocked(Inode* ino);                  // ino->mu held
  // A file that owns its zones (AllocationPolicy::ZonePerFile) and stops
  // writing leaves the rest of its zone to nobody: finish the zone, so that
  // it holds no place among the device's active zones.
  Status FinishOwnZone(Inode* ino);
  // Retires zone of device if a file of a class that owns its zones stopped
  // short of its end there: its writer at close, or a migration's copy of it
  // (which took an empty zone, as the writer did). Not an overflow zone,
  // which takes the next file's overflow. mu_ held.
  Status RetireOwnedZoneLocked(uint32_t device, uint32_t zone);
  // Whether files of role own their zones on m (AllocationPolicy::ZonePerFile):
  // such a file starts in an empty zone and finishes it at close; the garbage
  // of its zone is the rest it left unwritten, which its deletion frees.
  bool RoleOwnsZonesLocked(const Member* m, ZoneRole role);
  // Whether GC may pick zone s of m and count its garbage as reclaimable:
  // any zone of a class whose files share zones, and of a class whose files
  // own them only a finished zone less than half of which is live, the zone
  // of a file that stopped well short of it (stores end some files early: a
  // third of the fast tier's zones of one class held one such file each in
  // docs/benchmarks.md). GC's copies fill partly written zones of the class,
  // so such files end up packed together and their zones are reset. A file
  // that fills most of its zone is left alone: moving it frees too little.
  bool CollectableLocked(const Member* m, const ZoneSlot& s);
  void ReleaseWriterZone(Inode* ino);                 // ino->mu held
  void CloseHandle(const std::shared_ptr<Inode>& ino);
  Status ReadInode(Inode* ino, uint64_t offset, size_t n, char* scratch, size_t* got);
  ReadLocation LocateInode(Inode* ino, uint64_t offset, size_t n);
  // Whether the device holding the file's first byte takes longer to reach
  // it than to transfer bytes (a disk's seek against a window of readahead;
  // false where the device's figures are unknown). Takes ino->mu.
  bool SeekOutweighsTransfer(Inode* ino, size_t bytes);
  void UnlockPath(uint64_t inode);
  const MountOptions& options() const { return options_; }

 private:
  friend class FsFileWriter;

  // ---- namespace (fs_impl.cc), mu_ held
  Status Resolve(const std::string& path, uint64_t* inode);
  Status ResolveParent(const std::string& path, uint64_t* parent, std::string* name);
  Status CreateLocked(uint64_t parent, const std::string& name, FileType type,
                      const std::string& path, uint64_t* inode);
  // Creates path as a directory, link or special node, with content (if any)
  // journaled as its tail, and commits it. AlreadyExists if path exists.
  Status CreateWithContent(const std::string& path, FileType type, const std::string& content);
  // The content of the link or special node at path, of type type.
  Status ReadContent(const std::string& path, FileType type, std::string* content);
  // After an unlink of path: delete the inode if unused. Observers hear of a
  // file from before this mount, never opened since, by that path.
  void DropLinkLocked(uint64_t inode, const std::string& path);
  void DeleteInodeLocked(Inode* ino);
  Status CheckWritable() const;
  // Removes the name path: a directory (must be empty) when want_dir, else a
  // file. The Uncommitted forms of namespace calls take mu_ and queue their
  // ops; the public calls then commit them (CommitUnflushed) without mu_.
  Status RemoveName(const std::string& path, bool want_dir);
  Status RemoveNameUncommitted(const std::string& path, bool want_dir);
  Status RenameUncommitted(const std::string& from, const std::string& to);
  Status LinkUncommitted(const std::string& existing, const std::string& new_path);
  // Finds the file or directory at path and holds it open until CloseHandle.
  Status HoldInode(const std::string& path, bool files_only, std::shared_ptr<Inode>* ino);
  // Mount: the placement policy, the caller's or the one recorded.
  Status ChoosePolicy(const std::string& recorded_name);
  // Repair, read-write: the files mount cut go to /lost+found.
  Status SetDamagedFilesAside();
  // Mount: gives the journal the host log (if one can be had).
  void AttachHostLog();
  // Mount: zones as the devices report them.
  Status LoadZones(const MetadataImage& image);
  // Mount: the zones past a member's data_zones (and the empty zones kept
  // back on top of them) are reserved, never written.
  void LeaveZonesPastDataCapacity(Member* m);
  // Mount: builds the inodes from the journal image. Files that unflushed
  // batches changed (report) keep the extents the devices hold; the rest of
  // them (lost in a power cut) is cut off and counted in stats_.
  Status LoadInodes(const MetadataImage& image, const ReplayReport& report);
  // Counts the extents of a file being loaded as live; an extent outside the
  // data zones or past a write pointer is Corruption, or with repair cuts the
  // file there and marks it damaged.
  Status AdoptExtents(Inode* ino);
  // Cuts rec's extents back to the bytes the zones hold (write pointers);
  // the tail goes too. False if nothing was missing.
  bool TrimToDevices(InodeRecord* rec) const;
  // The path of a file (one of its names), for reports; mu_ held or mount.
  std::string PathOfLocked(uint64_t inode) const;
  // The linked files, with where their data is, for the policy (mount; by
  // the path they were created at, or for files of earlier mounts a name).
  std::vector<MountedFile> MountedFilesForPolicy();

  // ---- space (fs_space.cc)
  DeviceSpace DeviceSpaceLocked(uint32_t device) const;
  Status AcquireZone(Inode* ino, uint64_t bytes, uint32_t* device, uint32_t* zone);
  // Empty zones per device kept back from every writer but GC and
  // space-freeing writes (MountOptions::gc_reserve_zones, reserve_zones).
  uint32_t KeptBackZones() const { return options_.gc_reserve_zones + options_.reserve_zones; }
  // Empty zones a write of role must leave on a device: the policy's
  // reservations, and the reserve unless the write frees space
  // (MountOptions::reserve_zones).
  uint32_t KeptEmptyZones(const DeviceSpace& space, ZoneRole role, bool frees_space) {
    return policy_->ReservedEmptyZones(space, role) + (frees_space ? 0 : options_.reserve_zones);
  }
  // keep_empty: empty zones this request must leave to others (policy
  // reservations); overflow: the writer's file already fills zones of its
  // own (ZoneSlot::shared_overflow).
  // lifetime_class: a partly written zone is filled only by files of its
  // class (AllocationPolicy::LifetimeClass), unless any_class (or for_gc)
  // and nothing else is left.
  bool PickZoneLocked(uint32_t device, ZoneRole role, bool for_gc, uint32_t* zone,
                      uint32_t keep_empty = 0, bool overflow = false, uint8_t lifetime_class = 0,
                      bool any_class = false);
  // A zone for ino's next write on space's device: PickZoneLocked, after
  // taking back an idle writer's zone if need be (RevokeIdleZoneLocked sets
  // *busy_holder, if given, when a holder was busy); tells the policy.
  bool PickWriterZoneLocked(Inode* ino, const AllocationRequest& req, const DeviceSpace& space, bool any_class,
                            bool* busy_holder, uint32_t* zone);
  // Whether device may open one more zone given active zones counted from
  // the slots; finishes idle zones to make room if it must. Near the limit
  // the device's own report is trusted over the count.
  bool RoomForActiveZoneLocked(uint32_t device, uint32_t active);
  static constexpr uint32_t kActiveZoneSlack = 2;
  // Takes a partly written zone of role (of lifetime class only_class, if
  // not -1) away from a writer that is idle (its lock is free), so that idle
  // files (logs, manifests) do not pin zones. Sets *busy_holder when a zone
  // it could take has a writer in the middle of a write (never waits for
  // it: that writer may be waiting for mu_).
  bool RevokeIdleZoneLocked(uint32_t device, ZoneRole role, const Inode* self, bool* busy_holder = nullptr,
                            int only_class = -1);
  // What a writer out of room on device could get back: the bytes written
  // and dead in zones of no single owner (GC's to collect), and whether a
  // zone has nothing live, which a commit resets whole (ReclaimZones), the
  // room never written included.
  struct Reclaimable {
    uint64_t garbage = 0;
    uint64_t zone_capacity = 0;
    bool dead_zone = false;
  };
  Reclaimable ReclaimableLocked(uint32_t device);
  // AcquireZone's error when no zone can be had for ino: the space live and
  // reclaimable, and DescribeZonesLocked.
  Status NoFreeZone(const Inode* ino);
  // Where the data zones' space is, for a NoSpace error: empty, held by
  // writers (and their room), partly written, dead but not yet reset, full.
  std::string DescribeZonesLocked() const;
  void AddLiveLocked(const Extent& e, int sign);
  // Gives the zone of piece, which a copy wrote, the class role, and
  // journals it (op 21) the first time since the zone's reset.
  void SetCopiedZoneClassLocked(const Extent& piece, ZoneRole role);
  // Journals that the zone holds nothing: an op 13 (kBlockSums) at block 0
  // with no checksums, which makes the journal forget the zone's checksums,
  // seal and class (op 21).
  void JournalZoneEmptied(uint32_t device, uint32_t zone);
  Status FlushDirtyDevices();
  Status CommitAndReclaim();
  // Asks the zone lender (SetZoneLender) to give zones back to a writer of
  // writer_class; true if it deleted files (commit to take their zones).
  bool LenderGaveBack(ZoneRole writer_class);
  // At most this many give-backs per zone a write needs (each a zone or more).
  static constexpr int kMaxZonesGivenBack = 16;
  void ReclaimZones();
  // GC on one device (or all when only_device is -1); *zones_busy, if given,
  // counts victims skipped because a file in them was in use. A caller that
  // holds a file's lock lends the file first (Inode::lent_to_gc), or may hold
  // one it cannot lend: GC then tries each victim's files once (a wait would
  // be for itself); with wait_for_files, for up to kSwitchLockWait each, so
  // that a zone whose files readers keep taking a moment each is collected.
  Status CollectGarbageOn(uint32_t max_zones, uint32_t* zones_freed, int32_t only_device,
                          uint32_t* zones_busy = nullptr, bool wait_for_files = false);
  Status RelocateZone(uint32_t device, uint32_t zone, bool wait_for_files, bool* freed);
  // Bytes GC's copies of data of role out of victim could go to on its
  // device: empty zones and partly written zones of the role, victim's own
  // room left out (UINT32_MAX: none left out). mu_ held.
  uint64_t GcRoomLocked(uint32_t device, ZoneRole role, uint32_t victim) const;
  // The part of GcRoomLocked one zone of m gives.
  static uint64_t GcRoomInZone(const Member* m, const ZoneSlot& s, ZoneRole role);
  // Device blocks a relocation may pad (the last of each zone it fills).
  static constexpr uint64_t kGcPaddingBlocks = 2;
  // One extent GC copied out of a zone: its file (an index in the owners),
  // where the extent was in the file's extents, and the pieces that
  // replace it.
  struct RelocatedExtent {
    size_t owner = 0;
    size_t index = 0;
    Extent old;
    std::vector<Extent> pieces;
  };
  struct CopyTarget;
  // Locks ino for GC without waiting (a file lent to GC needs no lock);
  // false if another holds it.
  static bool LockForGc(Inode* ino, std::unique_lock<std::mutex>* lock);
  // LockForGc, tried for up to wait before giving up.
  static bool LockForGcWithin(Inode* ino, std::chrono::microseconds wait, std::unique_lock<std::mutex>* lock);
  // How long GC waits for a file's lock held by a reader or an append.
  static constexpr std::chrono::microseconds kSwitchLockWait{20000};
  // Copies, packed, the extents in zone of each owner's extents (as they
  // were when GC looked), in owner order.
  Status CopyZoneExtents(uint32_t device, uint32_t zone, const std::vector<std::vector<Extent>>& extents,
                         CopyTarget* target, std::vector<RelocatedExtent>* copies);
  // Replaces each copied extent by its pieces, in each file whose extents
  // are still before's (else its copies are garbage); returns the bytes
  // moved.
  uint64_t SwitchToCopies(ZoneRole role, const std::vector<std::shared_ptr<Inode>>& owners,
                          const std::vector<std::vector<Extent>>& before, std::vector<RelocatedExtent>* copies);

  // ---- extent copies, for GC and migration (fs_copy.cc)
  // Where copies go: devices in order of preference, and the zones taken so
  // far (held like a writer's, so none is reset or appended to meanwhile,
  // until ReleaseCopyZones).
  struct CopyTarget {
    std::vector<uint32_t> devices;
    ZoneRole role = ZoneRole::kData;
    bool for_gc = false;  // GC's own empty zone may be taken; nothing else is kept back
    uint8_t lifetime_class = 0;  // of the zones filled (kGcLifetimeClass for GC)
    int64_t device = -1;  // the zone being filled
    uint32_t zone = 0;
    std::vector<std::pair<uint32_t, uint32_t>> held;
  };
  // Copies sources one after the other as one stream of bytes, so that they
  // share device blocks (only the stream's last block is padded), in the
  // order given or, if device_order, in their order on the devices (GC:
  // reads of neighbours join); sources that follow one another on a zone
  // are read at once. (*pieces)[i] gets the extents that hold sources[i]'s
  // bytes now. Errors: NoSpace, the sources' read errors (a checksum
  // mismatch is IOError), the devices'.
  Status CopyPacked(const std::vector<Extent>& sources, bool device_order, CopyTarget* target,
                    RateLimiter* limiter, std::vector<std::vector<Extent>>* pieces);
  // Source's bytes, from memory when they were just read or written, else
  // read checked.
  Status ReadSource(const Extent& source, char* dst);
  // Fills dst with the piece bytes [done, done + piece) of what is written.
  using PieceSource = std::function<Status(uint64_t done, uint64_t piece, char* dst)>;
  // Writes length bytes that fill supplies into target's zones, in pieces of
  // whole blocks (the last one padded), appending the extents to *pieces.
  Status WriteInPieces(uint64_t length, CopyTarget* target, RateLimiter* limiter, const PieceSource& fill,
                       std::vector<Extent>* pieces);
  // Flushes the devices and reads pieces back against their checksums;
  // Corruption naming what (GC, migration) if one does not read back.
  Status VerifyCopies(const std::vector<Extent>& pieces, const std::string& what);
  void ReleaseCopyZones(CopyTarget* target);
  // For a copy to the fast tier that found no zone: GC on the target's
  // devices (a few rounds while they free zones), then the next copy zone.
  // NoSpace if none came free.
  Status CollectFastGarbageFor(CopyTarget* target, uint64_t* used, uint64_t* room);
  static constexpr int kCopyGcRounds = 4;
  Status NextCopyZoneLocked(CopyTarget* target, uint64_t* used, uint64_t* room);

  // ---- migration (fs_migrate.cc)
  // One extent of a file copied to the other tier: the index of the old
  // extent in the file and the pieces that replace it.
  struct MovedExtent {
    size_t index = 0;
    std::vector<Extent> pieces;
  };
  // OK while the next journal snapshot stays within half a metadata zone;
  // else NoSpace. Range moves that split extents only grow the metadata, so
  // they wait for room (deletions, RelayoutFile, which joins a file's
  // extents) long before a snapshot could outgrow its zone and stop the
  // journal.
  Status MetadataRoomForSplits();
  // The move behind MigrateFile, MigrateRange and RelayoutFile: MoveRanges
  // of one range, whose status it returns. all copies the range's extents
  // already on tier to as well.
  Status MoveOne(const std::string& path, uint64_t offset, uint64_t length, Tier to, ZoneRole zone_class,
                 bool all, RateLimiter* limiter, MigrateResult* result);
  // One file's part of a MoveRanges: its ranges, the extents they were
  // planned on, the pieces cut at their ends and which are inside, and the
  // copies made of them.
  struct FileMove {
    std::shared_ptr<Inode> ino;  // held (HoldInode) once planned
    std::vector<size_t> requests;  // indexes of its ranges in the call
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // (begin, end), sorted, joined
    std::vector<Extent> before, pieces;
    std::vector<bool> inside;
    uint64_t size_before = 0;
    ZoneRole role = ZoneRole::kData;
    std::string created_as;
    std::vector<MovedExtent> moved;
    Status status;  // why this file was not moved
    bool all_on_to = false;
  };
  // MigrateRanges, with all as MoveOne.
  Status MoveRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class, bool all,
                    RateLimiter* limiter, std::vector<MigrateResult>* results);
  // Holds path's inode and plans its ranges (plan->requests set); the
  // reason not to move it otherwise.
  Status PlanFileMove(const std::string& path, const std::vector<RangeMove>& moves, FileMove* plan);
  // Copies the pieces inside of every plan still ok that are not on tier to
  // (every one, if all) as one packed stream, then verifies the copies.
  Status CopyPlanned(std::vector<FileMove>* plans, Tier to, bool all, RateLimiter* limiter, CopyTarget* target);
  // Switches a plan's file to its copies if it did not change meanwhile
  // (else plan->status is Busy).
  void SwitchPlanned(FileMove* plan, Tier to, ZoneRole zone_class, MigrateResult* result);
  // Results per range, the commit, placement told of files now on one tier,
  // statistics.
  Status FinishMoves(const std::vector<RangeMove>& moves, Tier to, std::vector<FileMove>* plans,
                     const std::vector<MigrateResult>& per_file, std::vector<MigrateResult>* results);
  // Each of plan's ranges gets the bytes and extents moved inside it.
  static void CountMovedBytes(const std::vector<RangeMove>& moves, const FileMove& plan,
                              std::vector<MigrateResult>* results);
  // extents with each one that holds file bytes of [begin, end) split at
  // begin and end exactly: *pieces, and for each whether it is inside.
  void SplitAtRange(const std::vector<Extent>& extents, uint64_t begin, uint64_t end, std::vector<Extent>* pieces,
                    std::vector<bool>* inside) const;
  // The same for several ranges ((begin, end), sorted, not overlapping).
  static void SplitAtRanges(const std::vector<Extent>& extents,
                            const std::vector<std::pair<uint64_t, uint64_t>>& ranges, std::vector<Extent>* pieces,
                            std::vector<bool>* inside);
  // The switch of a migration: pieces with the moved ones replaced by their
  // copies, live bytes updated, the copies' zones given zone_class. mu_ held.
  std::vector<Extent> SwitchMovedLocked(const std::vector<Extent>& pieces, const std::vector<MovedExtent>& moved,
                                        ZoneRole zone_class);
  // ---- overwrites (fs_overwrite.cc), ino->mu held
  // The part of an overwrite on devices: SplitAtRange's pieces inside it
  // written anew from data, then switched in.
  Status OverwriteExtents(Inode* ino, uint64_t offset, std::string_view data);
  // Queues the op that replaces the file's extents [from, from + replaced)
  // by with (kReplaceExtents; overwrites and migrations). mu_ held.
  void QueueReplacementLocked(Inode* ino, size_t from, size_t replaced, const std::vector<Extent>& with);
  // Joins neighbouring extents that continue each other on one zone.
  void MergeContinuationsLocked(std::vector<Extent>* extents) const;
  bool PickVictimLocked(std::set<std::pair<uint32_t, uint32_t>>* skip, int32_t only_device,
                        uint32_t* device, uint32_t* zone);
  // Per zone, the live bytes of files the policy estimates a remaining life
  // for, and the sum of bytes x that life (capped at the device's capacity).
  struct ExpectedStay {
    uint64_t bytes = 0;
    double byte_life = 0;
  };
  std::map<std::pair<uint32_t, uint32_t>, ExpectedStay> ExpectedStaysLocked();
  uint64_t BlockRound(uint32_t device, uint64_t n) const {
    uint64_t b = members_[device]->block_size;
    return (n + b - 1) / b * b;
  }

  MountOptions options_;
  Superblock sb_;
  std::vector<std::unique_ptr<Member>> members_;
  std::shared_ptr<AllocationPolicy> policy_;
  std::unique_ptr<Journal> journal_;
  bool unmounted_ = false;

  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Inode>> inodes_;
  std::map<uint64_t, std::map<std::string, uint64_t>> dirs_;
  // KeepOnFastTier: directory inode -> class of the files created in it, and
  // the classes kept on fast devices (bit per ZoneRole value).
  std::map<uint64_t, ZoneRole> fast_tier_dirs_;
  uint32_t fast_tier_classes_ = 0;
  std::set<uint64_t> locked_;
  std::map<std::string, std::string> attributes_;
  uint64_t next_inode_ = 2;

  // Files mount cut back to what the devices hold (LoadInodes), as it left
  // them; a read-only mount cannot write them to the journal.
  std::map<uint64_t, InodeRecord> cut_records_;
  // Repair (MountOptions::repair): what mount found and did, and the files
  // it cut, which a read-write mount moves to /lost+found.
  std::vector<std::string> repairs_;
  std::vector<uint64_t> damaged_;

  // The slow tier's blocks last read or written, for copies (recent_blocks.h).
  RecentBlocks recent_;
  // Reads whose bytes lie in several places read them at once (read_fanout.h).
  ReadFanout read_fanout_{4};
  // Memory and stats of the readers' readahead buffers (readahead.h).
  ReadaheadPool readahead_;

  // SetZoneLender's lender and its class; lender_mu_ is held through each
  // call, so removing the lender waits for the calls under way.
  std::mutex lender_mu_;
  Filesystem::ZoneLender lender_;
  ZoneRole lender_class_ = ZoneRole::kFree;

  std::mutex gc_mu_;  // one GC at a time
  std::mutex stats_mu_;
  FsStats stats_;
  // Bytes files have written to devices since mount (AllocationRequest::
  // write_clock).
  std::atomic<uint64_t> write_clock_{0};
  // The sum of every file's Inode::kept_in_tail (KeepsBlocksInTail).
  std::atomic<uint64_t> kept_in_tails_{0};
};

}  // namespace hintfs

#endif  // HINTFS_FS_FS_IMPL_H_
