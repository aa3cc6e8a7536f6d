// Tests for the drawing and mask-measuring helpers: exact pixels on small
// rasters, clipping of anything outside the image (indices are checked: a
// write outside the buffer would trip the sanitizer build and the size
// checks here), overlay blending, the label font, mask statistics and the
// cardiothoracic ratio on synthetic masks with hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/imaging/image_draw.h"

namespace medreact::imaging {
namespace {

constexpr Rgb kRed = {255, 0, 0};
constexpr Rgb kBlack = {0, 0, 0};

Raster RgbImage(int width, int height, uint8_t value = 0) {
  return Raster{width, height, 3, std::vector<uint8_t>(static_cast<size_t>(width) * height * 3, value)};
}

Raster Mask(int width, int height) {
  return Raster{width, height, 1, std::vector<uint8_t>(static_cast<size_t>(width) * height, 0)};
}

void SetMask(Raster& mask, int x0, int y0, int x1, int y1) {  // fills [x0, x1) × [y0, y1)
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) mask.pixels[static_cast<size_t>(y) * mask.width + x] = 255;
  }
}

Rgb At(const Raster& image, int x, int y) {
  const size_t i = (static_cast<size_t>(y) * image.width + x) * 3;
  return {image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]};
}

// The set of pixels that differ from `background`.
std::set<std::pair<int, int>> Lit(const Raster& image, Rgb background = kBlack) {
  std::set<std::pair<int, int>> lit;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (At(image, x, y) != background) lit.insert({x, y});
    }
  }
  return lit;
}

