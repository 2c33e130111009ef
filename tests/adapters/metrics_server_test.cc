// The metrics endpoint of a mount (metrics=HOST:PORT): Prometheus text with
// HELP and TYPE lines for every metric, the JSON twin, 404 for the rest, and
// the same figures as the filesystem's own counters.
#include "adapters/common/metrics_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <set>
#include <sstream>

#include "adapters/common/mount_registry.h"
#include "adapters/common/mount_stats.h"
#include "fs/device/emulated_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

TEST(MetricsServer, ServesPrometheusTextAndJsonOfTheLiveMount) {
  std::string name = test::UniqueName("metrics");
  std::shared_ptr<Filesystem> fs;
  ASSERT_OK(AcquireMount("mem:" + name + "?metrics=127.0.0.1:0", &fs));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs->OpenWriter("/data", WriteMode::kTruncate, &w));
  std::string bytes(300000, 'm');
  ASSERT_OK(w->Append(bytes));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());

  // A second server on port 0 answers with a function of our own; the mount's
  // own server is on a port only stderr names, so the figures are checked here
  // against the same filesystem.
  std::unique_ptr<MetricsServer> server;
  ASSERT_OK(MetricsServer::Start("127.0.0.1:0", [&] { return MountStatsJson(fs.get(), nlohmann::json::object()); }, &server));
  ASSERT_GT(server->port(), 0);
  httplib::Client client("127.0.0.1", server->port());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  // Every sample's metric has HELP and TYPE lines before it.
  std::set<std::string> described, typed;
  std::istringstream lines(metrics->body);
  std::string line;
  int samples = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("# HELP ", 0) == 0) described.insert(line.substr(7, line.find(' ', 7) - 7));
    if (line.rfind("# TYPE ", 0) == 0) typed.insert(line.substr(7, line.find(' ', 7) - 7));
    if (line.empty() || line[0] == '#') continue;
    std::string metric = line.substr(0, line.find_first_of("{ "));
    EXPECT_TRUE(described.count(metric) && typed.count(metric)) << metric;
    samples++;
  }
  EXPECT_GT(samples, 10);
  EXPECT_NE(metrics->body.find("hintfs_level_bytes{level=\"other\",tier=\"fast\"}"), std::string::npos);

  auto stats = client.Get("/stats.json");
  ASSERT_TRUE(stats);
  nlohmann::json j = nlohmann::json::parse(stats->body);
  FsStats st = fs->Stats();
  EXPECT_EQ(j["bytes_written"]["fast"].get<uint64_t>() + j["bytes_written"]["slow"].get<uint64_t>(),
            st.bytes_written[0] + st.bytes_written[1]);
  EXPECT_EQ(j["levels"]["other"]["files"].get<uint64_t>(), 1u);
  EXPECT_EQ(j["levels"]["other"]["fast_bytes"].get<uint64_t>() + j["levels"]["other"]["slow_bytes"].get<uint64_t>(),
            bytes.size());
  auto missing = client.Get("/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  server.reset();
  fs.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

// A server stopped before its thread has begun to listen still stops: a
// mount released at once after it was made must not hang.
TEST(MetricsServer, StopsWhenStoppedBeforeItListens) {
  auto none = [] { return nlohmann::json::object(); };
  for (int i = 0; i < 200; i++) {
    std::unique_ptr<MetricsServer> server;
    ASSERT_OK(MetricsServer::Start("127.0.0.1:0", none, &server));
    server.reset();  // joins the server's thread
  }
}

TEST(MetricsServer, RefusesAnAddressThatIsNotHostAndPort) {
  std::unique_ptr<MetricsServer> server;
  auto none = [] { return nlohmann::json::object(); };
  for (const char* bad : {"", "9187", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:70000", ":9187"}) {
    EXPECT_TRUE(MetricsServer::Start(bad, none, &server).IsInvalidArgument()) << bad;
  }
}

}  // namespace
}  // namespace hintfs
