// Filesystem is the hintfs core: one namespace of files and directories over
// two or more zoned devices (a fast and a slow tier). Files are lists of
// extents that may span zones and devices; metadata lives in the journal
// (journal.h); which device a file's next zone comes from is asked of an
// AllocationPolicy (allocation.h).
//
// Durability, as on a kernel filesystem:
//  - Process kill: every change a call made has survived once the call
//    returned — namespace changes (create, rename, unlink, link, mkdir,
//    truncate) and the bytes a writer handed over with Flush, Sync or Close,
//    to the last byte. Their journal ops go to the host log, memory that
//    outlives the process (host_log.h), or without one to the devices
//    without a flush (Journal, Durability::kProcessKill). Bytes only
//    Appended are still in the writer's buffer, like bytes in a program's
//    own stdio buffer.
//  - Power cut: FileWriter::Sync makes a file's bytes and size durable (data
//    first, then a journal batch); namespace changes are durable after the
//    next Sync of any file or SyncMetadata() — the directory fsync of POSIX.
//    Anything later may be lost; mount cuts files back to what the devices
//    kept and reports it (FsStats::recovered_files).
//
// Space: a zone is reset as soon as the journal durably says none of its
// bytes are live; a garbage collector relocates live extents out of mostly
// dead zones, and runs by itself before any allocation reports "no space".
//
// Thread safety: all methods may be called concurrently. A FileWriter or
// FileReader is used by one thread at a time, and every handle must be
// destroyed before the Filesystem.
#ifndef HINTFS_FS_FILESYSTEM_H_
#define HINTFS_FS_FILESYSTEM_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fs/allocation.h"
#include "fs/metadata.h"
#include "fs/rate_limiter.h"
#include "fs/status.h"
#include "fs/superblock.h"
#include "fs/device/zone.h"

namespace hintfs {

// Reports progress of a long operation: done out of total units (bytes).
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Where repair (MountOptions::repair, fsck --repair) puts damaged files.
constexpr char kLostAndFound[] = "/lost+found";

struct MkfsDevice {
  Tier tier = Tier::kFast;
  std::string uri;  // created if it does not exist (file: and mem: need zones=N)
  uint32_t data_zones = 0;  // MemberInfo::data_zones (0: every zone)
};

struct MkfsOptions {
  std::vector<MkfsDevice> devices;  // the first fast device holds the journal
  uint32_t meta_zones = 3;          // journal zones (at least 2)
  bool force = false;               // overwrite an existing filesystem or image
  std::string policy = "fast-first";
  ProgressFn progress;
};

// Sees the I/O of a mounted filesystem, for trace recording and, later,
// inference. Called on the I/O path, sometimes with filesystem locks held:
// implementations must be quick and must not call back into the filesystem.
// Paths are the paths files were created under.
class IoObserver {
 public:
  virtual ~IoObserver() = default;
  virtual void OnCreate(const std::string& path, ZoneRole role) = 0;
  virtual void OnLifetimeHint(const std::string& path, int lifetime) = 0;
  virtual void OnAppend(const std::string& path, std::string_view data) = 0;
  // A writer closed the file (size bytes): for files written once, sealed.
  virtual void OnClose(const std::string& path, uint64_t size) = 0;
  virtual void OnDelete(const std::string& path) = 0;
  // A read of bytes at offset, of which slow_bytes came from slow-tier
  // devices.
  virtual void OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) = 0;
};

// Makes the placement policy a filesystem records by name (placement/ has one).
using PolicyFactory =
    std::function<Status(const std::string& name, std::shared_ptr<AllocationPolicy>* policy)>;

