#include "hints/trace.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "fs/clock.h"
#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

constexpr char kMagic[8] = {'H', 'F', 'T', 'R', 'A', 'C', 'E', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 24;
constexpr uint32_t kMaxRecord = 16 << 20;
constexpr size_t kMaxString = 4096;

void PutFiles(std::string* dst, const std::vector<HintFile>& files) {
  PutFixed32(dst, static_cast<uint32_t>(files.size()));
  for (const HintFile& f : files) {
    PutLengthPrefixed(dst, f.path);
    PutFixed32(dst, static_cast<uint32_t>(f.level));
  }
}

bool GetFiles(Decoder* d, std::vector<HintFile>* files) {
  uint32_t n = 0;
  if (!d->GetFixed32(&n) || n > d->remaining() / 8) return false;
  files->resize(n);
  for (HintFile& f : *files) {
    uint32_t level = 0;
    d->GetLengthPrefixed(&f.path, kMaxString);
    d->GetFixed32(&level);
    f.level = static_cast<int>(level);
  }
  return d->ok();
}

std::string Encode(const TraceEvent& e) {
  std::string p;
  p.push_back(static_cast<char>(e.type));
  PutFixed64(&p, e.time_ns);
  switch (e.type) {
    case TraceEvent::Type::kHint: {
      const Hint& h = e.hint;
      p.push_back(static_cast<char>(h.kind));
      PutFixed64(&p, static_cast<uint64_t>(h.job));
      PutFixed32(&p, static_cast<uint32_t>(h.level));
      PutFixed32(&p, h.count);
      PutFixed32(&p, 0);  // reserved (was lifetime)
      PutFixed32(&p, static_cast<uint32_t>(h.temperature));
      PutFixed64(&p, h.bytes);
      PutFixed64(&p, h.offset);
      PutLengthPrefixed(&p, h.path);
      PutLengthPrefixed(&p, h.reason);
      PutFiles(&p, h.inputs);
      PutFiles(&p, h.outputs);
      break;
    }
    case TraceEvent::Type::kCreate:
      PutLengthPrefixed(&p, e.path);
      p.push_back(static_cast<char>(e.role));
      break;
    case TraceEvent::Type::kLifetime:
      PutLengthPrefixed(&p, e.path);
      PutFixed32(&p, static_cast<uint32_t>(e.lifetime));
      break;
    case TraceEvent::Type::kAppend:
      PutLengthPrefixed(&p, e.path);
      PutFixed64(&p, e.bytes);
      break;
    case TraceEvent::Type::kDelete:
      PutLengthPrefixed(&p, e.path);
      break;
    case TraceEvent::Type::kRead:
      PutLengthPrefixed(&p, e.path);
      PutFixed64(&p, e.offset);
      PutFixed64(&p, e.bytes);
      break;
  }
  return p;
}

Status Decode(std::string_view payload, TraceEvent* e) {
  *e = TraceEvent();
  Decoder d(payload, "trace event");
  std::string_view type;
  if (!d.GetBytes(1, &type)) return d.status();
  uint8_t t = static_cast<uint8_t>(type[0]);
  if (t < 1 || t > 6) return Status::Corruption("unknown trace event type " + std::to_string(t));
  e->type = static_cast<TraceEvent::Type>(t);
  d.GetFixed64(&e->time_ns);
  uint32_t u32 = 0;
  switch (e->type) {
    case TraceEvent::Type::kHint: {
      Hint& h = e->hint;
      std::string_view kind;
      uint64_t job = 0;
      uint32_t level = 0, reserved = 0, temperature = 0;
      d.GetBytes(1, &kind);
      d.GetFixed64(&job);
      d.GetFixed32(&level);
      d.GetFixed32(&h.count);
      d.GetFixed32(&reserved);
      d.GetFixed32(&temperature);
      d.GetFixed64(&h.bytes);
      d.GetFixed64(&h.offset);
      d.GetLengthPrefixed(&h.path, kMaxString);
      d.GetLengthPrefixed(&h.reason, kMaxString);
      if (!d.ok() || !GetFiles(&d, &h.inputs) || !GetFiles(&d, &h.outputs)) return d.status();
      uint8_t k = static_cast<uint8_t>(kind[0]);
      if (!Hint::IsKind(k)) return Status::Corruption("unknown hint kind " + std::to_string(k));
      if (temperature > static_cast<uint32_t>(Temperature::kCold)) {
        return Status::Corruption("unknown temperature " + std::to_string(temperature));
      }
      h.temperature = static_cast<Temperature>(temperature);
      h.kind = static_cast<Hint::Kind>(k);
      h.job = static_cast<int64_t>(job);
      h.level = static_cast<int>(level);
      h.time_ns = e->time_ns;
      break;
    }
    case TraceEvent::Type::kCreate: {
      std::string_view role;
      d.GetLengthPrefixed(&e->path, kMaxString);
      if (d.GetBytes(1, &role)) e->role = static_cast<uint8_t>(role[0]);
      break;
    }
    case TraceEvent::Type::kLifetime:
      d.GetLengthPrefixed(&e->path, kMaxString);
      d.GetFixed32(&u32);
      e->lifetime = static_cast<int>(u32);
      break;
    case TraceEvent::Type::kAppend:
      d.GetLengthPrefixed(&e->path, kMaxString);
      d.GetFixed64(&e->bytes);
      break;
    case TraceEvent::Type::kDelete:
      d.GetLengthPrefixed(&e->path, kMaxString);
      break;
    case TraceEvent::Type::kRead:
      d.GetLengthPrefixed(&e->path, kMaxString);
      d.GetFixed64(&e->offset);
      d.GetFixed64(&e->bytes);
      break;
  }
  if (!d.ok()) return d.status();
  if (d.remaining() != 0) return Status::Corruption("trailing bytes in trace event");
  return Status::OK();
}

}  // namespace

