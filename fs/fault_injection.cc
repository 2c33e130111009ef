#include "fs/fault_injection.h"

#include <fmt/format.h>

namespace hintfs {

Status FaultInjector::CutPower(ZonedDevice* device) {
  if (powered_off_.exchange(true)) return Status::OK();
  return device->SimulatePowerLoss(plan_.power_cut_seed);
}

class FaultInjectingDevice : public ZonedDevice {
 public:
  FaultInjectingDevice(std::unique_ptr<ZonedDevice> device, std::shared_ptr<FaultInjector> injector)
      : device_(std::move(device)), f_(std::move(injector)) {}

  std::string uri() const override { return device_->uri(); }
  const DeviceGeometry& geometry() const override { return device_->geometry(); }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    if (f_->powered_off()) return Dead();
    return device_->ReportZones(first, count, zones);
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    if (f_->powered_off()) return Dead();
    if (Hit(f_->reads_, f_->plan_.fail_read)) {
      return Status::IOError(fmt::format("injected read error at {}", offset));
    }
    return device_->Read(offset, n, buf);
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    Status s = BeforeWrite(offset);
    if (!s.ok()) return s;
    s = device_->Write(offset, data, n);
    if (s.ok()) AfterWrite();
    return s;
  }

  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    Status s = BeforeWrite(geometry().zone_start(zone));
    if (!s.ok()) return s;
    s = device_->Append(zone, data, n, written_offset);
    if (s.ok()) AfterWrite();
    return s;
  }

  Status OpenZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return device_->OpenZone(zone);
  }
  Status CloseZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return device_->CloseZone(zone);
  }
  Status FinishZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return device_->FinishZone(zone);
  }
  Status ResetZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    if (Hit(f_->resets_, f_->plan_.fail_reset)) {
      return Status::IOError(fmt::format("injected reset error on zone {}", zone));
    }
    return device_->ResetZone(zone);
  }
  Status Flush() override {
    if (f_->powered_off()) return Dead();
    f_->flushes_++;
    return device_->Flush();
  }
  Status SimulatePowerLoss(uint64_t seed) override { return device_->SimulatePowerLoss(seed); }

 private:
  static Status Dead() { return Status::IOError("device lost power (injected)"); }

  // Counts an operation; true when it is the one planned to fail.
  static bool Hit(std::atomic<uint64_t>& counter, uint64_t planned) {
    uint64_t n = ++counter;
    return planned != 0 && n == planned;
  }

  Status BeforeWrite(uint64_t offset) {
    if (f_->powered_off()) return Dead();
    if (Hit(f_->writes_, f_->plan_.fail_write)) {
      return Status::IOError(fmt::format("injected write error at {}", offset));
    }
    return Status::OK();
  }

  void AfterWrite() {
    uint64_t after = f_->plan_.power_cut_after_writes;
    if (after != 0 && f_->writes_.load() >= after) f_->CutPower(device_.get());
  }

  std::unique_ptr<ZonedDevice> device_;
  std::shared_ptr<FaultInjector> f_;
};

std::unique_ptr<ZonedDevice> NewFaultInjectingDevice(std::unique_ptr<ZonedDevice> device,
                                                     std::shared_ptr<FaultInjector> injector) {
  return std::make_unique<FaultInjectingDevice>(std::move(device), std::move(injector));
}

}  // namespace hintfs
