#include <gtest/gtest.h>

#include "core/base/errors.h"
#include "core/model/bandwidth.h"
#include "core/model/sizes.h"
#include "core/model/statistics.h"

namespace peerbench {
namespace {

TEST(ParseSize, AcceptsBytesAndBinarySuffixes) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("64K", "-b"), 64u << 10);
  EXPECT_EQ(parse_size("64k", "-b"), 64u << 10);
  EXPECT_EQ(parse_size("512M", "-b"), 512ull << 20);
  EXPECT_EQ(parse_size("8G", "-b"), 8ull << 30);
  EXPECT_EQ(parse_size("2GiB", "-b"), 2ull << 30);
  EXPECT_EQ(parse_size("3MB", "-b"), 3ull << 20);
  EXPECT_EQ(parse_size("1T", "-b"), 1ull << 40);
  EXPECT_EQ(parse_size("100B", "-b"), 100u);
}

TEST(ParseSize, RejectsGarbageNamingTheFlag) {
  for (const char* bad :
       {"", "0", "-1", "12X", "K", "1.5G", "1 G", "1GG", "99999999999999999999", "16777216T"}) {
    try {
      parse_size(bad, "-e/--maxbytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("-e/--maxbytes"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
  }
}

TEST(ParseInteger, RangeAndGarbage) {
  EXPECT_EQ(parse_integer("20", "-n", 1, 100), 20);
  EXPECT_THROW(parse_integer("0", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("-5", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("abc", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("3.5", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("", "-n", 1, 100), UsageError);
  EXPECT_THROW(parse_integer("101", "-n", 1, 100), UsageError);
}

TEST(ParseNumber, Positive) {
  EXPECT_DOUBLE_EQ(parse_positive_number("2.5", "--timeout"), 2.5);
  EXPECT_THROW(parse_positive_number("0", "--timeout"), UsageError);
  EXPECT_THROW(parse_positive_number("nan", "--timeout"), UsageError);
  EXPECT_THROW(parse_positive_number("5s", "--timeout"), UsageError);
}

TEST(Sweep, FactorEndsAtMaxEvenWhenNotAPower) {
  EXPECT_EQ(make_sweep({1 << 20, 1 << 30, 4, 0}),
            (std::vector<std::uint64_t>{1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30}));
  EXPECT_EQ(make_sweep({8, 100, 2, 0}), (std::vector<std::uint64_t>{8, 16, 32, 64, 100}));
  EXPECT_EQ(make_sweep({8, 8, 2, 0}), (std::vector<std::uint64_t>{8}));
}

TEST(Sweep, LinearStepsWinOverFactor) {
  EXPECT_EQ(make_sweep({10, 35, 4, 10}), (std::vector<std::uint64_t>{10, 20, 30, 35}));
}

TEST(Sweep, RejectsMinAboveMaxAndSmallFactor) {
  EXPECT_THROW(make_sweep({1 << 30, 1 << 20, 2, 0}), UsageError);
  EXPECT_THROW(make_sweep({1, 8, 1, 0}), UsageError);
  EXPECT_THROW(make_sweep({0, 8, 2, 0}), UsageError);
}

TEST(Sweep, HugeFactorDoesNotOverflow) {
  const auto s = make_sweep({1ull << 62, ~0ull, 1 << 20, 0});
  EXPECT_EQ(s.front(), 1ull << 62);
  EXPECT_EQ(s.back(), ~0ull);
}

TEST(FormatSize, ExactMultiplesUseSuffixes) {
  EXPECT_EQ(format_size(8), "8 B");
  EXPECT_EQ(format_size(64 << 10), "64 KiB");
  EXPECT_EQ(format_size(1ull << 30), "1 GiB");
  EXPECT_EQ(format_size(1536 << 10), "1536 KiB");
  EXPECT_EQ(format_size(9999), "9999 B");
  EXPECT_EQ(format_size_compact(512ull << 20), "512M");
  EXPECT_EQ(format_size_compact(1000), "1000");
}

// 20000000000 read "19531250 KiB" (an audit): a long number gets the largest unit, two decimals.
TEST(FormatSize, SizesNoUnitDividesShortlyReadInTheLargestUnit) {
  EXPECT_EQ(format_size(20000000000ull), "18.63 GiB");
  EXPECT_EQ(format_size(1000003), "976.6 KiB");
  EXPECT_EQ(format_size(10000), "9.766 KiB");
  EXPECT_EQ(format_size_compact(20000000000ull), "18.63G");
  EXPECT_EQ(format_size(~0ull), "16777216.0 TiB");
  // Neighbours stay apart; a size just under a unit reads in it (a review: "1024.00 MiB").
  EXPECT_EQ(format_size_compact(1049576), "1.001M");
  EXPECT_EQ(format_size_compact(1050576), "1.002M");
  EXPECT_EQ(format_size((1ull << 30) - 1), "1.000 GiB");
}

TEST(Statistics, MedianOddEvenMinMax) {
  const auto s = summarize({5, 1, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(summarize({7}).median, 7);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Statistics, MedianIgnoresOneOutlier) {
  const auto s = summarize({100, 101, 99, 100, 3});
  EXPECT_DOUBLE_EQ(s.median, 100);
  EXPECT_NEAR(relative_spread(s), (101.0 - 3.0) / 100.0, 1e-12);
}

TEST(Bandwidth, BusFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kSendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kCopy, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::kAllReduce, 1), 0.0);
  EXPECT_THROW(busbw_factor(Collective::kAllReduce, 0), std::invalid_argument);
}

TEST(Bandwidth, AlgbwIsBytesOverSecondsInGB) {
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 1.0), 1.0);
  EXPECT_NEAR(algbw_gbps(1ull << 30, 2.718e-3), 395.0485, 0.001);  // 1 GiB in 2.718 ms
  EXPECT_DOUBLE_EQ(algbw_gbps(1e9, 0), 0.0);
  EXPECT_EQ(collective_from_name("allreduce"), Collective::kAllReduce);
  EXPECT_EQ(collective_name(Collective::kSendRecv), "sendrecv");
  EXPECT_THROW(collective_from_name("bogus"), std::invalid_argument);
}

}  // namespace
}  // namespace peerbench