struct MountOptions {
  bool read_only = false;
  // The policy to use; if set and not the recorded one, it is recorded as the
  // filesystem's policy from now on. Otherwise the recorded policy is made by
  // policy_factory, or must be the built-in "fast-first".
  std::shared_ptr<AllocationPolicy> policy;
  PolicyFactory policy_factory;
  // Empty zones per device kept back from writers so GC can always move data.
  uint32_t gc_reserve_zones = 1;
  // Further empty zones per device kept back for writes that free space
  // (AllocationPolicy::MayUseReserve says which), so that a store that
  // filled the filesystem can still write the files that let it delete
  // others.
  uint32_t reserve_zones = 1;
  // Check the checksum of every block a read touches (block_sums.h).
  bool verify_reads = true;
  // Mount a damaged filesystem (fsck --repair, backup --salvage): replay the
  // journal up to damage instead of failing, cut files whose extents lie
  // outside what the devices hold, and, read-write, move them to /lost+found
  // and make the result durable. FsStats::repairs lists what was done.
  bool repair = false;
  // A writer sends full blocks to the device once this much is buffered.
  size_t write_buffer_bytes = 1 << 20;
  // Memory for the slow tier's blocks last read or written, so that a copy
  // of them to the fast tier soon after (a block promoted after a read of
  // it, a table's hot blocks retained just after it was written) does not
  // read the slow device again (fs/recent_blocks.h). 0: none.
  uint64_t recent_blocks_bytes = 64 << 20;
  // Of those, the blocks among the last this many bytes written to the slow
  // tier also serve the store's reads (a table read back just after it was
  // written: fs/recent_blocks.h). 0: none.
  uint64_t reread_window_bytes = 4 << 20;
  // Readahead for readers that walk a file in small pieces (fs/readahead.h):
  // the largest window a sequential stream reads at once (0: none), and the
  // memory all handles' buffers may hold together.
  size_t readahead_bytes = 2 << 20;
  uint64_t readahead_memory_bytes = 64 << 20;
  // Told about every create, append, delete and read (may be null).
  std::shared_ptr<IoObserver> observer;
  // Where the host log lives: memory that outlives the process, so that a
  // Flush or a namespace call survives a kill at the cost of a memory copy
  // (fs/host_log.h). A directory in a memory filesystem; filesystems on mem:
  // devices keep it in the process. Empty: no host log, such calls write an
  // unflushed journal batch to the device instead.
  std::string host_log_dir = "/dev/shm";
  uint64_t host_log_bytes = 16 << 20;
  // Members to open at another place than the one recorded at mkfs (member
  // index -> device URI): images that were moved or copied, renamed drives.
  // Required for every other member when the device mounted is not at its
  // recorded place, so that a copy never opens (and writes into) the
  // original's other members.
  std::map<uint32_t, std::string> member_uris;
  // Extra device URI options applied to every member when it is opened, e.g.
  // "profile_scale=10" or "power_domain=crash&power_cut_after=100".
  std::string device_params;
};

struct FileStat {
  uint64_t inode = 0;
  FileType type = FileType::kFile;
  ZoneRole role = ZoneRole::kData;
  uint64_t size = 0;
  uint32_t nlink = 0;
  int64_t mtime_ns = 0;
  std::vector<Extent> extents;  // bytes already on a device (files only)
  std::string tag;  // the bytes SetTag stored (empty: none)
  uint32_t mode = 0;  // permission bits SetOwnership stored, with kModeSet (0: never set)
  uint32_t uid = 0;
  uint32_t gid = 0;
  // Random reads since mount: reads that did not start where the previous
  // read of the file ended (not persisted).
  uint64_t reads = 0;
};

struct DirEntry {
  std::string name;
  uint64_t inode = 0;
  FileType type = FileType::kFile;
};

