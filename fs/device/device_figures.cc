#include "fs/device/device_figures.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>

#include <fmt/format.h>

#include "fs/device/zoned_device_wrapper.h"

namespace hintfs {

namespace {

// 1 when the file holds "1", 0 when "0", -1 when it cannot be read.
int ReadFlag(const std::string& path) {
  std::ifstream in(path);
  int flag = -1;
  if (!(in >> flag) || (flag != 0 && flag != 1)) return -1;
  return flag;
}

class FiguresDevice : public ZonedDeviceWrapper {
 public:
  FiguresDevice(std::unique_ptr<ZonedDevice> device, const TimingProfile& profile)
      : ZonedDeviceWrapper(std::move(device)), profile_(profile) {}

  double random_read_iops() const override { return profile_.RandomReadIops(1.0); }
  double random_read_latency_us() const override { return profile_.read_access_us; }
  double read_mib_per_s() const override { return profile_.read_mib_per_s; }

 private:
  const TimingProfile profile_;
};

}  // namespace

bool SysfsBlockDirRotates(const std::string& dir) {
  int flag = ReadFlag(dir + "/queue/rotational");
  // A partition's directory lies inside its disk's (the kernel resolves the
  // /sys/dev/block link before "..").
  if (flag < 0) flag = ReadFlag(dir + "/../queue/rotational");
  return flag == 1;
}

bool BlockDeviceRotates(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return false;
  return SysfsBlockDirRotates(fmt::format("/sys/dev/block/{}:{}", major(st.st_rdev), minor(st.st_rdev)));
}

const TimingProfile& NominalDiskProfile() {
  static const TimingProfile* profile = [] {
    auto* p = new TimingProfile;
    Status s = FindTimingProfile("st14000", p);
    static_cast<void>(s);  // a built-in profile
    return p;
  }();
  return *profile;
}

std::unique_ptr<ZonedDevice> WithFigures(std::unique_ptr<ZonedDevice> device, const TimingProfile& profile) {
  return std::make_unique<FiguresDevice>(std::move(device), profile);
}

}  // namespace hintfs
