// The allocation seam between the filesystem and placement policies. The
// filesystem asks a policy two questions and knows nothing else about why:
//   - which class a new file's data has (ZoneRole: ids the policy defines),
//     so zones never mix classes;
//   - in which order to try the member devices when a file needs a new zone.
// placement/ implements policies by name; the filesystem ships only the
// default that fills the fast tier first.
#ifndef HINTFS_FS_ALLOCATION_H_
#define HINTFS_FS_ALLOCATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fs/metadata.h"
#include "fs/superblock.h"

namespace hintfs {

// What the filesystem knows about a device when it asks for placement.
struct DeviceSpace {
  uint32_t index = 0;
  Tier tier = Tier::kFast;
  // Zones files may fill: the device's data zones less the empty ones the
  // filesystem keeps back (MountOptions::gc_reserve_zones, reserve_zones),
  // and of those the empty ones.
  uint32_t free_zones = 0;
  uint32_t total_zones = 0;
  uint64_t free_bytes = 0;    // unwritten capacity of data zones
  uint64_t live_bytes = 0;    // bytes files reference (the rest of what is written is garbage)
  uint64_t zone_capacity = 0;
  uint32_t role_zones[kZoneRoleCount] = {};  // zones with live bytes or a writer, per ZoneRole
  double random_read_latency_us = 0;  // QD1, known or modelled (ZonedDevice); 0 unknown
};

// A file the filesystem holds when it mounts, as OnMountedFiles shows it.
struct MountedFile {
  std::string path;  // its name (AllocationRequest::path names it so too)
  ZoneRole role = ZoneRole::kData;
  std::string tag;   // its tag (Filesystem::SetTag), opaque to the filesystem
  uint64_t fast_bytes = 0, slow_bytes = 0;  // where its data is
};

struct AllocationRequest {
  uint64_t inode = 0;
  std::string path;        // the file's path when it was created
  ZoneRole role = ZoneRole::kData;
  uint64_t file_size = 0;  // bytes already written to the file
  uint64_t bytes = 0;      // bytes about to be written
  // How long the writer expects the data to live, on the scale of Linux's
  // write-life-time hints (fcntl F_SET_RW_HINT: 0 not set, 1 none, 2 short,
  // 3 medium, 4 long, 5 extreme), set before the first append.
  int lifetime_hint = 0;
  // Bytes files have written to the filesystem's devices since it mounted:
  // the clock file lifetimes are measured in (a write distance, as DumpKV
  // measures a key's lifetime in writes, not seconds).
  uint64_t write_clock = 0;
};

// The lifetime class GC's relocations fill zones of when the policy gives
// files lifetime classes: data that survived until its zone was collected is
// old, and kept apart from new data. (A GC class per victim's class was
// tried and not kept: it keeps more zones open at once, each stranding its
// unwritten room, and the hint rule's one write refused for lack of space
// in the session that tried it came with it; docs/benchmarks.md.)
constexpr uint8_t kGcLifetimeClass = 255;

class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual std::string name() const = 0;
  // The class of a file about to be created at path (kData or an id the
  // policy defines, below kZoneRoleCount).
  virtual ZoneRole RoleForNewFile(const std::string& path) = 0;
  // Fills *order with device indexes to try, best first. Devices left out are
  // not used for this request.
  virtual void ChooseDevices(const AllocationRequest& request,
                             const std::vector<DeviceSpace>& devices,
                             std::vector<uint32_t>* order) = 0;
  // Empty zones of device that a request of class role must leave free (for
  // the classes the policy reserves zones for).
  virtual uint32_t ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) {
    static_cast<void>(device);
    static_cast<void>(role);
    return 0;
  }
  // Whether files of class role start each in an empty zone of a device
  // whose zones hold zone_capacity bytes, instead of filling what another
  // file of the class left of a zone. Worth it when the class's files are
  // about a zone (tables sized to zones, as HHZS sizes them): each file then
  // owns its zones and its deletion empties them, with nothing to collect;
  // files much smaller than a zone would waste the rest of theirs. A file
  // finishes its last zone when it stops writing, and a migration's copy of
  // it the zone the copy took; GC may pack files that left most of such a
  // zone empty.
  virtual bool ZonePerFile(ZoneRole role, uint64_t zone_capacity) {
    static_cast<void>(role);
    static_cast<void>(zone_capacity);
    return false;
  }
  // Whether writers of class role take turns in one zone, as writers of a
  // lifetime class do (LifetimeClass): a new writer takes the zone an idle
  // writer of the class holds before it opens an empty one. Worth it for
  // files written one after another that die in the order written, as a
  // store's write-ahead logs: each would otherwise hold a zone of its own
  // while it is open and fill it only partly (RocksDB keeps its earlier
  // logs open until their memtables are flushed: with four memtables of
  // half a zone, four zones held two zones' worth; docs/benchmarks.md).
  virtual bool WritersShareZones(ZoneRole role) {
    static_cast<void>(role);
    return false;
  }
  // Whether the request's file frees space once written (the policy knows
  // which files replace others that are deleted after them), so that it may
  // use the zones the filesystem keeps back from everything else
  // (MountOptions::reserve_zones) and a full store can free itself.
  virtual bool MayUseReserve(const AllocationRequest& request) {
    static_cast<void>(request);
    return false;
  }
  // The devices as the mount found them, before any request: a policy can
  // size itself to them, and say at once if its options leave a tier no use.
  virtual void OnMount(const std::vector<DeviceSpace>& devices) { static_cast<void>(devices); }
  // The files the mount found, right after OnMount: a policy that counts
  // what it placed (tables per level and tier) counts what earlier mounts
  // placed too, or it would plan a fast tier it thinks emptier than it is.
  virtual void OnMountedFiles(const std::vector<MountedFile>& files) { static_cast<void>(files); }
  // How many more bytes of the request's file may go where the filesystem
  // put it (device) before it asks the policy again, even if the zone has
  // room: a policy whose choice changes with a file's size (an info log's
  // first bytes fast, the rest slow) says when; UINT64_MAX (the default):
  // when the zone is full. Without it a file's first choice holds for a
  // whole zone.
  virtual uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) {
    static_cast<void>(request);
    static_cast<void>(device);
    return UINT64_MAX;
  }
  // Where the filesystem actually put the request (it may have spilled past
  // the policy's first choice).
  virtual void OnAllocated(const AllocationRequest& request, const DeviceSpace& device) {
    static_cast<void>(request);
    static_cast<void>(device);
  }
  // The filesystem moved the data of the file created at path to a device of
  // tier (migration), durably.
  virtual void OnMigrated(const std::string& path, Tier tier) {
    static_cast<void>(path);
    static_cast<void>(tier);
  }
  // The lifetime class of the request's file (0: none), asked once, before
  // its first byte goes to a device: within a ZoneRole, a zone holds files
  // of one lifetime class only, so that files expected to die together share
  // zones and a zone empties without GC. Classes 1-254 are the policy's.
  virtual uint8_t LifetimeClass(const AllocationRequest& request) {
    static_cast<void>(request);
    return 0;
  }
  // How many more bytes the filesystem is expected to write before the file
  // created at path is deleted, seen at write_clock; kLifeUnknown when the
  // policy cannot tell. GC weighs each zone's garbage by how long its live
  // bytes are expected to stay (LFS's cost-benefit with a predicted rather
  // than a past age): a zone whose survivors die soon frees itself, and
  // copying them is wasted. With no estimate for any file GC is greedy.
  static constexpr uint64_t kLifeUnknown = ~uint64_t{0};
  virtual uint64_t RemainingLife(const std::string& path, uint64_t write_clock) {
    static_cast<void>(path);
    static_cast<void>(write_clock);
    return kLifeUnknown;
  }
  // The file created at path was deleted (its last link went), size bytes
  // long, at write_clock: a policy that learns lifetimes learns from this.
  virtual void OnFileDeleted(const std::string& path, uint64_t size, uint64_t write_clock) {
    static_cast<void>(path);
    static_cast<void>(size);
    static_cast<void>(write_clock);
  }
  // The policy's view of the world as a JSON object ("{}" when it keeps none).
  virtual std::string StateJson() const { return "{}"; }
};

