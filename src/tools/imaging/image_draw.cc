// Drawing on RGB rasters and measuring grey masks (image_draw.h).
//
// Every drawing routine reduces to filling clipped pixel rectangles: a
// rectangle outline is four bands, a label is a background box and one small
// square per lit font pixel. Coordinates are carried as int64 after clamping
// doubles to ±1e9, so a box far outside the image, a huge label scale or a
// NaN coordinate never overflows or writes outside the pixel buffer.
//
// The font is this file's own 5 × 7 table for printable ASCII (32..126): each
// glyph is seven rows, top first, each row five bits with bit 4 the leftmost
// column. A character cell is 6 × 8 font pixels (one column and one row of
// spacing).

#include "tools/imaging/image_draw.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace medreact::imaging {
namespace {

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 7;
constexpr int kCellWidth = kGlyphWidth + 1;  // one column of spacing
constexpr char kFirstGlyph = ' ';
constexpr char kLastGlyph = '~';
constexpr Rgb kLabelBackground = {16, 16, 16};
// Coordinates beyond this are clamped before any integer arithmetic.
constexpr double kCoordinateLimit = 1e9;

// Printable ASCII 32..126, in order.
constexpr uint8_t kFont[][kGlyphHeight] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},  // ' '
    {0x04, 0x04, 0x04, 0x04, 0x00, 0x00, 0x04},  // '!'
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00},  // '"'
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A},  // '#'
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04},  // '$'
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},  // '%'
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D},  // '&'
    {0x0C, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00},  // '\''
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02},  // '('
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08},  // ')'
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00},  // '*'
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00},  // '+'
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08},  // ','
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},  // '-'
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C},  // '.'
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00},  // '/'
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},  // '0'
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // '1'
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},  // '2'
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // '3'
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},  // '4'
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // '5'
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},  // '6'
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // '7'
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},  // '8'
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // '9'
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00},  // ':'
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08},  // ';'
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02},  // '<'
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00},  // '='
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08},  // '>'
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04},  // '?'
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E},  // '@'
    {0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11},  // 'A'
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},  // 'B'
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},  // 'C'
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},  // 'D'
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},  // 'E'
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},  // 'F'
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},  // 'G'
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},  // 'H'
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 'I'
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},  // 'J'
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},  // 'K'
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},  // 'L'
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},  // 'M'
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},  // 'N'
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // 'O'
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},  // 'P'
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},  // 'Q'
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},  // 'R'
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},  // 'S'
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},  // 'T'
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // 'U'
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},  // 'V'
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},  // 'W'
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},  // 'X'
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},  // 'Y'
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},  // 'Z'
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E},  // '['
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00},  // '\\'
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E},  // ']'
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00},  // '^'
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F},  // '_'
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00},  // '`'
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F},  // 'a'
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E},  // 'b'
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E},  // 'c'
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F},  // 'd'
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E},  // 'e'
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08},  // 'f'
    {0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // 'g'
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11},  // 'h'
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E},  // 'i'
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C},  // 'j'
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12},  // 'k'
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 'l'
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11},  // 'm'
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11},  // 'n'
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E},  // 'o'
    {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10},  // 'p'
    {0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01},  // 'q'
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10},  // 'r'
    {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E},  // 's'
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06},  // 't'
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D},  // 'u'
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04},  // 'v'
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A},  // 'w'
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11},  // 'x'
    {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // 'y'
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F},  // 'z'
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02},  // '{'
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},  // '|'
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08},  // '}'
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00},  // '~'
};
static_assert(sizeof(kFont) / sizeof(kFont[0]) == kLastGlyph - kFirstGlyph + 1, "one glyph per printable character");

// Saturated hues that stay apart from each other and from grey.
constexpr Rgb kPalette[] = {
    {255, 64, 64},   // red
    {64, 220, 64},   // green
    {64, 160, 255},  // blue
    {255, 200, 0},   // amber
    {230, 64, 230},  // magenta
    {0, 230, 230},   // cyan
    {255, 128, 0},   // orange
    {160, 96, 255},  // violet
};

