#include "adapters/cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "fs/uri.h"

namespace hintfs {

ProgressBar::ProgressBar(std::string label, bool bytes)
    : label_(std::move(label)), bytes_(bytes), enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  double frac = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  int filled = static_cast<int>(frac * kWidth);
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::string counts = bytes_ ? HumanSize(done) + "/" + HumanSize(total)
                              : fmt::format("{}/{}", done, total);
  std::fprintf(stderr, "\r%s [%s] %3d%% %s   ", label_.c_str(), bar.c_str(),
               static_cast<int>(frac * 100), counts.c_str());
  std::fflush(stderr);
}

void ProgressBar::Finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace hintfs
