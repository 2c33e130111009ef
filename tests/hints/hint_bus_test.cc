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

}  // namespace
}  // namespace hintfs
