// The host log: memory that outlives the process but not the machine, as
// the kernel's page cache does. The journal writes there what must survive
// a killed process but need not survive a power cut (a file's Flush, a
// rename...), so that such calls cost a memory copy instead of a device
// write (journal.h, Durability::kProcessKill).
//
// It is a file in a memory filesystem (by default /dev/shm/hintfs-UUID.hostlog)
// mapped into the process, or, for filesystems on mem: devices, a buffer in
// the process itself. Stores into the mapping are in the kernel's page cache
// the moment they are made, so a process killed at any point leaves every
// record it completed.
//
// Records follow a point of the on-device journal (HostLogOwner): the
// filesystem, this boot of the machine, the journal device's power cycles,
// and the journal epoch and last batch sequence the records came after. A
// log whose owner differs from what mount finds — another filesystem, a
// reboot, a power loss, or a journal that moved on after the records were
// written — is stale and its records are ignored.
//
// Format (little endian): a 4 KiB header — magic "HFHOSTL1" (8), version (4,
// = 1), zero (4), generation (8), filesystem UUID (16), boot id (40, NUL
// padded), power cycles (8), journal epoch (8), journal sequence (8), zeros,
// CRC32C of bytes [0, 4092) at 4092 — then records, each 8-byte aligned:
// payload length (4), CRC32C of the next 12 bytes and the payload (4),
// generation (8), index (4, from 0), payload. A record counts only if its
// generation is the header's and its index the next one, so bytes left from
// an earlier generation are never read as records.
//
// Not thread-safe: the journal calls it under its commit lock.
#ifndef HINTFS_FS_HOST_LOG_H_
#define HINTFS_FS_HOST_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/status.h"
#include "fs/superblock.h"

namespace hintfs {

struct HostLogOwner {
  Uuid fs_uuid{};
  std::string boot_id;        // /proc/sys/kernel/random/boot_id
  uint64_t power_cycles = 0;  // of the journal device (ZonedDevice::power_cycles)
  uint64_t epoch = 0;         // journal snapshot epoch
  uint64_t seq = 0;           // the last journal batch the records follow

  bool operator==(const HostLogOwner& o) const {
    return fs_uuid == o.fs_uuid && boot_id == o.boot_id && power_cycles == o.power_cycles &&
           epoch == o.epoch && seq == o.seq;
  }
};

// This boot's id, or "" if the kernel does not say.
std::string CurrentBootId();

// The default place of a filesystem's host log: "mem:NAME" (process memory)
// when the journal device is mem:NAME, else dir/hintfs-UUID-PLACE.hostlog,
// PLACE a hash of where the journal device is (so a copy of the images has
// a log of its own).
std::string HostLogPath(const std::string& dir, const std::string& journal_device_uri,
                        const Uuid& fs_uuid);

class HostLog {
 public:
  // Opens the log at path (created, capacity bytes, if missing and create
  // is set; else NotFound). A path that cannot be created or mapped is an
  // IOError: the caller then writes such records to its devices instead.
  static Status Open(const std::string& path, uint64_t capacity, bool create,
                     std::unique_ptr<HostLog>* log);
  // Forgets the process-memory log "mem:NAME" (mkfs of mem:NAME).
  static void ForgetMemory(const std::string& path);
  ~HostLog();

  // The records appended since the log was started for owner, in order. A
  // log started for anybody else (or never) has none.
  std::vector<std::string> Records(const HostLogOwner& owner) const;

  // Empties the log; the records appended from now on follow owner.
  void Start(const HostLogOwner& owner);

  // Appends one record; false (nothing written) if it does not fit.
  bool Append(std::string_view payload);

  // Bytes of records appended since Start.
  uint64_t used() const { return end_ - kHeaderSize; }

  // Deletes the log (a clean unmount leaves nothing to replay).
  void Remove();

  static constexpr uint64_t kHeaderSize = 4096;

 private:
  HostLog(std::string path, char* base, uint64_t capacity, bool mapped);
  const std::string path_;
  char* const base_;
  const uint64_t capacity_;
  const bool mapped_;    // a file mapping (else process memory owned elsewhere)
  uint64_t generation_ = 0;
  uint32_t next_index_ = 0;
  uint64_t end_ = kHeaderSize;
};

}  // namespace hintfs

#endif  // HINTFS_FS_HOST_LOG_H_
