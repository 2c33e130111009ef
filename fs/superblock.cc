#include "fs/superblock.h"

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {
constexpr char kMagic[8] = {'H', 'I', 'N', 'T', 'F', 'S', 'S', 'B'};
constexpr uint32_t kMaxMembers = 16;
}  // namespace

Uuid NewUuid() {
  std::random_device rd;
  Uuid u;
  for (size_t i = 0; i < u.size(); i += 4) {
    uint32_t r = rd();
    std::memcpy(&u[i], &r, 4);
  }
  u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
  u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return u;
}

std::string UuidToString(const Uuid& u) {
  std::string s;
  for (size_t i = 0; i < u.size(); i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", u[i]);
  }
  return s;
}

const char* TierName(Tier tier) { return tier == Tier::kFast ? "fast" : "slow"; }

std::string Superblock::Encode() const {
  std::string b(kMagic, sizeof(kMagic));
  PutFixed32(&b, kVersion);
  b.append(reinterpret_cast<const char*>(fs_uuid.data()), fs_uuid.size());
  PutFixed64(&b, static_cast<uint64_t>(created_ns));
  PutFixed32(&b, member_index);
  PutFixed32(&b, meta_device);
  PutFixed32(&b, meta_first_zone);
  PutFixed32(&b, meta_zone_count);
  PutFixed32(&b, static_cast<uint32_t>(members.size()));
  for (const MemberInfo& m : members) {
    b.append(reinterpret_cast<const char*>(m.uuid.data()), m.uuid.size());
    b.push_back(static_cast<char>(m.tier));
    PutLengthPrefixed(&b, m.uri);
    PutFixed32(&b, m.zone_count);
    PutFixed64(&b, m.zone_size);
    PutFixed64(&b, m.zone_capacity);
    PutFixed32(&b, m.data_zones);
  }
  b.resize(kSize - 4, '\0');
  PutFixed32(&b, crc32c::Value(b.data(), b.size()));
  return b;
}

Status Superblock::Decode(std::string_view block, Superblock* sb) {
  if (block.size() < kSize || std::memcmp(block.data(), kMagic, sizeof(kMagic)) != 0) {
    return Status::Corruption("no hintfs superblock (bad magic)");
  }
  if (DecodeFixed32(block.data() + kSize - 4) != crc32c::Value(block.data(), kSize - 4)) {
    return Status::Corruption("superblock checksum mismatch");
  }
  *sb = Superblock();
  Decoder d(block.substr(sizeof(kMagic), kSize - sizeof(kMagic) - 4), "superblock");
  uint32_t version = 0, count = 0;
  std::string_view bytes;
  uint64_t created = 0;
  d.GetFixed32(&version);
  if (d.ok() && (version < kOldestVersion || version > kVersion)) {
    return Status::NotSupported(fmt::format("superblock version {} (this build reads {} to {})", version,
                                            kOldestVersion, kVersion));
  }
  if (d.GetBytes(16, &bytes)) std::memcpy(sb->fs_uuid.data(), bytes.data(), 16);
  d.GetFixed64(&created);
  sb->created_ns = static_cast<int64_t>(created);
  d.GetFixed32(&sb->member_index);
  d.GetFixed32(&sb->meta_device);
  d.GetFixed32(&sb->meta_first_zone);
  d.GetFixed32(&sb->meta_zone_count);
  d.GetFixed32(&count);
  if (!d.ok()) return d.status();
  if (count == 0 || count > kMaxMembers) return Status::Corruption("superblock: bad member count");
  sb->members.resize(count);
  for (MemberInfo& m : sb->members) {
    std::string_view tier;
    if (d.GetBytes(16, &bytes)) std::memcpy(m.uuid.data(), bytes.data(), 16);
    d.GetBytes(1, &tier);
    d.GetLengthPrefixed(&m.uri, 1024);
    d.GetFixed32(&m.zone_count);
    d.GetFixed64(&m.zone_size);
    d.GetFixed64(&m.zone_capacity);
    if (version >= 2) d.GetFixed32(&m.data_zones);
    if (!d.ok()) return d.status();
    if (m.data_zones > m.zone_count) return Status::Corruption("superblock: data zones past the device");
    if (tier[0] != 0 && tier[0] != 1) return Status::Corruption("superblock: bad tier");
    m.tier = static_cast<Tier>(tier[0]);
  }
  if (sb->member_index >= count || sb->meta_device >= count || sb->meta_zone_count < 2 ||
      sb->meta_first_zone == 0 ||
      uint64_t{sb->meta_first_zone} + sb->meta_zone_count > sb->members[sb->meta_device].zone_count) {
    return Status::Corruption("superblock: member or journal fields out of range");
  }
  return Status::OK();
}

Status Superblock::Read(ZonedDevice* device, Superblock* sb) {
  ZoneInfo z0;
  Status s = device->ReportZone(0, &z0);
  if (!s.ok()) return s;
  if (z0.is_sequential() && z0.write_pointer - z0.start < kSize) {
    return Status::NotFound(device->uri() + " holds no hintfs filesystem (zone 0 is empty): make one with hintfs mkfs");
  }
  std::string block(kSize, '\0');
  s = device->Read(0, kSize, &block[0]);
  if (!s.ok()) return s;
  s = Decode(block, sb);
  if (!s.ok()) return Status(s.code() == Status::Code::kNotSupported
                                 ? Status::NotSupported(device->uri() + ": " + s.message())
                                 : Status::Corruption(device->uri() + ": " + s.message()));
  return s;
}

}  // namespace hintfs
