#include "placement/lifetime_policy.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hints/file_kind.h"

namespace hintfs {

namespace {

// The model lives in attributes of at most kMaxAttributeValue bytes each:
// "lifetime.model.parts" says how many, "lifetime.model.N" hold them.
constexpr const char* kPartsAttribute = "lifetime.model.parts";
std::string PartAttribute(size_t i) { return "lifetime.model." + std::to_string(i); }

}  // namespace

LifetimePolicy::LifetimePolicy(std::string name, std::shared_ptr<AllocationPolicy> target,
                               std::shared_ptr<HintBus> bus, LifetimeMode mode)
    : AllocationPolicyWrapper(std::move(target)), name_(std::move(name)), mode_(mode) {
  if (mode_ != LifetimeMode::kLearned) return;
  features_ = std::make_unique<LifetimeFeatureSource>(std::move(bus));
  trainer_ = std::thread([this] { TrainLoop(); });
}

LifetimePolicy::~LifetimePolicy() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (trainer_.joinable()) trainer_.join();
}

void LifetimePolicy::OnMount(const std::vector<DeviceSpace>& devices) {
  for (const DeviceSpace& d : devices) {
    if (d.zone_capacity == 0) continue;
    std::lock_guard<std::mutex> l(mu_);
    zone_capacity_ = std::max(zone_capacity_, d.zone_capacity);
  }
  // Counters remember the last few zones' worth of writes.
  if (features_ != nullptr && zone_capacity_ != 0) features_->SetHalfLife(4 * zone_capacity_);
  AllocationPolicyWrapper::OnMount(devices);
}

void LifetimePolicy::ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                                   std::vector<uint32_t>* order) {
  uint64_t free = 0, total = 0;
  for (const DeviceSpace& d : devices) {
    free += d.free_bytes;
    total += static_cast<uint64_t>(d.total_zones) * d.zone_capacity;
  }
  if (features_ != nullptr && total != 0) {
    features_->SetFreeFraction(static_cast<double>(free) / static_cast<double>(total));
  }
  AllocationPolicyWrapper::ChooseDevices(request, devices, order);
}

uint8_t LifetimePolicy::LifetimeClass(const AllocationRequest& request) {
  // Zones follow the rule in both modes: the model's classes as zone
  // classes relocated 1.4-1.8x what the rule does (docs/benchmarks.md). GC
  // reads the rule class's lifetimes (RemainingLife); the model's
  // prediction is recorded to be scored when the file dies.
  const int hint = request.lifetime_hint < 0 ? 0 : (request.lifetime_hint > 5 ? 5 : request.lifetime_hint);
  uint8_t rule_class = static_cast<uint8_t>(kRuleClassBase + hint);
  // RocksDB gives its blob files the hint of the tables their job writes,
  // yet under BlobDB's GC they lived about three times as long as those
  // tables (docs/benchmarks.md): learned mode keeps them in zones, and
  // lifetime histories, of their own.
  if (mode_ == LifetimeMode::kLearned && IsBlobFile(request.path)) rule_class += kBlobClassOffset;
  if (features_ == nullptr) {
    std::lock_guard<std::mutex> l(mu_);
    classed_files_++;
    return rule_class;
  }
  FileRecord rec;
  rec.features = features_->OnCreated(request);
  rec.birth = request.write_clock;
  rec.rule_class = rule_class;
  std::lock_guard<std::mutex> l(mu_);
  classed_files_++;
  clock_ = std::max(clock_, request.write_clock);
  // The model predicts for a store's tables and logs; its other files (and
  // hintfs's own, as the block indexes) carry no level, job or kind worth
  // learning from.
  if (model_ != nullptr && !std::isnan(rec.features[kFeatureLevel])) {
    rec.predicted = model_->Predict(rec.features);
    predicted_files_++;
  }
  files_[request.path] = rec;
  return rule_class;
}

uint64_t LifetimePolicy::RemainingLife(const std::string& path, uint64_t write_clock) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return kLifeUnknown;
  auto history = histories_.find(it->second.rule_class);
  if (history == histories_.end()) return kLifeUnknown;
  const uint64_t age = write_clock - std::min(write_clock, it->second.birth);
  const uint64_t remaining = history->second.ExpectedRemaining(age);
  return remaining == LifetimeHistory::kUnknown ? kLifeUnknown : remaining;
}

void LifetimePolicy::OnFileDeleted(const std::string& path, uint64_t size, uint64_t write_clock) {
  static_cast<void>(size);
  if (features_ == nullptr) return;  // the rule learns nothing
  std::unique_lock<std::mutex> l(mu_);
  clock_ = std::max(clock_, write_clock);
  auto it = files_.find(path);
  if (it == files_.end()) return;  // created before this mount, or never written
  const FileRecord rec = it->second;
  files_.erase(it);
  const uint64_t lifetime = write_clock - std::min(write_clock, rec.birth);
  if (rec.predicted >= 0 && model_ != nullptr) {
    const int actual = model_->ClassOf(lifetime);
    predicted_deaths_++;
    if (actual == rec.predicted) predicted_right_++;
    if (actual == rec.predicted - 1 || actual == rec.predicted + 1) predicted_one_off_++;
  }
  histories_[rec.rule_class].Add(lifetime);
  l.unlock();
  features_->OnDied(rec.features, lifetime, write_clock);
  if (std::isnan(rec.features[kFeatureLevel])) return;
  l.lock();
  LifetimeSample sample;
  sample.features = rec.features;
  sample.lifetime = lifetime;
  deaths_.push_back(sample);
  if (deaths_.size() > kWindow) deaths_.pop_front();
  if (++deaths_since_training_ >= retrain_after_) wake_.notify_one();
}

