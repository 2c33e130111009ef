// The superblock: one 4 KiB block at the start of zone 0 of every member
// device, written once by mkfs. Each copy names the filesystem (UUID), this
// member's place in it, every member (UUID, tier, URI, geometry) and where the
// metadata journal lives, so any member's URI is enough to mount the whole
// filesystem. Layout in docs/formats.md.
#ifndef HINTFS_FS_SUPERBLOCK_H_
#define HINTFS_FS_SUPERBLOCK_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fs/status.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

using Uuid = std::array<uint8_t, 16>;
Uuid NewUuid();
std::string UuidToString(const Uuid& uuid);

enum class Tier : uint8_t { kFast = 0, kSlow = 1 };
const char* TierName(Tier tier);

struct MemberInfo {
  Uuid uuid{};
  Tier tier = Tier::kFast;
  std::string uri;  // scheme:path, no options
  uint32_t zone_count = 0;
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;
  // Zones files may fill, the filesystem's own (superblock, journal, the
  // empty zones it keeps back for GC and space-freeing writes) on top;
  // 0: every zone. Zones past them are left unused: to give a tier exactly
  // the data capacity of an experiment (HHZS: 20 SSD zones).
  uint32_t data_zones = 0;
};

struct Superblock {
  // Version 2: the journal may hold op 16 (file tags) instead of op 10, and
  // file classes the layers above define; members record data_zones.
  // Version 1 images are read (and their journals then take op 16, so older
  // builds refuse them).
  static constexpr uint32_t kVersion = 2;
  static constexpr uint32_t kOldestVersion = 1;
  static constexpr uint32_t kSize = 4096;

  Uuid fs_uuid{};
  int64_t created_ns = 0;
  uint32_t member_index = 0;  // which member this copy lives on
  uint32_t meta_device = 0;   // journal zones: [meta_first_zone, +meta_zone_count)
  uint32_t meta_first_zone = 1;
  uint32_t meta_zone_count = 0;
  std::vector<MemberInfo> members;

  // Exactly kSize bytes.
  std::string Encode() const;
  // Corruption for a bad magic, checksum or field; NotSupported for a
  // version this build does not read.
  static Status Decode(std::string_view block, Superblock* sb);

  // Reads and decodes the superblock of device: NotFound if zone 0 holds
  // nothing (no filesystem was made), else its read errors or Decode's.
  static Status Read(ZonedDevice* device, Superblock* sb);
};

}  // namespace hintfs

#endif  // HINTFS_FS_SUPERBLOCK_H_
