#include "placement/lifetime_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

constexpr char kMagic[4] = {'L', 'T', 'M', '1'};
// Small trees, few rounds: the classes are coarse, the window is a few
// thousand files, and the model must fit the filesystem's attributes.
constexpr int kRounds = 10;
constexpr const char* kMaxDepth = "3";
constexpr size_t kMaxNodes = 1 << 16;

// Frees an xgboost handle when it goes out of scope.
template <typename Handle, int (*Free)(Handle)>
struct XgbHandle {
  Handle h = nullptr;
  ~XgbHandle() {
    if (h != nullptr) Free(h);
  }
};

Status XgbError(const char* what) { return Status::IOError(std::string("xgboost ") + what + ": " + XGBGetLastError()); }

}  // namespace

int LifetimeModel::ClassOf(uint64_t lifetime) const {
  int c = 0;
  while (c < kClasses - 1 && lifetime >= splits_[c]) c++;
  return c;
}

int LifetimeModel::Predict(const LifetimeFeatures& features) const {
  if (roots_.empty()) return 0;
  double margin[kClasses] = {};
  for (size_t t = 0; t < roots_.size(); t++) {
    const Node* n = &nodes_[roots_[t]];
    while (n->left >= 0) {
      const float x = features[n->feature];
      const bool left = std::isnan(x) ? n->default_left : x < n->value;
      n = &nodes_[roots_[t] + static_cast<uint32_t>(left ? n->left : n->right)];
    }
    margin[tree_class_[t]] += n->value;
  }
  return static_cast<int>(std::max_element(margin, margin + kClasses) - margin);
}

void LifetimeModel::SplitAtClusters(const std::vector<uint64_t>& sorted) {
  // One-dimensional k-means on log2 lifetimes, started at the quantiles:
  // files of different levels live for times an order of magnitude apart,
  // and a split point between two clusters keeps each level's files in one
  // class (quantiles cut through the middle of the most common level).
  std::vector<double> logs(sorted.size());
  for (size_t i = 0; i < sorted.size(); i++) logs[i] = std::log2(static_cast<double>(sorted[i]) + 1);
  double centers[kClasses];
  for (int c = 0; c < kClasses; c++) centers[c] = logs[(2 * c + 1) * logs.size() / (2 * kClasses)];
  for (int round = 0; round < 20; round++) {
    double sum[kClasses] = {};
    size_t count[kClasses] = {};
    for (double x : logs) {
      int c = 0;
      while (c < kClasses - 1 && x > (centers[c] + centers[c + 1]) / 2) c++;
      sum[c] += x;
      count[c]++;
    }
    for (int c = 0; c < kClasses; c++) {
      if (count[c] != 0) centers[c] = sum[c] / static_cast<double>(count[c]);
    }
    std::sort(centers, centers + kClasses);
  }
  for (int i = 0; i < kClasses - 1; i++) {
    splits_[i] = static_cast<uint64_t>(std::exp2((centers[i] + centers[i + 1]) / 2));
  }
}

Status LifetimeModel::Train(const std::vector<LifetimeSample>& samples, LifetimeModel* model) {
  std::vector<uint64_t> dead;
  for (const LifetimeSample& s : samples) {
    if (!s.alive) dead.push_back(s.lifetime);
  }
  if (dead.size() < kMinSamples) return Status::InvalidArgument("too few deaths to learn lifetimes from");
  std::sort(dead.begin(), dead.end());
  LifetimeModel m;
  m.SplitAtClusters(dead);
  if (m.splits_[0] == m.splits_[kClasses - 2]) return Status::InvalidArgument("every lifetime is alike");
  std::vector<float> rows, labels;
  std::vector<std::vector<uint64_t>> per_class(kClasses);
  for (const LifetimeSample& s : samples) {
    // A live file counts only once it is known to be in the longest class.
    if (s.alive && s.lifetime < m.splits_[kClasses - 2]) continue;
    const int c = m.ClassOf(s.lifetime);
    rows.insert(rows.end(), s.features.begin(), s.features.end());
    labels.push_back(static_cast<float>(c));
    per_class[c].push_back(s.lifetime);
  }
  for (int c = 0; c < kClasses; c++) {
    auto& v = per_class[c];
    if (v.empty()) continue;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    m.typical_[c] = v[v.size() / 2];
  }
  XgbHandle<DMatrixHandle, XGDMatrixFree> data;
  if (XGDMatrixCreateFromMat(rows.data(), labels.size(), kLifetimeFeatures, NAN, &data.h) != 0 ||
      XGDMatrixSetFloatInfo(data.h, "label", labels.data(), labels.size()) != 0) {
    return XgbError("training data");
  }
  XgbHandle<BoosterHandle, XGBoosterFree> booster;
  if (XGBoosterCreate(&data.h, 1, &booster.h) != 0) return XgbError("booster");
  const std::string classes = std::to_string(kClasses);
  const std::pair<const char*, const char*> params[] = {
      {"objective", "multi:softprob"}, {"num_class", classes.c_str()}, {"max_depth", kMaxDepth},
      {"eta", "0.3"}, {"nthread", "1"}, {"verbosity", "0"}, {"tree_method", "exact"}};
  for (const auto& [key, value] : params) {
    if (XGBoosterSetParam(booster.h, key, value) != 0) return XgbError("parameters");
  }
  for (int i = 0; i < kRounds; i++) {
    if (XGBoosterUpdateOneIter(booster.h, i, data.h) != 0) return XgbError("training");
  }
  bst_ulong len = 0;
  const char* json = nullptr;
  if (XGBoosterSaveModelToBuffer(booster.h, R"({"format": "json"})", &len, &json) != 0) return XgbError("model dump");
  Status s = m.LoadXgboostJson(std::string(json, len));
  if (s.ok()) *model = std::move(m);
  return s;
}