bool IsRgb(const Raster& image) { return image.valid() && image.channels == 3; }
bool IsGrey(const Raster& mask) { return mask.valid() && mask.channels == 1; }

// A double coordinate as an integer pixel index; NaN has none.
std::optional<int64_t> PixelIndex(double v) {
  if (std::isnan(v)) return std::nullopt;
  return std::llround(std::clamp(v, -kCoordinateLimit, kCoordinateLimit));
}

// Fills the pixels x0..x1, y0..y1 (inclusive) that lie in the image.
void FillRect(Raster& image, int64_t x0, int64_t y0, int64_t x1, int64_t y1, Rgb color) {
  x0 = std::max<int64_t>(x0, 0);
  y0 = std::max<int64_t>(y0, 0);
  x1 = std::min<int64_t>(x1, image.width - 1);
  y1 = std::min<int64_t>(y1, image.height - 1);
  for (int64_t y = y0; y <= y1; ++y) {
    uint8_t* row = image.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(image.width) * 3;
    for (int64_t x = x0; x <= x1; ++x) {
      uint8_t* p = row + static_cast<size_t>(x) * 3;
      p[0] = color[0];
      p[1] = color[1];
      p[2] = color[2];
    }
  }
}

const uint8_t* Glyph(char c) {
  if (c < kFirstGlyph || c > kLastGlyph) c = '?';
  return kFont[c - kFirstGlyph];
}

uint8_t Blend(uint8_t in, uint8_t color, double alpha) {
  const double v = (1.0 - alpha) * in + alpha * color;
  return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

}  // namespace

Rgb PaletteColor(size_t index) { return kPalette[index % (sizeof(kPalette) / sizeof(kPalette[0]))]; }

void DrawRectangle(Raster& image, double x0, double y0, double x1, double y1, Rgb color, int line_width) {
  if (!IsRgb(image)) return;
  const std::optional<int64_t> a = PixelIndex(std::min(x0, x1)), b = PixelIndex(std::max(x0, x1));
  const std::optional<int64_t> c = PixelIndex(std::min(y0, y1)), d = PixelIndex(std::max(y0, y1));
  if (!a || !b || !c || !d) return;
  // The box covers the pixels [left, right] × [top, bottom]: a box from 2 to 5 covers pixels 2, 3 and 4.
  const int64_t left = *a, top = *c;
  const int64_t right = std::max(left, *b - 1), bottom = std::max(top, *d - 1);
  const int64_t w = std::max(line_width, 1) - 1;  // extra pixels inward
  FillRect(image, left, top, right, std::min(top + w, bottom), color);      // top
  FillRect(image, left, std::max(bottom - w, top), right, bottom, color);   // bottom
  FillRect(image, left, top, std::min(left + w, right), bottom, color);     // left
  FillRect(image, std::max(right - w, left), top, right, bottom, color);    // right
}

void OverlayMask(Raster& image, const Raster& mask, Rgb color, double alpha) {
  if (!IsRgb(image) || !IsGrey(mask)) return;
  if (!(alpha > 0)) return;  // also NaN: nothing to blend
  alpha = std::min(alpha, 1.0);
  const int64_t w = image.width, h = image.height, mw = mask.width, mh = mask.height;
  for (int64_t y = 0; y < h; ++y) {
    const int64_t my = y * mh / h;  // nearest neighbour (the mask pixel this one falls in)
    const uint8_t* mask_row = mask.pixels.data() + static_cast<size_t>(my * mw);
    uint8_t* row = image.pixels.data() + static_cast<size_t>(y * w * 3);
    for (int64_t x = 0; x < w; ++x) {
      if (mask_row[x * mw / w] == 0) continue;
      uint8_t* p = row + x * 3;
      for (int k = 0; k < 3; ++k) p[k] = Blend(p[k], color[k], alpha);
    }
  }
}

