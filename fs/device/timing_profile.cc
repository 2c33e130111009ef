#include "fs/device/timing_profile.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "fs/device/zoned_device_wrapper.h"

namespace hintfs {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TimingProfile Make(const char* name, const char* description, const char* source, double read_bw,
                   double write_bw, double read_qd1_iops, double write_access_us, int units,
                   uint64_t zone_capacity) {
  TimingProfile p;
  p.name = name;
  p.description = description;
  p.source = source;
  p.read_mib_per_s = read_bw;
  p.write_mib_per_s = write_bw;
  // The QD1 4 KiB random read rate includes the transfer; the rest is access.
  double per_io_us = 1e6 / read_qd1_iops;
  double transfer_us = 4096.0 / (read_bw * kMiB) * 1e6;
  p.read_access_us = std::max(0.0, per_io_us - transfer_us);
  p.write_access_us = write_access_us;
  p.parallel_units = units;
  p.zone_capacity_hint = zone_capacity;
  return p;
}

TimingProfile Rotating(TimingProfile p) {
  p.rotates = true;
  return p;
}

}  // namespace

const std::vector<TimingProfile>& BuiltinTimingProfiles() {
  static const auto* profiles = new std::vector<TimingProfile>{
      Make("zn540", "ZNS SSD, Western Digital Ultrastar DC ZN540",
           "HHZS Table 1 (seq 1039.6/1002.8 MiB/s, 16,928 4KiB QD1 random-read IOPS); "
           "write latency 20us and 8 parallel units assumed",
           1039.6, 1002.8, 16928, 20, 8, 1077ull << 20),
      Rotating(Make("st14000", "HM-SMR HDD, Seagate ST14000NM0007",
                    "HHZS Table 1 (seq 210/210 MiB/s, 115 4KiB QD1 random-read IOPS); a seek costs the "
                    "same for writes",
                    210, 210, 115, 1e6 / 115, 1, 256ull << 20)),
      Make("hotrap-nvme", "fast NVMe SSD of the HotRAP testbed",
           "HotRAP Table 6 (~5 GiB/s read, ~4 GiB/s write, ~98,000 16KiB IOPS with 16 threads): "
           "16 units of 163us per 16KiB read",
           5120, 4096, 98000.0 / 16, 20, 16, 0),
      Rotating(Make("hotrap-hdd", "slow HDD of the HotRAP testbed",
                    "HotRAP Table 6 (~260 MiB/s read, ~250 MiB/s write, ~400 16KiB IOPS with 16 threads)",
                    260, 250, 400, 1e6 / 400, 1, 0)),
      Make("hotrap-nitro", "local AWS Nitro SSD of HotRAP's main testbed (its fast disk)",
           "HotRAP Table 1 (~83,000 16KiB random-read IOPS with 16 threads, ~1.4 GiB/s read, "
           "~1.1 GiB/s write): 16 units of 193us per 16KiB read",
           1.4 * 1024, 1.1 * 1024, 83000.0 / 16, 20, 16, 0),
      Make("hotrap-gp3", "AWS gp3 volume of HotRAP's main testbed (its slow disk)",
           "HotRAP Table 1 (gp3 provisioned at 10,000 IOPS and 1,000 MiB/s; 10,000 16KiB "
           "random-read IOPS with 16 threads): 16 units of 1.6ms per read, writes as slow",
           1000, 1000, 10000.0 / 16, 1600, 16, 0),
      Make("pm9a3", "NVMe SSD, Samsung PM9A3 U.2 (HyperDB fast tier)",
           "Samsung PM9A3 datasheet figures: 6,500 MB/s seq read, 3,500 MB/s seq write, 900K/200K "
           "4KiB random read/write IOPS at high queue depth; QD1 read latency 80us assumed, 64 units",
           6500e6 / kMiB, 3500e6 / kMiB, 12500, 20, 64, 0),
      Make("s4610", "SATA SSD, Intel D3-S4610 class (HyperDB slow tier)",
           "Intel DC S4500/S4600 product specification (the D3-S4610's predecessor series): "
           "500/490 MB/s seq read/write, random 4KiB latency 110us read / 52us write (typ.), "
           "72K read IOPS at QD32; 8 units",
           500e6 / kMiB, 490e6 / kMiB, 1e6 / 110, 52, 8, 0),
  };
  return *profiles;
}

Status FindTimingProfile(const std::string& name, TimingProfile* profile) {
  std::string known;
  for (const TimingProfile& p : BuiltinTimingProfiles()) {
    if (p.name == name) {
      *profile = p;
      return Status::OK();
    }
    known += (known.empty() ? "" : ", ") + p.name;
  }
  return Status::NotFound("no timing profile '" + name + "' (known: " + known + ")");
}

namespace {

using Clock = std::chrono::steady_clock;

class TimedDevice : public ZonedDeviceWrapper {
 public:
  TimedDevice(std::unique_ptr<ZonedDevice> device, const TimingProfile& profile, double scale)
      : ZonedDeviceWrapper(std::move(device)),
        profile_(profile),
        scale_(scale),
        units_(static_cast<size_t>(std::max(1, profile.parallel_units)), Clock::now()),
        channel_free_(Clock::now()),
        trace_(std::getenv("HINTFS_DEVICE_TRACE") != nullptr) {}

