#include "medreact/status.h"

#include <gtest/gtest.h>

namespace medreact {
namespace {

TEST(StatusTest, OkAndErrorsFormat) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  Status s = Status::NotFound("tool 'x'");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "NotFound: tool 'x'");
  EXPECT_EQ(s.WithContext("registry").message(), "registry: tool 'x'");
}

TEST(ResultTest, HoldsValueOrStatus) {
  Result<int> good = 3;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  Result<int> bad = Status::Timeout("slow");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kTimeout);
  EXPECT_EQ(bad.value_or(7), 7);
}

}  // namespace
}  // namespace medreact