// Per-device space. raw = reserved + unusable + live + garbage + free.
struct DeviceUsage {
  uint32_t index = 0;
  std::string uri;
  Tier tier = Tier::kFast;
  uint32_t zones = 0;
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;
  uint64_t zone_data_bytes = 0;  // what files may fill of a data zone: its capacity less the checksum trailer
  uint64_t raw_bytes = 0;
  uint64_t reserved_bytes = 0;  // superblock, journal and conventional zones
  uint64_t unusable_bytes = 0;  // zone size beyond zone capacity of data zones
  uint64_t live_bytes = 0;      // written bytes that files reference
  uint64_t garbage_bytes = 0;   // written bytes nothing references, padding too (reclaimable)
  uint64_t free_bytes = 0;      // unwritten capacity of data zones
  uint64_t file_bytes = 0;      // logical file bytes stored here
  uint32_t data_zones = 0;
  uint32_t empty_zones = 0;
  double random_read_iops = 0;  // known or modelled (timing profile); 0 unknown
  double random_read_latency_us = 0;  // QD1, known or modelled; 0 unknown
  uint64_t busy_ns = 0;         // modelled busy time since mount (ZonedDevice::busy_ns); 0 unknown
  uint32_t role_zones[kZoneRoleCount] = {};   // data zones with live bytes or a writer, per ZoneRole
};

struct ZoneReport {
  uint32_t device = 0;
  uint32_t zone = 0;
  ZoneRole role = ZoneRole::kFree;
  ZoneCondition condition = ZoneCondition::kEmpty;
  uint64_t start = 0;
  uint64_t write_pointer = 0;
  uint64_t capacity = 0;
  uint64_t live_bytes = 0;
  bool writing = false;  // a writer is appending to it
};

// What mount did with a file that journal batches written without a flush
// had changed (the last run ended without an unmount).
struct RecoveredFile {
  uint64_t inode = 0;
  std::string path;             // one of its names
  uint64_t recovered_bytes = 0;  // bytes that only those batches made part of the file
  uint64_t dropped_bytes = 0;    // bytes they named that the devices no longer hold
                                 // (unsynced, lost in a power cut)
};

// One line saying what mount did with the file, e.g. "/db/000004.log: kept
// 6897664 bytes written after the last sync (the last run stopped without
// unmounting)".
std::string DescribeRecoveredFile(const RecoveredFile& file);

struct FsStats {
  uint64_t bytes_written[2] = {0, 0};  // per tier, data written by files
  uint64_t bytes_read[2] = {0, 0};
  // Reads of at most kSmallReadBytes that reached a device, per tier they
  // came from (slow if any byte did): a store's point reads, apart from the
  // large reads of compactions and scans, which bytes_read mixes in.
  static constexpr uint64_t kSmallReadBytes = 64 << 10;
  uint64_t small_reads[2] = {0, 0};
  uint64_t zone_resets = 0;
  uint64_t recovered_bytes = 0;  // at mount: unsynced bytes kept (sum over recovered_files)
  uint64_t dropped_bytes = 0;    // at mount: unsynced bytes the devices had lost
  std::vector<RecoveredFile> recovered_files;
  std::vector<std::string> repairs;  // MountOptions::repair: what mount found and did
  uint64_t zones_finished = 0;   // finished early to respect max active zones
  uint64_t gc_runs = 0;
  uint64_t gc_bytes_moved = 0;
  uint64_t gc_zones_freed = 0;  // zones GC emptied by moving their live bytes (the rest of the resets needed no copy)
  uint64_t migrated_bytes[2] = {0, 0};  // per destination tier
  uint64_t migrations[2] = {0, 0};      // files moved, per destination tier
  uint64_t migrations_aborted = 0;      // file changed during the copy; copy dropped
  uint64_t copies_from_memory = 0;      // copy pieces the slow tier's recent blocks served
  uint64_t copies_from_device = 0;      // copy pieces read from a device
  // Store reads of the slow tier served by blocks written moments ago
  // (fs/recent_blocks.h), and their bytes; not in bytes_read or small_reads.
  uint64_t reads_from_written = 0;
  uint64_t bytes_from_written = 0;
  uint64_t overwritten_bytes = 0;       // bytes FileWriter::WriteAt wrote over existing ones
  // Flushes that left a file's whole blocks in the journaled tail instead of
  // writing them to the device then (FsImpl::KeepsBlocksInTail).
  uint64_t flushes_kept_in_tail = 0;
  uint64_t readahead_reads_served = 0;  // reads answered from a readahead buffer
  uint64_t readahead_fetches = 0;       // window reads of sequential streams
  uint64_t readahead_bytes = 0;         // bytes those window reads returned
  uint64_t journal_commits = 0;
  uint64_t journal_unflushed_commits = 0;  // of those, for a process kill only (Flush, namespace calls)
  uint64_t journal_bytes = 0;
  uint64_t journal_rolls = 0;
  uint64_t journal_epoch = 0;
  uint32_t journal_active_zone = 0;  // the metadata zone batches go to
  uint64_t journal_snapshot_bound = 0;  // bytes the next snapshot may take, at most
  uint64_t journal_zone_capacity = 0;   // what a snapshot must fit (range moves wait past half)
  uint64_t range_moves_refused = 0;     // range moves that waited for metadata room
  uint64_t files = 0;
  uint64_t directories = 0;
};