void LifetimePolicy::TrainLoop() {
  // Training is background work: the store's own threads come first (Linux
  // gives each thread its own nice value).
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_) {
    wake_.wait(l, [this] { return stop_ || deaths_since_training_ >= retrain_after_; });
    if (stop_) break;
    TrainLocked(&l);
  }
}

Status LifetimePolicy::TrainNow() {
  std::unique_lock<std::mutex> l(mu_);
  return TrainLocked(&l);
}

Status LifetimePolicy::TrainLocked(std::unique_lock<std::mutex>* lock) {
  deaths_since_training_ = 0;
  std::vector<LifetimeSample> samples(deaths_.begin(), deaths_.end());
  // Files alive now teach that some live long (DumpKV labels files GC finds
  // alive so); Train keeps those that outlived the last split point.
  for (const auto& [path, rec] : files_) {
    LifetimeSample s;
    s.features = rec.features;
    s.lifetime = clock_ - std::min(clock_, rec.birth);
    s.alive = true;
    samples.push_back(s);
  }
  lock->unlock();
  // One training at a time (the trainer's and TrainNow's), so that the
  // model saved last is the one in use.
  std::lock_guard<std::mutex> one_at_a_time(train_mu_);
  const auto start = std::chrono::steady_clock::now();
  auto model = std::make_shared<LifetimeModel>();
  Status s = LifetimeModel::Train(samples, model.get());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (s.ok()) SaveModel(*model);
  lock->lock();
  training_ms_ = ms;
  if (!s.ok()) {
    training_failures_++;
    return s;
  }
  trainings_++;
  retrain_after_ = kRetrainEvery;
  model_ = std::move(model);
  return s;
}

void LifetimePolicy::SaveModel(const LifetimeModel& m) {
  std::lock_guard<std::mutex> l(store_mu_);
  if (store_ == nullptr) return;
  const std::string bytes = m.Encode();
  size_t parts = 0;
  Status s;
  for (size_t off = 0; s.ok() && off < bytes.size(); off += kMaxAttributeValue, parts++) {
    s = store_->SetAttribute(PartAttribute(parts), bytes.substr(off, kMaxAttributeValue));
  }
  if (s.ok()) s = store_->SetAttribute(kPartsAttribute, std::to_string(parts));
  if (!s.ok()) fmt::print(stderr, "hintfs: {}: lifetime model not saved: {}\n", name_, s.ToString());
}

void LifetimePolicy::AttachStore(Filesystem* fs) {
  {
    std::lock_guard<std::mutex> l(store_mu_);
    store_ = fs;
  }
  if (mode_ != LifetimeMode::kLearned) return;
  const std::map<std::string, std::string> attrs = fs->Attributes();
  auto parts = attrs.find(kPartsAttribute);
  if (parts == attrs.end()) return;  // none saved yet
  std::string bytes;
  Status s;
  const size_t count = parts->second.size() <= 3 ? std::strtoul(parts->second.c_str(), nullptr, 10) : 0;
  for (size_t i = 0; i < count; i++) {
    auto it = attrs.find(PartAttribute(i));
    if (it == attrs.end()) {
      s = Status::Corruption("lifetime model: part " + std::to_string(i) + " missing");
      break;
    }
    bytes += it->second;
  }
  auto model = std::make_shared<LifetimeModel>();
  if (s.ok()) s = LifetimeModel::Decode(bytes, model.get());
  std::lock_guard<std::mutex> l(mu_);
  if (!s.ok()) {
    load_warning_ = s.ToString() + "; the hint rule applies until a new model is trained";
    fmt::print(stderr, "hintfs: {}: {}\n", name_, load_warning_);
    return;
  }
  model_ = std::move(model);
}

void LifetimePolicy::DetachStore() {
  std::lock_guard<std::mutex> l(store_mu_);
  store_ = nullptr;
}

LifetimeModel LifetimePolicy::model() const {
  std::lock_guard<std::mutex> l(mu_);
  return model_ != nullptr ? *model_ : LifetimeModel();
}

std::string LifetimePolicy::StateJson() const {
  nlohmann::json j = nlohmann::json::parse(AllocationPolicyWrapper::StateJson(), nullptr, false);
  if (!j.is_object()) j = nlohmann::json::object();
  std::lock_guard<std::mutex> l(mu_);
  nlohmann::json t;
  t["mode"] = mode_ == LifetimeMode::kLearned ? "learned" : "hint";
  t["files_classed"] = classed_files_;
  t["files_predicted"] = predicted_files_;
  t["trainings"] = trainings_;
  t["training_failures"] = training_failures_;
  t["last_training_ms"] = training_ms_;
  t["deaths_in_window"] = deaths_.size();
  t["predicted_deaths"] = predicted_deaths_;
  t["accuracy"] = predicted_deaths_ == 0 ? 0.0 : static_cast<double>(predicted_right_) / predicted_deaths_;
  t["within_one_class"] =
      predicted_deaths_ == 0 ? 0.0 : static_cast<double>(predicted_right_ + predicted_one_off_) / predicted_deaths_;
  if (model_ != nullptr) {
    for (int i = 0; i < LifetimeModel::kClasses - 1; i++) t["split_points"].push_back(model_->SplitPoint(i));
    t["trees"] = model_->trees();
  }
  if (!load_warning_.empty()) t["warning"] = load_warning_;
  j["lifetime"] = t;
  return j.dump();
}

LifetimePolicy* LifetimePolicyOf(AllocationPolicy* policy) {
  return dynamic_cast<LifetimePolicy*>(policy);
}

}  // namespace hintfs
