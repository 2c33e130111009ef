// Hint traces: round trip, damage reported with offsets, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "hints/trace.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::vector<TraceEvent> Sample() {
  std::vector<TraceEvent> events;
  TraceEvent e;
  e.type = TraceEvent::Type::kHint;
  e.time_ns = 10;
  e.hint.kind = Hint::Kind::kCompactionBegin;
  e.hint.job = 7;
  e.hint.level = 2;
  e.hint.count = 3;
  e.hint.inputs = {{"/db/1.sst", 1}, {"/db/2.sst", 2}};
  events.push_back(e);
  TraceEvent c;
  c.type = TraceEvent::Type::kCreate;
  c.time_ns = 20;
  c.path = "/db/3.sst";
  c.role = 4;
  events.push_back(c);
  TraceEvent a;
  a.type = TraceEvent::Type::kAppend;
  a.time_ns = 30;
  a.path = "/db/3.sst";
  a.bytes = 1 << 20;
  events.push_back(a);
  TraceEvent r;
  r.type = TraceEvent::Type::kRead;
  r.time_ns = 40;
  r.path = "/db/3.sst";
  r.offset = 4096;
  r.bytes = 512;
  events.push_back(r);
  TraceEvent t;
  t.type = TraceEvent::Type::kHint;
  t.time_ns = 50;
  t.hint.kind = Hint::Kind::kFileTemperature;
  t.hint.path = "/db/4.sst";
  t.hint.temperature = Temperature::kCold;
  events.push_back(t);
  return events;
}

// Reads back the single event written as e; its status.
Status WriteAndRead(const test::ScratchDir& dir, const TraceEvent& e) {
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(dir.File("one"), &w);
  if (s.ok()) s = w->Append(e);
  if (s.ok()) s = w->Close();
  std::unique_ptr<TraceReader> r;
  if (s.ok()) s = TraceReader::Open(dir.File("one"), &r);
  TraceEvent back;
  bool eof = false;
  if (s.ok()) s = r->Next(&back, &eof);
  return s;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Trace, RoundTrip) {
  test::ScratchDir dir;
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(dir.File("t"), &w).ok());
  for (const auto& e : Sample()) ASSERT_TRUE(w->Append(e).ok());
  ASSERT_TRUE(w->Close().ok());
  std::unique_ptr<TraceReader> r;
  ASSERT_TRUE(TraceReader::Open(dir.File("t"), &r).ok());
  std::vector<TraceEvent> back;
  for (;;) {
    TraceEvent e;
    bool eof = false;
    ASSERT_TRUE(r->Next(&e, &eof).ok());
    if (eof) break;
    back.push_back(e);
  }
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[0].hint.kind, Hint::Kind::kCompactionBegin);
  EXPECT_EQ(back[0].hint.job, 7);
  EXPECT_EQ(back[0].hint.inputs[1].path, "/db/2.sst");
  EXPECT_EQ(back[0].hint.inputs[1].level, 2);
  EXPECT_EQ(back[1].path, "/db/3.sst");
  EXPECT_EQ(back[2].bytes, 1u << 20);
  EXPECT_EQ(back[3].offset, 4096u);
  EXPECT_EQ(back[3].time_ns, 40u);
  EXPECT_EQ(back[4].hint.kind, Hint::Kind::kFileTemperature);
  EXPECT_EQ(back[4].hint.temperature, Temperature::kCold);
  EXPECT_EQ(back[0].hint.temperature, Temperature::kUnknown);
}

// Records whose checksums hold but whose kind or temperature means nothing.
TEST(Trace, UnknownKindsAndTemperaturesAreRefused) {
  test::ScratchDir dir;
  TraceEvent e = Sample()[0];
  for (uint8_t kind : {0, 7, 8, 9, 11, 255}) {
    e.hint.kind = static_cast<Hint::Kind>(kind);
    EXPECT_TRUE(WriteAndRead(dir, e).IsCorruption()) << int{kind};
  }
  e.hint.kind = Hint::Kind::kFileTemperature;
  EXPECT_TRUE(WriteAndRead(dir, e).ok());
  e.hint.temperature = static_cast<Temperature>(4);
  EXPECT_TRUE(WriteAndRead(dir, e).IsCorruption());
}

TEST(Trace, DamageIsAnErrorWithAnOffset) {
  test::ScratchDir dir;
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(dir.File("t"), &w).ok());
  for (int i = 0; i < 50; i++) {
    for (const auto& e : Sample()) ASSERT_TRUE(w->Append(e).ok());
  }
  ASSERT_TRUE(w->Close().ok());
  std::string bytes = Slurp(dir.File("t"));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 500; i++) {
    std::string damaged = bytes;
    if (i % 5 == 0) {
      damaged.resize(rng() % damaged.size());  // truncated
    } else {
      size_t at = rng() % damaged.size();
      damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng() % 255));
    }
    TraceReader r(damaged);
    Status s;
    for (int n = 0; n < 10000; n++) {
      TraceEvent e;
      bool eof = false;
      s = r.Next(&e, &eof);
      if (!s.ok() || eof) break;
    }
    // A flip always breaks a checksum; a cut is clean only on a record boundary.
    if (i % 5 != 0) {
      EXPECT_TRUE(s.IsCorruption()) << i;
    }
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.ToString();
    }
  }
  TraceReader garbage(std::string(1000, 'x'));
  TraceEvent e;
  bool eof = false;
  EXPECT_TRUE(garbage.Next(&e, &eof).IsCorruption());
}

}  // namespace
}  // namespace hintfs
