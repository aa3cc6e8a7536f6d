// The run's image store (src/tools/imaging/image_store.h): ids in order,
// PNG/JPEG/DICOM files read, checked and downscaled once, the data URL
// encoded once, user paths recognised, generated images written 0600, and
// concurrent use.
#include "testing/build_paths.h"
#include "tools/imaging/image_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/file_io.h"
#include "testing/image_builders.h"
#include "testing/subprocess.h"

namespace medreact::imaging {
namespace {

using testing::TempDir;

const std::string kDicomDir = std::string(MEDREACT_SOURCE_DIR) + "/tests/fixtures/dicom/";
constexpr char kPrefix[] = "data:image/png;base64,";

Raster Grey(int width, int height, uint8_t value = 90) {
  return Raster{.width = width, .height = height, .channels = 1,
                .pixels = std::vector<uint8_t>(static_cast<size_t>(width) * height, value)};
}

std::string WritePng(const TempDir& dir, const std::string& name, const Raster& raster) {
  dir.Write(name, *EncodePng(raster));
  return dir.File(name);
}

TEST(ImageStoreTest, IdsInOrderOfArrivalAndDescribe) {
  TempDir dir;
  ImageStore store;
  const std::string png = WritePng(dir, "a.png", Grey(40, 30));
  dir.Write("b.jpg", testing::BuildJpeg(16, 8, testing::JpegKind::kYCbCr, std::vector<uint8_t>(16 * 8 * 3, 120)));
  auto first = store.AddFile(png);
  auto second = store.AddFile(dir.File("b.jpg"));
  auto third = store.AddFile(kDicomDir + "CT_small.dcm");
  auto fourth = store.AddGenerated(Grey(8, 8), "mask-heart", "chest_xray_segmentation");
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  ASSERT_TRUE(third.ok()) << third.status().message();
  ASSERT_TRUE(fourth.ok()) << fourth.status().message();
  EXPECT_EQ((*first)->id, "img1");
  EXPECT_EQ((*second)->id, "img2");
  EXPECT_EQ((*third)->id, "img3");
  EXPECT_EQ((*fourth)->id, "img4");
  EXPECT_EQ((*second)->source_format, ImageFormat::kJpeg);
  EXPECT_EQ((*second)->raster.channels, 3);
  EXPECT_EQ((*third)->source_format, ImageFormat::kDicom);
  std::vector<std::string> ids;
  for (const auto& image : store.All()) ids.push_back(image->id);
  EXPECT_EQ(ids, (std::vector<std::string>{"img1", "img2", "img3", "img4"}));

  const Json d = (*first)->Describe();
  EXPECT_EQ(d["image_id"], "img1");
  EXPECT_EQ(d["label"], "a.png");
  EXPECT_EQ(d["origin"], "user");
  EXPECT_EQ(d["width"], 40);
  EXPECT_EQ(d["height"], 30);
  EXPECT_EQ(d["original_width"], 40);
  EXPECT_EQ(d["format"], "png");
  EXPECT_EQ(d["path"], png);
  EXPECT_FALSE((*fourth)->Describe().contains("path")) << "not written without an output folder";
  EXPECT_EQ((*fourth)->Describe()["origin"], "chest_xray_segmentation");
  EXPECT_TRUE((*first)->dicom.is_null());
}

TEST(ImageStoreTest, LargeImagesAreDownscaledToTheLongSide) {
  TempDir dir;
  ImageStore store;  // max_side 1024
  // The size of the project's 1576 × 1976 JPEG Lossless chest radiograph
  // (not among the fixtures): 1576 × 1024 / 1976 = 816.6 → 817.
  auto file = store.AddFile(WritePng(dir, "cxr.png", Grey(1576, 1976)));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ((*file)->raster.width, 817);
  EXPECT_EQ((*file)->raster.height, 1024);
  EXPECT_EQ((*file)->original_width, 1576);
  EXPECT_EQ((*file)->original_height, 1976);
  EXPECT_NEAR((*file)->scale(), 1576.0 / 817, 1e-12);
  EXPECT_EQ((*file)->raster.pixels[0], 90);
  auto made = store.AddGenerated(Grey(1976, 1576), "annotated", "image_visualizer");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ((*made)->raster.width, 1024);
  EXPECT_EQ((*made)->raster.height, 817);
}

TEST(ImageStoreTest, DicomIsRenderedDownscaledAndDeidentified) {
  // CR-MONO1-10-chest.dcm: a bare dataset (no preamble), 440 × 440 MONOCHROME1.
  ImageStore store({.max_side = 256});
  auto image = store.AddFile(kDicomDir + "CR-MONO1-10-chest.dcm");
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ((*image)->original_width, 440);
  EXPECT_EQ((*image)->raster.width, 256);
  EXPECT_EQ((*image)->raster.height, 256);
  EXPECT_EQ((*image)->raster.channels, 1);
  const Json& dicom = (*image)->dicom;
  ASSERT_TRUE(dicom.is_object());
  EXPECT_EQ(dicom["photometric"], "MONOCHROME1");
  EXPECT_EQ(dicom["frames"], 1);
  EXPECT_FALSE(dicom["transfer_syntax"].get<std::string>().empty());
  EXPECT_TRUE(dicom["metadata"].is_object());

  // CT_small.dcm: the patient's name is emptied unless keep_phi.
  auto ct = store.AddFile(kDicomDir + "CT_small.dcm");
  ASSERT_TRUE(ct.ok());
  EXPECT_EQ((*ct)->dicom["metadata"].dump().find("CompressedSamples"), std::string::npos);
  ImageStore keep({.keep_phi = true});
  auto kept = keep.AddFile(kDicomDir + "CT_small.dcm");
  ASSERT_TRUE(kept.ok());
  EXPECT_NE((*kept)->dicom["metadata"].dump().find("CompressedSamples"), std::string::npos);
  EXPECT_EQ((*kept)->raster.width, 128);  // under max_side: as is
}

TEST(ImageStoreTest, DataUrlIsEncodedOnceAndShared) {
  TempDir dir;
  ImageStore store;
  auto added = store.AddFile(WritePng(dir, "x.png", Grey(2000, 500, 33)));
  ASSERT_TRUE(added.ok());
  auto a = store.Get("img1");
  auto b = store.Get("img1");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), added->get());
  EXPECT_EQ((*a)->data_url.data(), (*b)->data_url.data()) << "the same bytes, not a new encoding";
  const std::string& url = (*a)->data_url;
  ASSERT_EQ(url.rfind(kPrefix, 0), 0u);
  Result<std::string> png = Base64Decode(std::string_view(url).substr(sizeof kPrefix - 1));
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(*png, (*a)->png);
  Result<Raster> decoded = DecodePng(*png, "url");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->width, 1024);
  EXPECT_EQ(decoded->height, 256);
  EXPECT_EQ(decoded->pixels, (*a)->raster.pixels);
  const ContentPart part = (*a)->Part();
  EXPECT_EQ(part.kind, ContentPart::Kind::kImage);
  EXPECT_EQ(part.image_url, url);
}