TEST(ImageDrawTest, PaletteColoursAreDistinctSaturatedAndWrap) {
  std::set<Rgb> seen;
  for (size_t i = 0; i < 8; ++i) {
    const Rgb c = PaletteColor(i);
    EXPECT_FALSE(c[0] == c[1] && c[1] == c[2]) << i << " is grey";
    seen.insert(c);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(PaletteColor(8), PaletteColor(0));
  EXPECT_EQ(PaletteColor(size_t{1} << 40), PaletteColor(0));
}

TEST(ImageDrawTest, RectangleOutlineHasExactPixels) {
  Raster image = RgbImage(10, 8);
  DrawRectangle(image, 2, 1, 7, 5, kRed, 1);  // covers columns 2..6, rows 1..4
  std::set<std::pair<int, int>> expected;
  for (int x = 2; x <= 6; ++x) expected.insert({x, 1}), expected.insert({x, 4});
  for (int y = 1; y <= 4; ++y) expected.insert({2, y}), expected.insert({6, y});
  EXPECT_EQ(Lit(image), expected);
  EXPECT_EQ(At(image, 2, 1), kRed);
  EXPECT_EQ(image.pixels.size(), 10u * 8 * 3);

  // The corners in any order give the same outline; line_width <= 0 is 1.
  Raster swapped = RgbImage(10, 8);
  DrawRectangle(swapped, 7, 5, 2, 1, kRed, 0);
  EXPECT_EQ(swapped.pixels, image.pixels);
}

TEST(ImageDrawTest, ThickRectangleGrowsInwardAndFillsASmallBox) {
  Raster image = RgbImage(10, 10);
  DrawRectangle(image, 1, 1, 9, 9, kRed, 2);  // pixels 1..8
  EXPECT_EQ(At(image, 1, 1), kRed);
  EXPECT_EQ(At(image, 2, 2), kRed);
  EXPECT_EQ(At(image, 3, 3), kBlack);  // inside
  EXPECT_EQ(At(image, 7, 7), kRed);
  EXPECT_EQ(At(image, 8, 8), kRed);
  EXPECT_EQ(At(image, 9, 9), kBlack);  // outside
  EXPECT_EQ(At(image, 0, 0), kBlack);

  Raster small = RgbImage(6, 6);
  DrawRectangle(small, 1, 1, 4, 4, kRed, 10);  // wider than the box: the box is filled
  EXPECT_EQ(Lit(small).size(), 9u);
}

TEST(ImageDrawTest, BoxesOutsideTheImageAreClippedNeverWrittenOutOfBounds) {
  Raster image = RgbImage(8, 6);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Far outside on every side, huge, infinite, NaN, and a huge line width.
  DrawRectangle(image, 1e12, 1e12, 2e12, 2e12, kRed, 1);
  DrawRectangle(image, -1e12, -1e12, -5e11, -5e11, kRed, 1);
  DrawRectangle(image, -inf, 2, -inf, 3, kRed, 1);
  DrawRectangle(image, nan, 0, 4, 4, kRed, 1);
  EXPECT_TRUE(Lit(image).empty());
  EXPECT_EQ(image.pixels.size(), 8u * 6 * 3);

  // A box around the whole image with its edges outside: nothing of it shows.
  DrawRectangle(image, -10, -10, 100, 100, kRed, 1);
  EXPECT_TRUE(Lit(image).empty());
  // One that straddles the right edge: its left side and the clipped top/bottom show.
  DrawRectangle(image, 5, 1, 1e9, 4, kRed, 1);
  std::set<std::pair<int, int>> expected;
  for (int x = 5; x < 8; ++x) expected.insert({x, 1}), expected.insert({x, 3});
  expected.insert({5, 2});
  EXPECT_EQ(Lit(image), expected);
  // Covering everything with a huge line width fills the image, nothing more.
  DrawRectangle(image, -inf, -inf, inf, inf, kRed, std::numeric_limits<int>::max());
  EXPECT_EQ(Lit(image).size(), 48u);
  EXPECT_EQ(image.pixels.size(), 8u * 6 * 3);
}

TEST(ImageDrawTest, DrawingOnAnInvalidOrGreyRasterDoesNothing) {
  Raster grey = Mask(4, 4);
  DrawRectangle(grey, 0, 0, 4, 4, kRed, 1);
  DrawLabel(grey, 0, 0, "A", kRed, 1);
  EXPECT_EQ(grey.pixels, std::vector<uint8_t>(16, 0));
  Raster broken{4, 4, 3, std::vector<uint8_t>(5, 0)};  // too few bytes
  DrawRectangle(broken, 0, 0, 4, 4, kRed, 1);
  OverlayMask(broken, Mask(4, 4), kRed, 1.0);
  DrawLabel(broken, 0, 0, "A", kRed, 1);
  EXPECT_EQ(broken.pixels, std::vector<uint8_t>(5, 0));
}

TEST(ImageDrawTest, OverlayBlendsWithAlpha) {
  Raster image = RgbImage(4, 2, 100);
  Raster mask = Mask(4, 2);
  mask.pixels[1] = 1;  // (1, 0): any non-zero value is inside
  OverlayMask(image, mask, {200, 0, 50}, 0.25);
  // out = 0.75·100 + 0.25·c: 125, 75, 87.5 → 88 (rounded half away from zero).
  EXPECT_EQ(At(image, 1, 0), (Rgb{125, 75, 88}));
  EXPECT_EQ(At(image, 0, 0), (Rgb{100, 100, 100}));
  EXPECT_EQ(At(image, 1, 1), (Rgb{100, 100, 100}));

  // alpha is clamped: above 1 is the colour itself, below 0 (or NaN) changes nothing.
  Raster full = RgbImage(4, 2, 100);
  OverlayMask(full, mask, {200, 0, 50}, 7.0);
  EXPECT_EQ(At(full, 1, 0), (Rgb{200, 0, 50}));
  Raster none = RgbImage(4, 2, 100);
  OverlayMask(none, mask, {200, 0, 50}, -1.0);
  OverlayMask(none, mask, {200, 0, 50}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(none.pixels, RgbImage(4, 2, 100).pixels);
}

TEST(ImageDrawTest, ASmallerMaskIsScaledByNearestNeighbour) {
  Raster image = RgbImage(8, 4);
  Raster mask = Mask(2, 2);
  mask.pixels[1] = 255;  // the top-right quarter
  OverlayMask(image, mask, kRed, 1.0);
  std::set<std::pair<int, int>> expected;
  for (int y = 0; y < 2; ++y) {
    for (int x = 4; x < 8; ++x) expected.insert({x, y});
  }
  EXPECT_EQ(Lit(image), expected);

  // A larger mask is sampled down the same way; a 1 × 1 mask covers everything.
  Raster big_mask = Mask(16, 8);
  SetMask(big_mask, 0, 0, 2, 2);  // image pixel (0, 0) samples mask (0, 0)
  Raster image2 = RgbImage(8, 4);
  OverlayMask(image2, big_mask, kRed, 1.0);
  EXPECT_EQ(Lit(image2), (std::set<std::pair<int, int>>{{0, 0}}));
  Raster dot = Mask(1, 1);
  dot.pixels[0] = 9;
  Raster image3 = RgbImage(5, 3);
  OverlayMask(image3, dot, kRed, 1.0);
  EXPECT_EQ(Lit(image3).size(), 15u);
}

TEST(ImageDrawTest, LabelDrawsGlyphsOnABackgroundBox) {
  Raster image = RgbImage(40, 20, 200);
  DrawLabel(image, 2, 3, "I", kRed, 1);
  // The box: (1·6 + 1) × 9 pixels at (2, 3) in the background colour, the glyph in red.
  EXPECT_NE(At(image, 2, 3), (Rgb{200, 200, 200}));
  EXPECT_NE(At(image, 8, 11), (Rgb{200, 200, 200}));
  EXPECT_EQ(At(image, 9, 3), (Rgb{200, 200, 200}));   // right of the box
  EXPECT_EQ(At(image, 2, 12), (Rgb{200, 200, 200}));  // below the box
  // 'I': a bar of three at the top and bottom, a stem in the middle column.
  std::set<std::pair<int, int>> red;
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      if (At(image, x, y) == kRed) red.insert({x, y});
    }
  }
  std::set<std::pair<int, int>> expected;
  const int gx = 3, gy = 4;  // glyph origin: one font pixel in from the box
  for (int c = 1; c <= 3; ++c) expected.insert({gx + c, gy}), expected.insert({gx + c, gy + 6});
  for (int r = 1; r <= 5; ++r) expected.insert({gx + 2, gy + r});
  EXPECT_EQ(red, expected);
}