Status LifetimeModel::LoadXgboostJson(const std::string& json) {
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    const auto& gbm = j.at("learner").at("gradient_booster").at("model");
    const auto& info = gbm.at("tree_info");
    const auto& trees = gbm.at("trees");
    for (size_t t = 0; t < trees.size(); t++) {
      const auto& tree = trees[t];
      const auto& left = tree.at("left_children");
      const auto& right = tree.at("right_children");
      const auto& feature = tree.at("split_indices");
      const auto& value = tree.at("split_conditions");
      const auto& default_left = tree.at("default_left");
      roots_.push_back(static_cast<uint32_t>(nodes_.size()));
      tree_class_.push_back(static_cast<uint8_t>(info.at(t).get<int>()));
      for (size_t i = 0; i < left.size(); i++) {
        Node n;
        n.left = left.at(i).get<int32_t>();
        n.right = right.at(i).get<int32_t>();
        n.feature = static_cast<uint16_t>(feature.at(i).get<int>());
        n.default_left = default_left.at(i).get<int>() != 0;
        n.value = value.at(i).get<float>();
        nodes_.push_back(n);
      }
    }
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("xgboost model dump: ") + e.what());
  }
  return Status::OK();
}

std::string LifetimeModel::Encode() const {
  std::string body;
  for (uint64_t v : splits_) PutFixed64(&body, v);
  for (uint64_t v : typical_) PutFixed64(&body, v);
  PutFixed32(&body, static_cast<uint32_t>(roots_.size()));
  for (size_t t = 0; t < roots_.size(); t++) {
    const uint32_t end = t + 1 < roots_.size() ? roots_[t + 1] : static_cast<uint32_t>(nodes_.size());
    PutFixed16(&body, tree_class_[t]);
    PutFixed32(&body, end - roots_[t]);
    for (uint32_t i = roots_[t]; i < end; i++) {
      const Node& n = nodes_[i];
      uint32_t bits = 0;
      std::memcpy(&bits, &n.value, sizeof bits);
      PutFixed32(&body, static_cast<uint32_t>(n.left));
      PutFixed32(&body, static_cast<uint32_t>(n.right));
      PutFixed16(&body, static_cast<uint16_t>(n.feature | (n.default_left ? 0x8000 : 0)));
      PutFixed32(&body, bits);
    }
  }
  std::string out(kMagic, sizeof kMagic);
  PutFixed32(&out, crc32c::Value(body.data(), body.size()));
  return out + body;
}

Status LifetimeModel::Decode(const std::string& bytes, LifetimeModel* model) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return Status::Corruption("lifetime model: not a version 1 model");
  }
  if (DecodeFixed32(bytes.data() + 4) != crc32c::Value(bytes.data() + 8, bytes.size() - 8)) {
    return Status::Corruption("lifetime model: checksum mismatch");
  }
  Decoder d(std::string_view(bytes).substr(8), "lifetime model");
  LifetimeModel m;
  for (uint64_t& v : m.splits_) d.GetFixed64(&v);
  for (uint64_t& v : m.typical_) d.GetFixed64(&v);
  uint32_t trees = 0;
  d.GetFixed32(&trees);
  for (uint32_t t = 0; d.ok() && t < trees; t++) {
    uint16_t cls = 0;
    uint32_t count = 0;
    if (!d.GetFixed16(&cls) || !d.GetFixed32(&count)) break;
    if (cls >= kClasses || count == 0 || m.nodes_.size() + count > kMaxNodes) {
      return Status::Corruption("lifetime model: bad tree");
    }
    m.roots_.push_back(static_cast<uint32_t>(m.nodes_.size()));
    m.tree_class_.push_back(static_cast<uint8_t>(cls));
    for (uint32_t i = 0; i < count && d.ok(); i++) {
      uint32_t left = 0, right = 0, bits = 0;
      uint16_t feature = 0;
      d.GetFixed32(&left);
      d.GetFixed32(&right);
      d.GetFixed16(&feature);
      d.GetFixed32(&bits);
      Node n;
      n.left = static_cast<int32_t>(left);
      n.right = static_cast<int32_t>(right);
      n.feature = feature & 0x7fff;
      n.default_left = (feature & 0x8000) != 0;
      std::memcpy(&n.value, &bits, sizeof bits);
      // Children point forward inside the tree, so every walk ends.
      const bool leaf = n.left < 0 && n.right < 0;
      const bool split = n.left > static_cast<int32_t>(i) && n.right > static_cast<int32_t>(i) &&
                         static_cast<uint32_t>(n.left) < count && static_cast<uint32_t>(n.right) < count &&
                         n.feature < kLifetimeFeatures;
      if (!leaf && !split) return Status::Corruption("lifetime model: bad tree node");
      m.nodes_.push_back(n);
    }
  }
  if (!d.ok()) return d.status();
  if (d.remaining() != 0) return Status::Corruption("lifetime model: trailing bytes");
  for (int i = 1; i < kClasses - 1; i++) {
    if (m.splits_[i] < m.splits_[i - 1]) return Status::Corruption("lifetime model: split points out of order");
  }
  *model = std::move(m);
  return Status::OK();
}

}  // namespace hintfs
