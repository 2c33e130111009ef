#include "fs/device/fault_injection.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fs/device/zoned_device_wrapper.h"

namespace hintfs {

Status FaultInjector::CutPower() {
  std::lock_guard<std::mutex> l(mu_);
  if (powered_off_.exchange(true)) return Status::OK();
  Status result;
  uint64_t seed = plan_.power_cut_seed;
  for (ZonedDevice* d : devices_) {
    Status s = d->SimulatePowerLoss(seed++);
    if (!s.ok() && result.ok()) result = s;
  }
  return result;
}

void FaultInjector::Register(ZonedDevice* device) {
  std::lock_guard<std::mutex> l(mu_);
  devices_.push_back(device);
}

void FaultInjector::Unregister(ZonedDevice* device) {
  std::lock_guard<std::mutex> l(mu_);
  devices_.erase(std::remove(devices_.begin(), devices_.end(), device), devices_.end());
}

namespace {
std::mutex g_domains_mu;
std::map<std::string, std::shared_ptr<FaultInjector>>& Domains() {
  static auto* domains = new std::map<std::string, std::shared_ptr<FaultInjector>>();
  return *domains;
}
}  // namespace

std::shared_ptr<FaultInjector> PowerDomain(const std::string& name, const FaultPlan& plan) {
  std::lock_guard<std::mutex> l(g_domains_mu);
  auto& slot = Domains()[name];
  if (!slot) slot = std::make_shared<FaultInjector>(plan);
  return slot;
}

void ResetPowerDomain(const std::string& name) {
  std::lock_guard<std::mutex> l(g_domains_mu);
  Domains().erase(name);
}

class FaultInjectingDevice : public ZonedDeviceWrapper {
 public:
  FaultInjectingDevice(std::unique_ptr<ZonedDevice> device, std::shared_ptr<FaultInjector> injector)
      : ZonedDeviceWrapper(std::move(device)), f_(std::move(injector)) {
    f_->Register(target());
  }
  ~FaultInjectingDevice() override { f_->Unregister(target()); }

  // Reads in place would pass the injector by: every read goes through Read.
  const char* ReadView(uint64_t, size_t) override { return nullptr; }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    if (f_->powered_off()) return Dead();
    return target()->ReportZones(first, count, zones);
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    if (f_->powered_off()) return Dead();
    if (Hit(f_->reads_, f_->plan_.fail_read)) {
      return Status::IOError(fmt::format("injected read error at {}", offset));
    }
    return target()->Read(offset, n, buf);
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    Status s = BeforeWrite(offset);
    if (!s.ok()) return s;
    std::string corrupted;
    if (f_->corrupt_writes_ && n > 0) {
      corrupted.assign(data, n);
      corrupted[0] = static_cast<char>(corrupted[0] ^ 0x5a);
      data = corrupted.data();
    }
    s = target()->Write(offset, data, n);
    if (s.ok()) AfterWrite();
    return s;
  }

  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    Status s = BeforeWrite(geometry().zone_start(zone));
    if (!s.ok()) return s;
    s = target()->Append(zone, data, n, written_offset);
    if (s.ok()) AfterWrite();
    return s;
  }

  Status OpenZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return target()->OpenZone(zone);
  }
  Status CloseZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return target()->CloseZone(zone);
  }
  Status FinishZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    return target()->FinishZone(zone);
  }
  Status ResetZone(uint32_t zone) override {
    if (f_->powered_off()) return Dead();
    if (Hit(f_->resets_, f_->plan_.fail_reset)) {
      return Status::IOError(fmt::format("injected reset error on zone {}", zone));
    }
    return target()->ResetZone(zone);
  }
  Status Flush() override {
    if (f_->powered_off()) return Dead();
    f_->flushes_++;
    return target()->Flush();
  }

 private:
  static Status Dead() { return Status::IOError("device stopped (injected power cut or kill)"); }

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
    if (after != 0 && f_->writes_.load() >= after) f_->CutPower();
    uint64_t kill = f_->plan_.kill_after_writes;
    if (kill != 0 && f_->writes_.load() >= kill) f_->Kill();
  }

  std::shared_ptr<FaultInjector> f_;
};

std::unique_ptr<ZonedDevice> NewFaultInjectingDevice(std::unique_ptr<ZonedDevice> device,
                                                     std::shared_ptr<FaultInjector> injector) {
  return std::make_unique<FaultInjectingDevice>(std::move(device), std::move(injector));
}

}  // namespace hintfs
