#include "fs/device/zoned_device.h"

#include <unistd.h>

#include <cerrno>

#include "fs/device/block_device.h"
#include "fs/device/device_figures.h"
#include "fs/device/emulated_device.h"
#include "fs/device/fault_injection.h"
#include "fs/device/kernel_zoned_device.h"
#include "fs/device/timing_profile.h"
#include "fs/uri.h"

namespace hintfs {

Status ZonedDevice::ReportZone(uint32_t zone, ZoneInfo* info) {
  std::vector<ZoneInfo> zones;
  Status s = ReportZones(zone, 1, &zones);
  if (s.ok()) *info = zones[0];
  return s;
}

Status ZonedDevice::SimulatePowerLoss(uint64_t) {
  return Status::NotSupported("power-loss simulation needs an emulated device");
}

namespace {

// The checks of CheckDeviceUri; fills *uri, the fault plan and the profile
// scale it names.
Status ParseDeviceUri(const std::string& text, DeviceUri* out, FaultPlan* out_plan, double* out_scale) {
  DeviceUri& uri = *out;
  FaultPlan& plan = *out_plan;
  Status s = DeviceUri::Parse(text, &uri);
  if (!s.ok()) return s;
  const bool emulated = uri.scheme == "file" || uri.scheme == "mem";
  const bool carved = uri.scheme == "blk";
  const bool kernel = uri.scheme == "zbd" || uri.scheme == "nvme";
  if (!emulated && !carved && !kernel) {
    return Status::NotSupported("device scheme '" + uri.scheme + "' (known: file, mem, blk, zbd, nvme)");
  }
  std::set<std::string> keys = {"profile", "profile_scale", "fail_read", "fail_write", "fail_reset",
                                "power_cut_after", "kill_after", "power_domain"};
  // A zoned drive's geometry is its own; emulated and carved devices take one.
  if (emulated || carved) {
    keys.insert({"zone_size", "zone_capacity", "zones", "conv_zones", "block_size", "max_open",
                 "max_active", "snapshot"});
  }
  if (emulated) keys.insert("sync");
  s = uri.CheckKeys(keys);
  if (!s.ok()) return s;

  // Validate the decorator options before touching (or creating) the device.
  if (!(s = uri.GetUint("fail_read", 0, &plan.fail_read)).ok()) return s;
  if (!(s = uri.GetUint("fail_write", 0, &plan.fail_write)).ok()) return s;
  if (!(s = uri.GetUint("fail_reset", 0, &plan.fail_reset)).ok()) return s;
  if (!(s = uri.GetUint("power_cut_after", 0, &plan.power_cut_after_writes)).ok()) return s;
  if (!(s = uri.GetUint("kill_after", 0, &plan.kill_after_writes)).ok()) return s;
  if (uri.Has("profile") && uri.GetString("profile", "") != "none") {
    TimingProfile profile;
    if (!(s = FindTimingProfile(uri.GetString("profile", ""), &profile)).ok()) return s;
  }
  return uri.GetDouble("profile_scale", 1.0, out_scale);
}

}  // namespace

Status CheckDeviceUri(const std::string& text) {
  DeviceUri uri;
  FaultPlan plan;
  double scale = 0;
  return ParseDeviceUri(text, &uri, &plan, &scale);
}

Status ForgetDeviceLayout(const std::string& text) {
  DeviceUri uri;
  Status s = DeviceUri::Parse(text, &uri);
  if (!s.ok()) return s;
  if (uri.scheme == "mem") DestroyMemDevice(uri.path);
  if (uri.scheme == "blk") {
    s = ForgetBlockDeviceLayout(uri);
    return s.IsNotFound() ? Status::OK() : s;
  }
  if (uri.scheme == "file" && ::unlink(uri.path.c_str()) != 0 && errno != ENOENT) {
    return Status::IOError(uri.path + ": cannot remove the image", errno);
  }
  return Status::OK();
}

Status OpenZonedDevice(const std::string& text, bool create, std::unique_ptr<ZonedDevice>* device) {
  DeviceUri uri;
  FaultPlan plan;
  double scale_override = 0;
  Status s = ParseDeviceUri(text, &uri, &plan, &scale_override);
  if (!s.ok()) return s;
  const bool emulated = uri.scheme == "file" || uri.scheme == "mem";
  TimingProfile profile;
  StoredProfile stored;
  std::unique_ptr<ZonedDevice> dev;
  if (emulated) {
    s = OpenEmulatedDevice(uri, create, &dev, &stored);
  } else if (uri.scheme == "blk") {
    s = OpenBlockDevice(uri, create, &dev, &stored);
  } else {
    std::unique_ptr<ZoneCommands> commands;
    s = uri.scheme == "zbd" ? OpenZbdCommands(uri.path, &commands) : OpenNvmeCommands(uri.path, &commands);
    if (s.ok()) s = NewKernelZonedDevice(uri.scheme + ":" + uri.path, std::move(commands), &dev);
  }
  if (!s.ok()) return s;

  // The URI's profile wins over the one stored with the device; "none" turns timing off.
  std::string profile_name = uri.Has("profile") ? uri.GetString("profile", "") : stored.name;
  double scale = uri.Has("profile_scale") ? scale_override : stored.scale;
  if (!profile_name.empty() && profile_name != "none") {
    if (!(s = FindTimingProfile(profile_name, &profile)).ok()) return s;
    dev = NewTimedDevice(std::move(dev), profile, scale);
  } else if ((uri.scheme == "zbd" || uri.scheme == "blk") && BlockDeviceRotates(uri.path)) {
    dev = WithFigures(std::move(dev), NominalDiskProfile());  // a real disk (device_figures.h)
  }
  if (uri.Has("power_domain")) {
    dev = NewFaultInjectingDevice(std::move(dev), PowerDomain(uri.GetString("power_domain", ""), plan));
  } else if (plan.fail_read || plan.fail_write || plan.fail_reset || plan.power_cut_after_writes ||
             plan.kill_after_writes) {
    dev = NewFaultInjectingDevice(std::move(dev), std::make_shared<FaultInjector>(plan));
  }
  *device = std::move(dev);
  return Status::OK();
}

bool SeekOutweighsTransfer(const ZonedDevice& device, uint64_t bytes) {
  const double bandwidth = device.read_mib_per_s() * 1024.0 * 1024.0;
  if (bandwidth <= 0) return false;
  return device.random_read_latency_us() > static_cast<double>(bytes) / bandwidth * 1e6;
}

}  // namespace hintfs