// What a migration did.
struct MigrateResult {
  bool moved = false;         // false: nothing of the file was on the other tier
  uint64_t bytes = 0;         // file bytes copied
  uint64_t extents = 0;       // extents that changed tier
  Status status;              // MigrateRanges: why this range's file was not moved
};

// A range of a file to move (Filesystem::MigrateRanges).
struct RangeMove {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct FsckReport {
  std::vector<std::string> errors;    // anything here makes fsck fail
  std::vector<std::string> warnings;  // harmless; mount cleans these up
  uint64_t files = 0;
  uint64_t directories = 0;
  uint64_t extents = 0;
  uint64_t bytes_checked = 0;  // data read back when deep checking
  bool ok() const { return errors.empty(); }
};

class FileWriter {
 public:
  virtual ~FileWriter() = default;
  // Buffers data (whole blocks go to the device once the buffer is full).
  // Until the next Flush, Sync or Close the bytes may be lost if the process
  // dies.
  virtual Status Append(std::string_view data) = 0;
  // Writes data at offset. At or past the end it is an Append (a gap before
  // it reads as zeros). Over bytes the file holds it writes out of place:
  // the new bytes go to other blocks (on the tier the old ones were on, else
  // the other), and the file's extents, cut at the write's exact bytes,
  // switch to them in one journal op, so that after a crash each byte is the
  // old or the new one, never a mix; the old bytes become garbage for GC.
  // Readers see the new bytes at once; durability as for appended bytes
  // (Flush, Sync, Close). Errors: NoSpace, IOError; the file is unchanged.
  virtual Status WriteAt(uint64_t offset, std::string_view data) = 0;
  // Hands every appended byte over: whole blocks to the file's zone, the
  // partial last block with the file's extents to the journal's host log
  // (or an unflushed journal batch). They survive the process being killed,
  // not a power cut (as write(2) without fsync on a kernel filesystem).
  virtual Status Flush() = 0;
  // Makes every appended byte and the file size durable (power cut too).
  virtual Status Sync() = 0;
  // Writes out what is buffered (the last block padded) and releases the
  // file; survives a process kill at once, a power cut after the next
  // commit. Called by the destructor if not called before.
  virtual Status Close() = 0;
  virtual uint64_t Size() const = 0;
  // The writer's expectation of the data's lifetime (see AllocationRequest),
  // passed to the placement policy when the file needs a zone.
  virtual void SetLifetimeHint(int hint) = 0;
};

// Where a range of a file lives now (for caches above the filesystem).
struct ReadLocation {
  bool slow = false;          // some of the bytes are on a slow-tier device
  uint64_t file_id = 0;       // the inode; unique among files for the mount's life
  uint64_t data_version = 0;  // changes when bytes already written change (truncate, rewrite)
  // The zone holding the range's first byte (found false past the end):
  // callers that keep many small ranges on a tier group them by zone.
  bool found = false;
  uint32_t device = 0, zone = 0;
};

class FileReader {
 public:
  virtual ~FileReader() = default;
  // Reads up to n bytes at offset into scratch; *got is short only at EOF.
  virtual Status Read(uint64_t offset, size_t n, char* scratch, size_t* got) = 0;
  virtual uint64_t Size() const = 0;
  // Where [offset, offset + n) is now.
  virtual ReadLocation Locate(uint64_t offset, size_t n) const = 0;
};

class FileLock {
 public:
  virtual ~FileLock() = default;  // releases the lock
};

enum class WriteMode {
  kTruncate,   // create, or truncate an existing file to zero
  kAppend,     // create, or append to an existing file
  kExclusive,  // create; AlreadyExists if the path exists
};

// Errors every call below may return besides the ones it names:
//   InvalidArgument  a path component over 255 bytes or holding a NUL ("."
//                    and ".." are resolved, empty components skipped);
//   NotFound         a missing path or parent directory;
//   NotSupported     a change on a read-only mount;
//   IOError          a device error, or a call after Unmount;
//   Corruption       bytes that fail their checksum (reads, GC, migration,
//                    fsck): never returned as data;
//   NoSpace          no zone left on any device the policy allows.
// Calls are thread safe; a FileWriter or FileReader is used by one thread
// at a time.
class Filesystem {
 public:
  // Creates a filesystem over the devices. AlreadyExists if a device holds a
  // hintfs filesystem or image unless force is set; InvalidArgument for no
  // fast device, fewer than 2 journal zones, a device named twice or too
  // small, or data_zones beyond what a device has besides the filesystem's
  // own zones.
  static Status Mkfs(const MkfsOptions& options);

