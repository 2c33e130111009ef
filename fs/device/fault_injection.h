// Fault injection for crash and error-path tests, as a decorator over any
// ZonedDevice:
//
//   fail_read=N / fail_write=N / fail_reset=N   the Nth such operation (1-based)
//                                               fails with EIO, once
//   power_cut_after=N                           after N successful writes the
//                                               device loses power: unflushed
//                                               writes are dropped and every
//                                               later operation fails with EIO
//   kill_after=N                                after N successful writes the
//                                               device stops, keeping every
//                                               write: a killed process whose
//                                               writes reached the page cache
//   power_domain=NAME                           devices naming the same domain
//                                               share one injector: counts are
//                                               domain-wide and a power cut hits
//                                               them all at once, like a machine
//                                               losing power
//
// The same controls are available programmatically through FaultInjector,
// which tests keep a pointer to.
#ifndef HINTFS_FS_DEVICE_FAULT_INJECTION_H_
#define HINTFS_FS_DEVICE_FAULT_INJECTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/device/zoned_device.h"

namespace hintfs {

struct FaultPlan {
  uint64_t fail_read = 0;   // 0: never
  uint64_t fail_write = 0;
  uint64_t fail_reset = 0;
  uint64_t power_cut_after_writes = 0;
  uint64_t kill_after_writes = 0;
  uint64_t power_cut_seed = 1;  // picks which unflushed writes survive the cut
};

class FaultInjector {
 public:
  explicit FaultInjector(const FaultPlan& plan) : plan_(plan) {}

  // Cuts power to every device of the injector now (unflushed writes
  // dropped, later I/O fails).
  Status CutPower();
  // Stops every device now without dropping anything (process death).
  void Kill() { powered_off_ = true; }
  // While on, every write succeeds but stores its first byte flipped: a
  // device that silently corrupts data (what checksums are for).
  void CorruptWrites(bool on) { corrupt_writes_ = on; }
  bool powered_off() const { return powered_off_.load(); }
  uint64_t writes() const { return writes_.load(); }
  uint64_t flushes() const { return flushes_.load(); }

 private:
  friend class FaultInjectingDevice;
  void Register(ZonedDevice* device);
  void Unregister(ZonedDevice* device);

  FaultPlan plan_;
  std::atomic<uint64_t> reads_{0}, writes_{0}, resets_{0}, flushes_{0};
  std::atomic<bool> powered_off_{false};
  std::atomic<bool> corrupt_writes_{false};
  std::mutex mu_;
  std::vector<ZonedDevice*> devices_;  // the undecorated devices
};

// The injector shared by every device of a power domain; plan is used when
// the domain is new.
std::shared_ptr<FaultInjector> PowerDomain(const std::string& name, const FaultPlan& plan);
// Forgets a domain, so a later device naming it starts with fresh counters.
void ResetPowerDomain(const std::string& name);

// Wraps device; injector (shared with the caller) holds the plan and counters.
std::unique_ptr<ZonedDevice> NewFaultInjectingDevice(std::unique_ptr<ZonedDevice> device,
                                                     std::shared_ptr<FaultInjector> injector);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_FAULT_INJECTION_H_