// Forwards every call to another policy: a decorator derives from it and
// overrides only what it changes.
class AllocationPolicyWrapper : public AllocationPolicy {
 public:
  explicit AllocationPolicyWrapper(std::shared_ptr<AllocationPolicy> target) : target_(std::move(target)) {}
  AllocationPolicy* target() const { return target_.get(); }

  std::string name() const override { return target_->name(); }
  ZoneRole RoleForNewFile(const std::string& path) override { return target_->RoleForNewFile(path); }
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override {
    target_->ChooseDevices(request, devices, order);
  }
  uint32_t ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) override {
    return target_->ReservedEmptyZones(device, role);
  }
  bool ZonePerFile(ZoneRole role, uint64_t zone_capacity) override {
    return target_->ZonePerFile(role, zone_capacity);
  }
  bool WritersShareZones(ZoneRole role) override { return target_->WritersShareZones(role); }
  bool MayUseReserve(const AllocationRequest& request) override { return target_->MayUseReserve(request); }
  void OnMount(const std::vector<DeviceSpace>& devices) override { target_->OnMount(devices); }
  void OnMountedFiles(const std::vector<MountedFile>& files) override { target_->OnMountedFiles(files); }
  uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) override {
    return target_->AskAgainAfter(request, device);
  }
  void OnAllocated(const AllocationRequest& request, const DeviceSpace& device) override {
    target_->OnAllocated(request, device);
  }
  void OnMigrated(const std::string& path, Tier tier) override { target_->OnMigrated(path, tier); }
  uint8_t LifetimeClass(const AllocationRequest& request) override { return target_->LifetimeClass(request); }
  uint64_t RemainingLife(const std::string& path, uint64_t write_clock) override {
    return target_->RemainingLife(path, write_clock);
  }
  void OnFileDeleted(const std::string& path, uint64_t size, uint64_t write_clock) override {
    target_->OnFileDeleted(path, size, write_clock);
  }
  std::string StateJson() const override { return target_->StateJson(); }

 private:
  std::shared_ptr<AllocationPolicy> target_;
};

// The default: every file is data; fast devices first, then slow ones.
class FastFirstPolicy : public AllocationPolicy {
 public:
  std::string name() const override { return "fast-first"; }
  ZoneRole RoleForNewFile(const std::string&) override { return ZoneRole::kData; }
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
};

}  // namespace hintfs

#endif  // HINTFS_FS_ALLOCATION_H_