const char* TraceEventTypeName(TraceEvent::Type type) {
  switch (type) {
    case TraceEvent::Type::kHint: return "hint";
    case TraceEvent::Type::kCreate: return "create";
    case TraceEvent::Type::kLifetime: return "lifetime";
    case TraceEvent::Type::kAppend: return "append";
    case TraceEvent::Type::kDelete: return "delete";
    case TraceEvent::Type::kRead: return "read";
  }
  return "unknown";
}

TraceWriter::TraceWriter(FILE* f) : f_(f), start_ns_(MonotonicNs()) {}

TraceWriter::~TraceWriter() { Close(); }

Status TraceWriter::Create(const std::string& path, std::unique_ptr<TraceWriter>* writer) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IOError("cannot create trace " + path + ": " + std::strerror(errno));
  std::string h(kMagic, sizeof(kMagic));
  PutFixed32(&h, kVersion);
  PutFixed32(&h, 0);
  PutFixed32(&h, crc32c::Value(h.data(), h.size()));
  PutFixed32(&h, 0);
  if (std::fwrite(h.data(), 1, h.size(), f) != h.size()) {
    std::fclose(f);
    return Status::IOError("cannot write trace " + path);
  }
  writer->reset(new TraceWriter(f));
  return Status::OK();
}

Status TraceWriter::Append(TraceEvent event) {
  std::lock_guard<std::mutex> l(mu_);
  if (f_ == nullptr) return Status::InvalidArgument("trace is closed");
  if (event.time_ns == 0) event.time_ns = MonotonicNs() - start_ns_;
  std::string payload = Encode(event);
  std::string frame;
  PutFixed32(&frame, static_cast<uint32_t>(payload.size()));
  PutFixed32(&frame, crc32c::Value(payload.data(), payload.size()));
  frame += payload;
  if (std::fwrite(frame.data(), 1, frame.size(), f_) != frame.size()) return Status::IOError("trace write failed");
  return Status::OK();
}