  // Mounts the filesystem that the device at uri belongs to (any member).
  // Corruption if the device holds no hintfs superblock or the journal is
  // damaged (fsck --repair mounts it anyway); InvalidArgument if a member
  // is missing, belongs to another filesystem or moved (name it in
  // member_uris); NotSupported for a newer format; Busy if another process
  // or handle has a device image open.
  static Status Mount(const std::string& uri, const MountOptions& options,
                      std::unique_ptr<Filesystem>* fs);

  virtual ~Filesystem() = default;

  // Makes everything durable and releases the devices. Also done (ignoring
  // errors) when the object is destroyed.
  virtual Status Unmount() = 0;

  // A writer at the end of the file (mode says what happens to an existing
  // one). Busy if another writer has the file open; AlreadyExists for
  // kExclusive on an existing path; InvalidArgument if path is a directory
  // or a symbolic link.
  virtual Status OpenWriter(const std::string& path, WriteMode mode,
                            std::unique_ptr<FileWriter>* writer) = 0;
  // InvalidArgument if path is a directory or a symbolic link. The reader
  // sees the file as it grows; it stays readable after the file is unlinked.
  virtual Status OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) = 0;
  virtual Status Stat(const std::string& path, FileStat* stat) = 0;
  // InvalidArgument if path is a file.
  virtual Status ReadDir(const std::string& path, std::vector<DirEntry>* entries) = 0;
  // AlreadyExists if path exists.
  virtual Status Mkdir(const std::string& path) = 0;
  // InvalidArgument if path is a file or the directory is not empty.
  virtual Status Rmdir(const std::string& path) = 0;
  // InvalidArgument if path is a directory.
  virtual Status Unlink(const std::string& path) = 0;
  // Atomically replaces to if it exists (a file by a file, or an empty
  // directory by a directory). InvalidArgument for a file over a directory
  // or the reverse, a non-empty directory, or a directory moved into itself.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // AlreadyExists if new_path exists; InvalidArgument if existing is a
  // directory.
  virtual Status Link(const std::string& existing, const std::string& new_path) = 0;
  // Creates path as a symbolic link to target, which the filesystem stores
  // and never follows (paths given to it never pass through links; FUSE's
  // kernel side resolves them). AlreadyExists if path exists;
  // InvalidArgument for an empty target or one over kMaxSymlinkTarget bytes.
  virtual Status Symlink(const std::string& target, const std::string& path) = 0;
  // The target of the symbolic link at path; InvalidArgument if path is not one.
  virtual Status ReadLink(const std::string& path, std::string* target) = 0;
  // Creates path as a special node: a FIFO, socket or device node, which the
  // filesystem only records (format: the POSIX file-type bits, S_IFIFO,
  // S_IFSOCK, S_IFCHR or S_IFBLK; rdev: the device number) and the kernel
  // serves. AlreadyExists if path exists; InvalidArgument for another format.
  virtual Status MakeSpecial(const std::string& path, uint32_t format, uint64_t rdev) = 0;
  // The format and device number of the special node at path;
  // InvalidArgument if path is not one.
  virtual Status ReadSpecial(const std::string& path, uint32_t* format, uint64_t* rdev) = 0;
  // Stores permission bits (mode & kModeBits) and the owner with path (a
  // file, directory or link), durable with the next commit. The filesystem
  // checks no permission: a layer that serves users does (FUSE's
  // default_permissions).
  virtual Status SetOwnership(const std::string& path, uint32_t mode, uint32_t uid, uint32_t gid) = 0;
  // Shrinks a file, or grows it with zeros. InvalidArgument for a directory.
  virtual Status Truncate(const std::string& path, uint64_t size) = 0;
  virtual Status SetMtime(const std::string& path, int64_t mtime_ns) = 0;
  // Replaces the file's tag: opaque bytes the layers above keep with it
  // (durable with the next commit). NotFound if path is not a file,
  // InvalidArgument if tag is longer than kMaxFileTag.
  virtual Status SetTag(const std::string& path, const std::string& tag) = 0;
  // From now on, files created in the directory dir get file_class (instead
  // of the class the placement policy gives), and the data of every file of
  // that class goes to fast devices only, never spilling to the slow tier:
  // for a layer that keeps its own files on the fast tier (the SSD cache).
  // Not persisted: the layer says it again after each mount. NotFound if dir
  // is not a directory, InvalidArgument if file_class is not a file class.
  virtual Status KeepOnFastTier(const std::string& dir, ZoneRole file_class) = 0;
  // A layer whose files on the fast tier are disposable copies (the SSD
  // cache) may fill empty fast zones and give them back when a writer needs
  // one: when a write finds no zone it may take on a fast device, the
  // filesystem calls lender(writer's class) from the writing thread, before
  // it collects garbage or lets the data spill to another device. The lender
  // deletes files of its own (a zone or more) and returns true, or returns
  // false if it gives nothing to that class; the filesystem then commits the
  // deletions and takes the zones they free. Files of lender_class never
  // call it (the lender's own writes). The lender must not wait for a
  // lock a writer of this filesystem may hold. One lender at a time; an
  // empty lender removes it, and returns once no call to the old one is
  // running. Not persisted.
  using ZoneLender = std::function<bool(ZoneRole writer_class)>;
  virtual void SetZoneLender(ZoneRole lender_class, ZoneLender lender) = 0;
  // Creates path if needed and locks it; Busy if already locked.
  virtual Status Lock(const std::string& path, std::unique_ptr<FileLock>* lock) = 0;
  // Makes all namespace changes durable (directory fsync).
  virtual Status SyncMetadata() = 0;