TEST(ImageDrawTest, EveryPrintableCharacterHasAGlyphAndOthersDrawAsQuestionMarks) {
  for (char c = '!'; c <= '~'; ++c) {
    Raster image = RgbImage(12, 12);
    DrawLabel(image, 0, 0, std::string(1, c), kRed, 1);
    int red = 0;
    for (int y = 0; y < 12; ++y) {
      for (int x = 0; x < 12; ++x) red += At(image, x, y) == kRed;
    }
    EXPECT_GT(red, 0) << "glyph for '" << c << "' is empty";
  }
  Raster space = RgbImage(12, 12);
  DrawLabel(space, 0, 0, " ", kRed, 1);
  EXPECT_FALSE(Lit(space).empty());  // the background box
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 12; ++x) EXPECT_NE(At(space, x, y), kRed);
  }
  Raster question = RgbImage(12, 12), control = RgbImage(12, 12), high = RgbImage(12, 12);
  DrawLabel(question, 0, 0, "?", kRed, 1);
  DrawLabel(control, 0, 0, "\n", kRed, 1);
  DrawLabel(high, 0, 0, "\xC3", kRed, 1);
  EXPECT_EQ(control.pixels, question.pixels);
  EXPECT_EQ(high.pixels, question.pixels);
}

TEST(ImageDrawTest, LabelScalesAndClips) {
  Raster one = RgbImage(30, 20), two = RgbImage(30, 20);
  DrawLabel(one, 0, 0, "H", kRed, 1);
  DrawLabel(two, 0, 0, "H", kRed, 2);
  auto count_red = [](const Raster& image) {
    int n = 0;
    for (int y = 0; y < image.height; ++y) {
      for (int x = 0; x < image.width; ++x) n += At(image, x, y) == kRed;
    }
    return n;
  };
  EXPECT_EQ(count_red(two), 4 * count_red(one));

  // Partly or wholly outside, long text, a huge scale: clipped, never out of bounds.
  Raster image = RgbImage(16, 10);
  DrawLabel(image, -20, -5, "clipped label", kRed, 1);
  DrawLabel(image, 12, 8, std::string(10000, 'W'), kRed, 3);
  DrawLabel(image, std::numeric_limits<int>::max(), std::numeric_limits<int>::max(), "x", kRed, 1);
  DrawLabel(image, std::numeric_limits<int>::min(), std::numeric_limits<int>::min(), "x", kRed,
            std::numeric_limits<int>::max());
  DrawLabel(image, 0, 0, "", kRed, 1);
  EXPECT_EQ(image.pixels.size(), 16u * 10 * 3);
  EXPECT_FALSE(Lit(image).empty());
}

TEST(ImageDrawTest, LabelScaleFollowsTheShorterSide) {
  EXPECT_EQ(LabelScale(RgbImage(100, 100)), 1);
  EXPECT_EQ(LabelScale(RgbImage(1024, 600)), 2);
  EXPECT_EQ(LabelScale(RgbImage(1024, 1024)), 4);
  EXPECT_EQ(LabelScale(Raster{}), 1);
}