Status TraceWriter::Close() {
  std::lock_guard<std::mutex> l(mu_);
  if (f_ == nullptr) return Status::OK();
  int rc = std::fclose(f_);
  f_ = nullptr;
  return rc == 0 ? Status::OK() : Status::IOError("closing trace failed");
}

Status TraceReader::Open(const std::string& path, std::unique_ptr<TraceReader>* reader) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("no trace " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  reader->reset(new TraceReader(ss.str()));
  return Status::OK();
}

Status TraceReader::Next(TraceEvent* event, bool* eof) {
  *eof = false;
  auto bad = [&](const std::string& what) {
    return Status::Corruption("trace at byte " + std::to_string(pos_) + ": " + what);
  };
  if (!header_checked_) {
    if (data_.size() < kHeaderSize || std::memcmp(data_.data(), kMagic, sizeof(kMagic)) != 0) {
      return bad("not a hintfs trace (bad magic)");
    }
    if (DecodeFixed32(data_.data() + 16) != crc32c::Value(data_.data(), 16)) return bad("header checksum mismatch");
    if (DecodeFixed32(data_.data() + 20) != 0) return bad("header padding is not zero");
    if (DecodeFixed32(data_.data() + 8) != kVersion) return bad("unsupported trace version");
    header_checked_ = true;
    pos_ = kHeaderSize;
  }
  if (pos_ == data_.size()) {
    *eof = true;
    return Status::OK();
  }
  if (data_.size() - pos_ < 8) return bad("truncated record header");
  uint32_t len = DecodeFixed32(data_.data() + pos_);
  uint32_t crc = DecodeFixed32(data_.data() + pos_ + 4);
  if (len > kMaxRecord || data_.size() - pos_ - 8 < len) return bad("truncated or oversized record");
  std::string_view payload(data_.data() + pos_ + 8, len);
  if (crc32c::Value(payload.data(), payload.size()) != crc) return bad("record checksum mismatch");
  Status s = Decode(payload, event);
  if (!s.ok()) return bad(s.message());
  pos_ += 8 + len;
  return Status::OK();
}

TraceRecorder::TraceRecorder(std::unique_ptr<TraceWriter> writer, std::shared_ptr<HintBus> bus)
    : writer_(std::move(writer)), bus_(std::move(bus)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) {
    TraceEvent e;
    e.type = TraceEvent::Type::kHint;
    e.hint = h;
    writer_->Append(e);
  });
}

TraceRecorder::~TraceRecorder() {
  bus_->Unsubscribe(subscription_);
  writer_->Close();
}

void TraceRecorder::OnCreate(const std::string& path, ZoneRole role) {
  TraceEvent e;
  e.type = TraceEvent::Type::kCreate;
  e.path = path;
  e.role = static_cast<uint8_t>(role);
  writer_->Append(e);
}

void TraceRecorder::OnLifetimeHint(const std::string& path, int lifetime) {
  TraceEvent e;
  e.type = TraceEvent::Type::kLifetime;
  e.path = path;
  e.lifetime = lifetime;
  writer_->Append(e);
}

void TraceRecorder::OnAppend(const std::string& path, std::string_view data) {
  TraceEvent e;
  e.type = TraceEvent::Type::kAppend;
  e.path = path;
  e.bytes = data.size();
  writer_->Append(e);
}

// Closes are not recorded: replay places bytes as they are appended.
void TraceRecorder::OnClose(const std::string&, uint64_t) {}

void TraceRecorder::OnDelete(const std::string& path) {
  TraceEvent e;
  e.type = TraceEvent::Type::kDelete;
  e.path = path;
  writer_->Append(e);
}

void TraceRecorder::OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t /*slow_bytes*/) {
  TraceEvent e;
  e.type = TraceEvent::Type::kRead;
  e.path = path;
  e.offset = offset;
  e.bytes = bytes;
  writer_->Append(e);
}

}  // namespace hintfs