  // Named values that layers above keep with the filesystem (migration and
  // cache statistics, ...): durable with the next commit; an empty value
  // removes the name. Names up to 64 bytes, values up to 8 KiB.
  virtual Status SetAttribute(const std::string& name, const std::string& value) = 0;
  virtual std::map<std::string, std::string> Attributes() = 0;

  // Relocates live data out of up to max_zones mostly dead zones. Returns the
  // number of zones it freed.
  virtual Status CollectGarbage(uint32_t max_zones, uint32_t* zones_freed) = 0;

  virtual Status Usage(std::vector<DeviceUsage>* usage) = 0;
  virtual Status Zones(std::vector<ZoneReport>* zones) = 0;
  virtual FsStats Stats() = 0;
  virtual const Superblock& superblock() const = 0;
  virtual std::string policy_name() const = 0;
  // The placement policy's state as JSON (AllocationPolicy::StateJson).
  virtual std::string PolicyStateJson() const = 0;

  // Checks the journal image against itself and the devices. deep also reads
  // back every extent.
  virtual Status Check(bool deep, FsckReport* report, const ProgressFn& progress) = 0;

  // Moves a file's data to a device of tier to: copies every extent that is
  // elsewhere (through limiter, if given; each byte copied is charged once),
  // makes the copy durable and reads it back against the source's checksums,
  // then replaces the file's extents in one journal record and commits it.
  // A crash at any point leaves the old copy or the new one, never a mix; the
  // zones of an abandoned copy are reclaimed. Readers may read throughout.
  // Busy if the file is open for writing or changed during the copy (the
  // copy is dropped); NoSpace if tier to has no room.
  virtual Status MigrateFile(const std::string& path, Tier to, RateLimiter* limiter,
                             MigrateResult* result) = 0;
  // As MigrateFile, for the file's bytes [offset, offset + length) only:
  // the file's other bytes stay where they are, so a file may live on both
  // tiers (block-granular tiering). Extents are split exactly at offset and
  // offset + length, inside device blocks if need be, and the copy packs the
  // bytes one after another, so a small range takes only its own bytes on
  // tier to (and a share of a padded last block); the same copy, verify and
  // one-record switch make it crash safe. The copy goes to zones of
  // zone_class: ZoneRole::kFree for the file's own class (as MigrateFile),
  // or a file class that packs the ranges moved from many files into shared
  // zones (small ranges would otherwise each open a zone of a class whose
  // files own their zones). InvalidArgument for an empty range, one past the
  // end of the file, or a zone_class that is no file class; NoSpace also
  // for a range that splits extents when the metadata could take more than
  // half a metadata zone (FsStats::journal_snapshot_bound).
  virtual Status MigrateRange(const std::string& path, uint64_t offset, uint64_t length, Tier to,
                              ZoneRole zone_class, RateLimiter* limiter, MigrateResult* result) = 0;
  // As MigrateFile, but copies every extent, those already on tier to too,
  // into the file's own zones: a file that range moves split into many
  // extents becomes a few long ones again (fewer reads, and metadata that
  // shrinks; MigrateRange waits with NoSpace once it has grown to half a
  // metadata zone). The zones it leaves hold garbage for GC. The same
  // errors as MigrateFile.
  virtual Status RelayoutFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) = 0;
  // MigrateRange for many ranges at once, of one file or several: their
  // bytes are copied as one packed stream, so that small ranges share device
  // blocks (separate MigrateRange calls each pad their last block), verified
  // together, and each file's extents switched in its own journal record,
  // all committed at once; a crash leaves each file as it was or moved.
  // (*results)[i] says what moves[i] did: a range whose file is gone
  // (NotFound), open for writing or changed during the copy (Busy), or that
  // lies outside its file (InvalidArgument) has that status and is not
  // moved, and the others are. The call's own errors: InvalidArgument for
  // an empty range or a zone_class that is no file class, NoSpace (nothing
  // moved) as MigrateRange's, the devices' errors.
  virtual Status MigrateRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class,
                               RateLimiter* limiter, std::vector<MigrateResult>* results) = 0;
};

}  // namespace hintfs

#endif  // HINTFS_FS_FILESYSTEM_H_
