// Drawing on rasters (the image_visualizer's pen) and measuring masks (the
// segmentation tool's numbers).
//
// Drawing works on RGB rasters (a grey one is converted first by the caller,
// ToRgb): rectangles of a given line width, mask overlays blended with an
// alpha, and labels in a built-in 5 × 7 pixel ASCII font scaled to the image
// (no font file, no dependency); everything is clipped to the image, so any
// box, even one far outside, is safe. Colours come from a fixed palette
// chosen to stay distinguishable on a grey radiograph.
//
// Measurements read a mask (grey; non-zero = inside): area in pixels and as a
// fraction of the image, the bounding box, the centroid, and the horizontal
// extent used by the cardiothoracic ratio. All functions are pure and
// thread-safe.
#ifndef MEDREACT_TOOLS_IMAGING_IMAGE_DRAW_H_
#define MEDREACT_TOOLS_IMAGING_IMAGE_DRAW_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "tools/imaging/image_codec.h"

namespace medreact::imaging {

using Rgb = std::array<uint8_t, 3>;

// Palette colour i (wraps around): distinct, saturated, none grey.
Rgb PaletteColor(size_t index);

// REQUIRES for all drawing: image.valid() && image.channels == 3.
// A rectangle outline; coordinates in pixels (x0 < x1, y0 < y1 not required:
// the corners are sorted), clipped to the image. line_width <= 0 → 1.
void DrawRectangle(Raster& image, double x0, double y0, double x1, double y1, Rgb color, int line_width);

// Blends `color` into every pixel where mask is non-zero: out = (1-a)·in + a·color.
// A mask of another size is scaled to the image by nearest neighbour.
// alpha is clamped to [0, 1]. REQUIRES: mask.valid() && mask.channels == 1.
void OverlayMask(Raster& image, const Raster& mask, Rgb color, double alpha);

// Text in the built-in font, top-left corner at (x, y), each font pixel
// drawn as scale × scale pixels, on a filled dark background box for
// contrast. Characters outside printable ASCII are drawn as '?'. Clipped.
void DrawLabel(Raster& image, int x, int y, const std::string& text, Rgb color, int scale);

// The label scale that suits an image: max(1, min(width, height) / 256).
int LabelScale(const Raster& image);

struct MaskStats {
  int64_t area_px = 0;
  double area_fraction = 0;        // area_px / (width × height)
  // Bounding box of the non-zero pixels, inclusive-exclusive: x0 <= x < x1.
  // All zero when the mask is empty.
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double centroid_x = 0, centroid_y = 0;  // mean of the pixel centres (x + 0.5); 0 when empty
  bool empty() const { return area_px == 0; }
};

// REQUIRES: mask.valid() && mask.channels == 1.
MaskStats MeasureMask(const Raster& mask);

// {"area_px","area_fraction","bbox":[x0,y0,x1,y1],"centroid":[x,y]}; {"area_px":0,"empty":true} when empty.
Json ToJson(const MaskStats& stats);

// The cardiothoracic ratio on a PA radiograph (Danzer 1919): the heart's
// maximal horizontal width over the thorax's maximal internal width, here the
// horizontal extent of the heart mask over that of the union of the lung
// masks (both from MeasureMask's bounding boxes: heart.x1 - heart.x0 over
// max(lungs' x1) - min(lungs' x0)). nullopt when the heart or every lung mask
// is empty. A ratio above 0.5 on a PA film is the conventional threshold for
// cardiomegaly; the caller says it is derived from masks, not measured by a
// reader, and that it does not hold for AP films.
std::optional<double> CardiothoracicRatio(const MaskStats& heart, const std::vector<MaskStats>& lungs);

}  // namespace medreact::imaging

#endif  // MEDREACT_TOOLS_IMAGING_IMAGE_DRAW_H_