void DrawLabel(Raster& image, int x, int y, const std::string& text, Rgb color, int scale) {
  if (!IsRgb(image) || text.empty()) return;
  const int64_t s = std::clamp(scale, 1, 1 << 16);
  const int64_t n = static_cast<int64_t>(text.size());
  // The box: one font pixel of margin around the text (whose last cell has no spacing column).
  const int64_t box_w = (n * kCellWidth + 1) * s, box_h = (kGlyphHeight + 2) * s;
  FillRect(image, x, y, x + box_w - 1, y + box_h - 1, kLabelBackground);
  const int64_t first_x = int64_t{x} + s, first_y = int64_t{y} + s;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t cell_x = first_x + i * kCellWidth * s;
    if (cell_x >= image.width) break;            // the rest is right of the image
    if (cell_x + kGlyphWidth * s <= 0) continue;  // left of the image
    const uint8_t* glyph = Glyph(text[static_cast<size_t>(i)]);
    for (int row = 0; row < kGlyphHeight; ++row) {
      for (int col = 0; col < kGlyphWidth; ++col) {
        if (!(glyph[row] & (0x10 >> col))) continue;
        const int64_t px = cell_x + col * s, py = first_y + row * s;
        FillRect(image, px, py, px + s - 1, py + s - 1, color);
      }
    }
  }
}

int LabelScale(const Raster& image) { return std::max(1, std::min(image.width, image.height) / 256); }

MaskStats MeasureMask(const Raster& mask) {
  MaskStats stats;
  if (!IsGrey(mask)) return stats;
  int64_t sum_x = 0, sum_y = 0;
  int x0 = mask.width, y0 = mask.height, x1 = 0, y1 = 0;
  for (int y = 0; y < mask.height; ++y) {
    const uint8_t* row = mask.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(mask.width);
    for (int x = 0; x < mask.width; ++x) {
      if (row[x] == 0) continue;
      ++stats.area_px;
      sum_x += x;
      sum_y += y;
      x0 = std::min(x0, x);
      y0 = std::min(y0, y);
      x1 = std::max(x1, x + 1);
      y1 = std::max(y1, y + 1);
    }
  }
  if (stats.area_px == 0) return stats;
  const double area = static_cast<double>(stats.area_px);
  stats.area_fraction = area / (static_cast<double>(mask.width) * static_cast<double>(mask.height));
  stats.x0 = x0;
  stats.y0 = y0;
  stats.x1 = x1;
  stats.y1 = y1;
  stats.centroid_x = static_cast<double>(sum_x) / area + 0.5;
  stats.centroid_y = static_cast<double>(sum_y) / area + 0.5;
  return stats;
}

Json ToJson(const MaskStats& stats) {
  if (stats.empty()) return Json{{"area_px", 0}, {"empty", true}};
  return Json{{"area_px", stats.area_px},
              {"area_fraction", stats.area_fraction},
              {"bbox", {stats.x0, stats.y0, stats.x1, stats.y1}},
              {"centroid", {stats.centroid_x, stats.centroid_y}}};
}

// Danzer CR. The cardiothoracic ratio: an index of cardiac enlargement. Am J
// Med Sci 1919;157:513-21: the heart's greatest transverse diameter over the
// greatest internal transverse diameter of the thorax, on a posteroanterior
// (PA) film. Above 0.5 is the conventional upper limit of normal on a PA film
// (as in standard chest radiology texts); an anteroposterior (AP) film
// magnifies the heart (it lies further from the detector), so the ratio
// over-reads there and the threshold does not apply. Here both widths come
// from mask bounding boxes, so the lungs' outer edges stand in for the inner
// rib margins.
std::optional<double> CardiothoracicRatio(const MaskStats& heart, const std::vector<MaskStats>& lungs) {
  if (heart.empty()) return std::nullopt;
  std::optional<int> left, right;
  for (const MaskStats& lung : lungs) {
    if (lung.empty()) continue;
    left = left ? std::min(*left, lung.x0) : lung.x0;
    right = right ? std::max(*right, lung.x1) : lung.x1;
  }
  if (!left || *right <= *left) return std::nullopt;
  return static_cast<double>(heart.x1 - heart.x0) / static_cast<double>(*right - *left);
}

}  // namespace medreact::imaging
