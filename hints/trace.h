// Hint traces: a versioned, checksummed binary stream of timestamped hints
// and I/O events (file created, lifetime hint, bytes appended, file deleted,
// bytes read), recorded under a running store and replayed offline against
// any placement policy (placement/replay.h). Layout in docs/formats.md.
#ifndef HINTFS_HINTS_TRACE_H_
#define HINTFS_HINTS_TRACE_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "fs/filesystem.h"
#include "fs/status.h"
#include "hints/hint_bus.h"

namespace hintfs {

struct TraceEvent {
  enum class Type : uint8_t { kHint = 1, kCreate = 2, kLifetime = 3, kAppend = 4, kDelete = 5, kRead = 6 };
  Type type = Type::kHint;
  uint64_t time_ns = 0;  // since the trace began
  Hint hint;             // kHint
  std::string path;      // the I/O events
  uint8_t role = 0;      // kCreate: ZoneRole
  int lifetime = 0;      // kLifetime
  uint64_t offset = 0;   // kRead
  uint64_t bytes = 0;    // kAppend, kRead
};

const char* TraceEventTypeName(TraceEvent::Type type);

class TraceWriter {
 public:
  // Creates (truncates) the trace file at path.
  static Status Create(const std::string& path, std::unique_ptr<TraceWriter>* writer);
  ~TraceWriter();
  // Thread-safe; stamps the time since the trace began if time_ns is 0.
  Status Append(TraceEvent event);
  Status Close();

 private:
  explicit TraceWriter(FILE* f);
  std::mutex mu_;
  FILE* f_;
  uint64_t start_ns_;
};

class TraceReader {
 public:
  // Reads a whole trace held in memory.
  explicit TraceReader(std::string data) : data_(std::move(data)) {}
  static Status Open(const std::string& path, std::unique_ptr<TraceReader>* reader);
  // The next event; *eof at the end. A malformed trace is a Corruption that
  // names the byte offset.
  Status Next(TraceEvent* event, bool* eof);
  // Back to the first event.
  void Rewind() { pos_ = 0, header_checked_ = false; }
  uint64_t offset() const { return pos_; }
  uint64_t size() const { return data_.size(); }

 private:
  std::string data_;
  uint64_t pos_ = 0;
  bool header_checked_ = false;
};

// Records a mount: every hint on its bus and every I/O event.
class TraceRecorder : public IoObserver {
 public:
  TraceRecorder(std::unique_ptr<TraceWriter> writer, std::shared_ptr<HintBus> bus);
  ~TraceRecorder() override;
  void OnCreate(const std::string& path, ZoneRole role) override;
  void OnLifetimeHint(const std::string& path, int lifetime) override;
  void OnAppend(const std::string& path, std::string_view data) override;
  void OnClose(const std::string& path, uint64_t size) override;
  void OnDelete(const std::string& path) override;
  void OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) override;

 private:
  std::unique_ptr<TraceWriter> writer_;
  std::shared_ptr<HintBus> bus_;
  uint64_t subscription_;
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_TRACE_H_