TEST(ImageDrawTest, MaskStatsOfAFilledRectangle) {
  Raster mask = Mask(20, 10);
  SetMask(mask, 4, 2, 10, 7);  // 6 × 5 = 30 pixels
  const MaskStats stats = MeasureMask(mask);
  EXPECT_EQ(stats.area_px, 30);
  EXPECT_DOUBLE_EQ(stats.area_fraction, 30.0 / 200.0);
  EXPECT_EQ(stats.x0, 4);
  EXPECT_EQ(stats.y0, 2);
  EXPECT_EQ(stats.x1, 10);
  EXPECT_EQ(stats.y1, 7);
  EXPECT_DOUBLE_EQ(stats.centroid_x, 7.0);  // mean of 4.5 .. 9.5
  EXPECT_DOUBLE_EQ(stats.centroid_y, 4.5);  // mean of 2.5 .. 6.5
  EXPECT_FALSE(stats.empty());
  const Json json = ToJson(stats);
  EXPECT_EQ(json["area_px"], 30);
  EXPECT_DOUBLE_EQ(json["area_fraction"].get<double>(), 0.15);
  EXPECT_EQ(json["bbox"], Json({4, 2, 10, 7}));
  EXPECT_EQ(json["centroid"], Json({7.0, 4.5}));
  EXPECT_FALSE(json.contains("empty"));
}

TEST(ImageDrawTest, MaskStatsOfAnEmptyMaskAndOfOnePixel) {
  const MaskStats empty = MeasureMask(Mask(5, 5));
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.x0 + empty.y0 + empty.x1 + empty.y1, 0);
  EXPECT_EQ(empty.area_fraction, 0);
  EXPECT_EQ(empty.centroid_x, 0);
  EXPECT_EQ(ToJson(empty), Json({{"area_px", 0}, {"empty", true}}));

  Raster mask = Mask(5, 4);
  mask.pixels[2 * 5 + 3] = 7;  // (3, 2)
  const MaskStats one = MeasureMask(mask);
  EXPECT_EQ(one.area_px, 1);
  EXPECT_DOUBLE_EQ(one.area_fraction, 0.05);
  EXPECT_EQ(one.x0, 3);
  EXPECT_EQ(one.y0, 2);
  EXPECT_EQ(one.x1, 4);
  EXPECT_EQ(one.y1, 3);
  EXPECT_DOUBLE_EQ(one.centroid_x, 3.5);
  EXPECT_DOUBLE_EQ(one.centroid_y, 2.5);

  // An invalid raster measures as empty rather than being read out of bounds.
  EXPECT_TRUE(MeasureMask(Raster{5, 5, 1, std::vector<uint8_t>(3, 255)}).empty());
}

TEST(ImageDrawTest, CardiothoracicRatioFromSyntheticMasks) {
  // A 100-pixel-wide film: right lung x 10..44, left lung x 56..89, heart x 35..70.
  Raster right_lung = Mask(100, 80), left_lung = Mask(100, 80), heart = Mask(100, 80);
  SetMask(right_lung, 10, 10, 45, 70);
  SetMask(left_lung, 56, 10, 90, 70);
  SetMask(heart, 35, 40, 71, 65);
  const MaskStats h = MeasureMask(heart);
  const std::vector<MaskStats> lungs = {MeasureMask(right_lung), MeasureMask(left_lung)};
  // Heart 71 - 35 = 36 px; thorax 90 - 10 = 80 px: 36 / 80 = 0.45.
  std::optional<double> ctr = CardiothoracicRatio(h, lungs);
  ASSERT_TRUE(ctr.has_value());
  EXPECT_DOUBLE_EQ(*ctr, 0.45);

  // An enlarged heart (x 25..74: 50 px) over the same thorax: 0.625, above 0.5.
  Raster big_heart = Mask(100, 80);
  SetMask(big_heart, 25, 40, 75, 65);
  EXPECT_DOUBLE_EQ(*CardiothoracicRatio(MeasureMask(big_heart), lungs), 0.625);

  // Empty lung masks are ignored; with none left, or no heart, there is no ratio.
  const MaskStats nothing = MeasureMask(Mask(100, 80));
  EXPECT_DOUBLE_EQ(*CardiothoracicRatio(h, {nothing, lungs[0]}), 36.0 / 35.0);
  EXPECT_FALSE(CardiothoracicRatio(h, {nothing, nothing}).has_value());
  EXPECT_FALSE(CardiothoracicRatio(h, {}).has_value());
  EXPECT_FALSE(CardiothoracicRatio(nothing, lungs).has_value());
}

}  // namespace
}  // namespace medreact::imaging
