// Small emulated devices in a power domain, for tests that cut the power or
// kill the "process" (drop the Filesystem without unmounting it).
#ifndef HINTFS_TESTS_FS_CRASH_FIXTURE_H_
#define HINTFS_TESTS_FS_CRASH_FIXTURE_H_

#include <string>

#include "fs/device/fault_injection.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace test {

class CrashFixture : public FsTest {
 protected:
  bool host_log_ = true;  // Options() mounts with the host log

  static FsGeometry Geometry() {
    FsGeometry g;
    g.fast = "zone_size=64KiB&zones=20";
    g.slow = "zone_size=64KiB&zones=24";
    return g;
  }

  // kill: the process dies but its writes stay; otherwise the power goes.
  MountOptions Options(const std::string& domain, uint64_t stop_after, bool kill = false) {
    MountOptions o;
    if (!host_log_) o.host_log_dir.clear();  // process-kill commits write unflushed device batches
    o.write_buffer_bytes = 16 << 10;
    o.device_params = "power_domain=" + domain;
    if (stop_after) {
      o.device_params += (kill ? "&kill_after=" : "&power_cut_after=") + std::to_string(stop_after);
    }
    return o;
  }
};

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_FS_CRASH_FIXTURE_H_