TEST(ImageStoreTest, BadFilesAreRefusedWithTheirName) {
  TempDir dir;
  ImageStore store({.max_file_bytes = 4096});
  dir.Write("note.txt", "Chest pain since this morning; no imaging available.\n");
  auto text = store.AddFile(dir.File("note.txt"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(text.status().message().find(dir.File("note.txt")), std::string::npos) << text.status().message();
  EXPECT_NE(text.status().message().find("not a PNG, JPEG or DICOM image"), std::string::npos);

  auto missing = store.AddFile(dir.File("nope.png"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);

  dir.Write("empty.png", "");
  EXPECT_EQ(store.AddFile(dir.File("empty.png")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.AddFile(dir.path()).status().code(), StatusCode::kInvalidArgument);  // a folder

  dir.Write("big.png", std::string(5000, 'x'));
  auto big = store.AddFile(dir.File("big.png"));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("big.png"), std::string::npos) << big.status().message();

  // A PNG header saying 20,000 × 20,000: refused by its header.
  std::string huge = *EncodePng(Grey(2, 2));
  for (int i = 0; i < 4; ++i) {
    huge[16 + i] = static_cast<char>((20000u >> (24 - 8 * i)) & 0xFF);
    huge[20 + i] = huge[16 + i];
  }
  dir.Write("huge.png", huge);
  auto refused = store.AddFile(dir.File("huge.png"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("20000x20000"), std::string::npos) << refused.status().message();

  // A corrupt PNG (cut in its image data) and a corrupt DICOM.
  const std::string png = *EncodePng(Raster{.width = 30, .height = 30, .channels = 3,
                                            .pixels = std::vector<uint8_t>(2700, 7)});
  dir.Write("cut.png", png.substr(0, png.size() - 20));
  EXPECT_FALSE(store.AddFile(dir.File("cut.png")).ok());
  dir.Write("bad.dcm", std::string(128, '\0') + "DICM" + std::string(40, '\xFF'));
  EXPECT_FALSE(store.AddFile(dir.File("bad.dcm")).ok());
  EXPECT_TRUE(store.All().empty()) << "nothing refused is stored";

  EXPECT_FALSE(store.AddGenerated(Raster{.width = 2, .height = 2, .channels = 1}, "bad", "tool").ok());
  auto unknown = store.Get("img9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("img9"), std::string::npos);
}

TEST(ImageStoreTest, GetNamesTheIdsThereAre) {
  ImageStore store;
  ASSERT_TRUE(store.AddGenerated(Grey(2, 2), "a", "t").ok());
  ASSERT_TRUE(store.AddGenerated(Grey(2, 2), "b", "t").ok());
  auto missing = store.Get("img3");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("img1, img2"), std::string::npos) << missing.status().message();
}

TEST(ImageStoreTest, UserPathRecognisesTheUsersFilesOnly) {
  TempDir dir;
  ImageStore store({.output_dir = dir.path()});
  const std::string path = WritePng(dir, "cxr.png", Grey(4, 4));
  WritePng(dir, "other.png", Grey(4, 4));
  auto added = store.AddFile(path);
  ASSERT_TRUE(added.ok());
  auto made = store.AddGenerated(Grey(4, 4), "annotated", "image_visualizer");
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(store.UserPath(path), *added);
  EXPECT_EQ(store.UserPath(dir.path() + "/./sub/../cxr.png"), *added) << "the same file by canonical path";
  EXPECT_EQ(store.UserPath(dir.path() + "//cxr.png"), *added);
  EXPECT_EQ(store.UserPath(dir.File("other.png")), nullptr);
  EXPECT_EQ(store.UserPath((*made)->path), nullptr) << "a generated image is not the user's";
  EXPECT_EQ(store.UserPath(""), nullptr);
}

TEST(ImageStoreTest, GeneratedImagesAreWrittenPrivately) {
  TempDir dir;
  ImageStore store({.output_dir = dir.path()});
  auto made = store.AddGenerated(Grey(6, 5, 200), "mask heart/../x", "chest_xray_segmentation");
  ASSERT_TRUE(made.ok()) << made.status().message();
  EXPECT_EQ((*made)->path, dir.File("img1-mask_heart_.._x.png"));
  struct stat st {};
  ASSERT_EQ(stat((*made)->path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(testing::ReadFileOrEmpty((*made)->path), (*made)->png);
  EXPECT_EQ((*made)->Describe()["path"], (*made)->path);
  // An output folder that does not exist: an error naming it, nothing stored.
  ImageStore broken({.output_dir = dir.File("missing")});
  auto failed = broken.AddGenerated(Grey(2, 2), "x", "t");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("missing"), std::string::npos) << failed.status().message();
  EXPECT_TRUE(broken.All().empty());
}

TEST(ImageStoreTest, ConcurrentAddsAndGets) {
  TempDir dir;
  ImageStore store({.output_dir = dir.path()});
  const std::string user = WritePng(dir, "user.png", Grey(50, 20));
  constexpr int kThreads = 8;
  constexpr int kEach = 5;
  std::latch start(kThreads);
  std::vector<std::vector<std::string>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();  // all at once
      for (int i = 0; i < kEach; ++i) {
        auto added = t % 2 == 0 ? store.AddFile(user)
                                : store.AddGenerated(Grey(30 + i, 10 + t), "t" + std::to_string(t), "tool");
        if (!added.ok()) continue;
        auto again = store.Get((*added)->id);
        if (again.ok() && again->get() == added->get()) seen[static_cast<size_t>(t)].push_back((*added)->id);
        (void)store.All();
        (void)store.UserPath(user);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> ids;
  for (const auto& list : seen) ids.insert(list.begin(), list.end());
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads * kEach));
  const auto all = store.All();
  ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i]->id, "img" + std::to_string(i + 1));
  size_t written = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    written += entry.path().filename().string().rfind("img", 0) == 0;
  }
  EXPECT_EQ(written, static_cast<size_t>(kThreads / 2 * kEach)) << "one file per generated image";
}

}  // namespace
}  // namespace medreact::imaging
