// ZonedDeviceWrapper forwards every call to the device it wraps, so that a
// decorator overrides only what it changes (device_figures.h).
#ifndef HINTFS_FS_DEVICE_ZONED_DEVICE_WRAPPER_H_
#define HINTFS_FS_DEVICE_ZONED_DEVICE_WRAPPER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fs/device/zoned_device.h"

namespace hintfs {

class ZonedDeviceWrapper : public ZonedDevice {
 public:
  explicit ZonedDeviceWrapper(std::unique_ptr<ZonedDevice> device) : device_(std::move(device)) {}

  std::string uri() const override { return device_->uri(); }
  const DeviceGeometry& geometry() const override { return device_->geometry(); }
  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    return device_->ReportZones(first, count, zones);
  }
  Status Read(uint64_t offset, size_t n, char* buf) override { return device_->Read(offset, n, buf); }
  const char* ReadView(uint64_t offset, size_t n) override { return device_->ReadView(offset, n); }
  Status Write(uint64_t offset, const char* data, size_t n) override {
    return device_->Write(offset, data, n);
  }
  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    return device_->Append(zone, data, n, written_offset);
  }
  Status OpenZone(uint32_t zone) override { return device_->OpenZone(zone); }
  Status CloseZone(uint32_t zone) override { return device_->CloseZone(zone); }
  Status FinishZone(uint32_t zone) override { return device_->FinishZone(zone); }
  Status ResetZone(uint32_t zone) override { return device_->ResetZone(zone); }
  Status Flush() override { return device_->Flush(); }
  double random_read_iops() const override { return device_->random_read_iops(); }
  double random_read_latency_us() const override { return device_->random_read_latency_us(); }
  double read_mib_per_s() const override { return device_->read_mib_per_s(); }
  uint64_t busy_ns() const override { return device_->busy_ns(); }
  uint64_t power_cycles() const override { return device_->power_cycles(); }
  Status SimulatePowerLoss(uint64_t seed) override { return device_->SimulatePowerLoss(seed); }

 protected:
  ZonedDevice* target() const { return device_.get(); }

 private:
  std::unique_ptr<ZonedDevice> device_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_ZONED_DEVICE_WRAPPER_H_