  ~TimedDevice() override {
    if (std::getenv("HINTFS_DEVICE_TRACE") == nullptr) return;
    static const char* const kNames[kClasses] = {"read <=16KiB", "read <=256KiB", "read >256KiB",
                                                 "write <=16KiB", "write <=256KiB", "write >256KiB"};
    for (int c = 0; c < kClasses; c++) {
      const RequestClass& r = classes_[c];
      fmt::print(stderr, "device trace {} {}: {} requests, {} with access latency, {} bytes, {:.1f} ms, "
                 "{:.1f} ms from arrival to completion, {:.1f} ms woken late\n",
                 uri(), kNames[c], r.requests, r.accesses, r.bytes, r.service_us / 1000.0,
                 r.response_us / 1000.0, r.late_us / 1000.0);
    }
  }

  double random_read_iops() const override { return profile_.RandomReadIops(scale_); }
  double random_read_latency_us() const override { return profile_.read_access_us / scale_; }
  double read_mib_per_s() const override { return profile_.read_mib_per_s * scale_; }
  uint64_t busy_ns() const override {
    std::lock_guard<std::mutex> l(mu_);
    return busy_ns_;
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    Status s = target()->Read(offset, n, buf);
    Wait(offset, n, /*is_write=*/false);
    return s;
  }
  // Every read takes its time: none is served in place.
  const char* ReadView(uint64_t, size_t) override { return nullptr; }
  Status Write(uint64_t offset, const char* data, size_t n) override {
    Status s = target()->Write(offset, data, n);
    if (s.ok()) Wait(offset, n, /*is_write=*/true);
    return s;
  }
  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    Status s = target()->Append(zone, data, n, written_offset);
    if (s.ok()) Wait(*written_offset, n, /*is_write=*/true);
    return s;
  }

 private:
  void Wait(uint64_t offset, size_t n, bool is_write) {
    Clock::time_point done;
    RequestClass* rc_out;
    {
      std::lock_guard<std::mutex> l(mu_);
      Clock::time_point now = Clock::now();
      uint64_t& last_end = is_write ? last_write_end_ : last_read_end_;
      bool sequential = offset == last_end;
      const uint64_t skipped_from = last_end;
      last_end = offset + n;
      double access_us = sequential ? 0 : (is_write ? profile_.write_access_us
                                                    : profile_.read_access_us);
      double bw = (is_write ? profile_.write_mib_per_s : profile_.read_mib_per_s) * kMiB;
      // A short skip forward costs the time the skipped bytes take to pass
      // under the head, not a seek: on a disk, a table's zone a few blocks
      // past where the last one ended (docs/benchmarks.md).
      if (profile_.rotates && !sequential && skipped_from != UINT64_MAX && offset > skipped_from) {
        access_us = std::min(access_us, static_cast<double>(offset - skipped_from) / bw * 1e6);
      }
      double transfer_us = static_cast<double>(n) / bw * 1e6;
      RequestClass& rc = classes_[(is_write ? 3 : 0) + (n <= (16u << 10) ? 0 : n <= (256u << 10) ? 1 : 2)];
      rc_out = &rc;
      rc.requests++;
      rc.accesses += access_us > 0;
      rc.bytes += n;
      rc.service_us += (access_us + transfer_us) / scale_;
      auto unit = std::min_element(units_.begin(), units_.end());
      Clock::time_point start = std::max(now, *unit);
      Clock::time_point accessed = start + Duration(access_us);
      *unit = accessed;
      // The data channel is shared by all units.
      Clock::time_point transfer_start = std::max(accessed, channel_free_);
      channel_free_ = transfer_start + Duration(transfer_us);
      done = channel_free_;
      rc.response_us += std::chrono::duration<double, std::micro>(done - now).count();
      // Busy time is the union of the requests' [arrival, done] spans.
      Clock::time_point counted_from = std::max(now, busy_until_);
      if (done > counted_from) {
        busy_ns_ += static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(done - counted_from).count());
        busy_until_ = done;
      }
    }
    // Linux wakes a sleeping thread up to its timer slack (50us by default)
    // late, which is most of a fast SSD's modelled latency: ask for none.
    static thread_local const bool kNoSlack = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
    static_cast<void>(kNoSlack);
    std::this_thread::sleep_until(done);
    // How late the sleeper woke (a busy CPU, timer slack): time the model
    // did not ask for, which a benchmark on a small machine should know of.
    // Only when tracing from the open on: it costs a second lock per request.
    if (!trace_) return;
    const double late_us = std::chrono::duration<double, std::micro>(Clock::now() - done).count();
    std::lock_guard<std::mutex> l(mu_);
    rc_out->late_us += late_us;
  }

  Clock::duration Duration(double us) const {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::micro>(us / scale_));
  }

  TimingProfile profile_;
  double scale_;
  mutable std::mutex mu_;
  std::vector<Clock::time_point> units_;
  Clock::time_point busy_until_;
  uint64_t busy_ns_ = 0;
  Clock::time_point channel_free_;
  const bool trace_;  // HINTFS_DEVICE_TRACE was set at open: count late wake-ups
  uint64_t last_read_end_ = UINT64_MAX;
  uint64_t last_write_end_ = UINT64_MAX;
  // HINTFS_DEVICE_TRACE's counts (timing_profile.h).
  struct RequestClass {
    uint64_t requests = 0, accesses = 0, bytes = 0;
    double service_us = 0;
    double response_us = 0;  // queueing included, as run (scaled)
    double late_us = 0;      // woken after the modelled completion
  };
  static constexpr int kClasses = 6;
  RequestClass classes_[kClasses];
};

}  // namespace

std::unique_ptr<ZonedDevice> NewTimedDevice(std::unique_ptr<ZonedDevice> device,
                                            const TimingProfile& profile, double scale) {
  return std::make_unique<TimedDevice>(std::move(device), profile, scale);
}

}  // namespace hintfs
