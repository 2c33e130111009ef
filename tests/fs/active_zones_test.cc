// The device's limit on active zones holds even when the filesystem's own
// count misses a zone: a write that fails midway leaves its zone open on the
// device while the filesystem never writes into it again.
#include <gtest/gtest.h>

#include "fs/device/fault_injection.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

class ActiveZonesTest : public test::FsTest {
 protected:
  // One file written in three synced steps (an injected failure may cut it
  // short), then two files written side by side. Returns the first error of
  // the two, which must never be the device refusing an active zone.
  Status Scenario() {
    std::mt19937_64 rng(5);
    {
      std::unique_ptr<FileWriter> a;
      if (fs_->OpenWriter("/a", WriteMode::kTruncate, &a).ok()) {
        for (int i = 0; i < 3; i++) {
          if (!a->Append(Random(&rng, 8192)).ok() || !a->Sync().ok()) break;
        }
        (void)a->Close();
      }
    }
    std::unique_ptr<FileWriter> b, c;
    Status s = fs_->OpenWriter("/b", WriteMode::kTruncate, &b);
    if (s.ok()) s = fs_->OpenWriter("/c", WriteMode::kTruncate, &c);
    for (int i = 0; s.ok() && i < 2; i++) {
      for (FileWriter* w : {b.get(), c.get()}) {
        if (s.ok()) s = w->Append(Random(&rng, 8192));
        if (s.ok()) s = w->Sync();
      }
    }
    if (b) (void)b->Close();
    if (c) (void)c->Close();
    return s;
  }
  void FormatAndMount(const std::string& domain, uint64_t fail_write) {
    test::FsGeometry g;
    g.fast = "zone_size=256KiB&zones=24&max_open=3&max_active=3";
    Format(g);
    fs_.reset();
    MountOptions o;
    o.device_params = "power_domain=" + domain;
    if (fail_write) o.device_params += "&fail_write=" + std::to_string(fail_write);
    Mount(o);
  }
};

TEST_F(ActiveZonesTest, AWriteThatFailedMidZoneDoesNotExhaustThem) {
  std::string domain = test::UniqueName("act");
  FormatAndMount(domain, 0);
  ASSERT_OK(Scenario());
  uint64_t total = PowerDomain(domain, FaultPlan())->writes();
  fs_.reset();
  ResetPowerDomain(domain);
  ASSERT_GE(total, 6u);
  for (uint64_t k = 1; k <= total; k++) {
    domain = test::UniqueName("act");
    FormatAndMount(domain, k);
    Status s = Scenario();
    EXPECT_FALSE(s.IsBusy()) << "write " << k << " failed: " << s.ToString();
    fs_.reset();
    ResetPowerDomain(domain);
    Mount();
    ExpectClean();
  }
}

}  // namespace
}  // namespace hintfs
