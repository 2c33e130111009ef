#include <gtest/gtest.h>

#include "hints/hint_bus.h"

namespace hintfs {
namespace {

TEST(HintBus, DeliversInOrderToEverySubscriberUntilUnsubscribed) {
  HintBus bus;
  std::vector<std::string> a, b;
  uint64_t ida = bus.Subscribe([&](const Hint& h) { a.push_back(h.path); });
  bus.Subscribe([&](const Hint& h) {
    b.push_back(h.path);
    EXPECT_NE(h.time_ns, 0u);  // stamped on publish
  });
  Hint h;
  h.kind = Hint::Kind::kFileDeleted;
  h.path = "/db/1.sst";
  bus.Publish(h);
  h.path = "/db/2.sst";
  bus.Publish(h);
  bus.Unsubscribe(ida);
  h.path = "/db/3.sst";
  bus.Publish(h);
  EXPECT_EQ(a, (std::vector<std::string>{"/db/1.sst", "/db/2.sst"}));
  EXPECT_EQ(b, (std::vector<std::string>{"/db/1.sst", "/db/2.sst", "/db/3.sst"}));
  EXPECT_EQ(bus.published(), 3u);
  EXPECT_STREQ(HintKindName(Hint::Kind::kTableFileCreation), "table-file-creation");
}

// A subscriber may publish, subscribe and unsubscribe from its callback
// (the bus's lock is not held there); what it publishes comes after the
// hint it is handling, to every subscriber, in order.
TEST(HintBus, ASubscriberMayUseTheBusFromItsCallback) {
  HintBus bus;
  std::vector<std::string> seen, late;
  uint64_t late_id = 0;
  bus.Subscribe([&](const Hint& h) {
    seen.push_back(h.path);
    if (h.path == "/a") {
      Hint follow;
      follow.kind = Hint::Kind::kFileDeleted;
      follow.path = "/a-follow-up";
      bus.Publish(follow);
      late_id = bus.Subscribe([&](const Hint& x) { late.push_back(x.path); });
    }
    if (h.path == "/b") bus.Unsubscribe(late_id);
  });
  Hint h;
  h.kind = Hint::Kind::kFileDeleted;
  h.path = "/a";
  bus.Publish(h);
  h.path = "/b";
  bus.Publish(h);
  h.path = "/c";
  bus.Publish(h);
  EXPECT_EQ(seen, (std::vector<std::string>{"/a", "/a-follow-up", "/b", "/c"}));
  // Subscribed while /a was delivered: sees the follow-up and /b (the list
  // of a delivery is taken when it starts), not /c.
  EXPECT_EQ(late, (std::vector<std::string>{"/a-follow-up", "/b"}));
  EXPECT_EQ(bus.published(), 4u);
}

}  // namespace
}  // namespace hintfs
