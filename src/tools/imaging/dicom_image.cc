// DicomFile over the DICOM plugin (medreact_dicom.so, dicom_plugin_abi.h).
//
// The plugin is loaded the first time a file is parsed, once per process
// (core/plugin.h: $MEDREACT_PLUGIN_DIR, else beside the executable, else the
// installed folder), and its table is kept for the process's life. This side
// reads the file (ReadUserFile: type check, size cap), hands the bytes over,
// and turns the plugin's answers into values: its error texts into Status,
// its frame into a RenderedFrame (pixels copied), its metadata text into
// checked JSON (ParseJson). DCMTK's own code is in dicom_plugin/.
#include "tools/imaging/dicom_image.h"

#include <dlfcn.h>

#include <atomic>
#include <exception>
#include <utility>

#include "core/file_io.h"
#include "core/plugin.h"

namespace medreact::imaging {
namespace {

// Set by UseLinkedDicomPlugin (a binary that links the plugin's code).
std::atomic<const MedreactDicomApi*> linked_api{nullptr};

Result<const MedreactDicomApi*> LoadDicomPlugin() {
  Result<PluginLibrary> library = LoadPlugin(MEDREACT_DICOM_PLUGIN_FILE);
  if (!library.ok()) return Status::Unavailable("DICOM support is not available: " + library.status().message());
  auto entry = reinterpret_cast<MedreactDicomEntry>(::dlsym(library->handle, MEDREACT_DICOM_ENTRY_SYMBOL));
  if (entry == nullptr) {
    return Status::Unavailable("DICOM support is not available: " + library->path + " has no " +
                               MEDREACT_DICOM_ENTRY_SYMBOL + " (not medreact's DICOM plugin?)");
  }
  const MedreactDicomApi* api = entry(MEDREACT_DICOM_ABI_VERSION);
  if (api == nullptr) {
    return Status::Unavailable("DICOM support is not available: " + library->path +
                               " is from another version of medreact (ABI " +
                               std::to_string(MEDREACT_DICOM_ABI_VERSION) + " wanted)");
  }
  return api;
}

// The plugin's table, loaded once per process; the Status says why not.
Result<const MedreactDicomApi*> Api() {
  if (const MedreactDicomApi* api = linked_api.load(std::memory_order_acquire)) return api;
  static const Result<const MedreactDicomApi*> loaded = LoadDicomPlugin();
  return loaded;
}

// The sink the plugin writes text into: appends to a std::string. An
// allocation failure is noted, never thrown through the plugin's frames.
struct TextSink {
  std::string text;
  bool overflow = false;
  MedreactDicomText c{.context = this, .append = &TextSink::Append};

  TextSink() = default;
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  static void Append(void* context, const char* data, size_t size) {
    auto* self = static_cast<TextSink*>(context);
    try {
      self->text.append(data, size);
    } catch (const std::exception&) {
      self->overflow = true;
    }
  }
  // The plugin's error message, or a stand-in when it could not be kept.
  std::string Error(const std::string& name) const {
    return overflow || text.empty() ? name + ": the DICOM reader failed" : text;
  }
};

}  // namespace

Status DicomSupport() {
  Result<const MedreactDicomApi*> api = Api();
  return api.ok() ? Status::OK() : api.status();
}

void UseLinkedDicomPlugin(const MedreactDicomApi* api) { linked_api.store(api, std::memory_order_release); }

struct DicomFile::Impl {
  const MedreactDicomApi* api = nullptr;
  MedreactDicomFile* file = nullptr;  // owned: closed with the Impl
  std::string name;

  Impl(const MedreactDicomApi* a, MedreactDicomFile* f, std::string n) : api(a), file(f), name(std::move(n)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { api->close(file); }
};

DicomFile::DicomFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DicomFile::DicomFile(DicomFile&&) noexcept = default;
DicomFile& DicomFile::operator=(DicomFile&&) noexcept = default;
DicomFile::~DicomFile() = default;

const std::string& DicomFile::name() const { return impl_->name; }

std::string DicomFile::TransferSyntaxUid() const { return impl_->api->transfer_syntax_uid(impl_->file); }

std::string DicomFile::TransferSyntaxName() const { return impl_->api->transfer_syntax_name(impl_->file); }

Result<DicomFile> DicomFile::Read(const std::string& path) {
  Result<std::string> bytes = ReadUserFile(path, "DICOM file", kMaxDicomBytes);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

Result<DicomFile> DicomFile::Parse(std::string_view bytes, std::string name) {
  Result<const MedreactDicomApi*> api = Api();
  if (!api.ok()) return api.status();
  TextSink error;
  MedreactDicomFile* file = nullptr;
  if ((*api)->parse(bytes.data(), bytes.size(), name.c_str(), &file, &error.c) != 0 || file == nullptr) {
    return Status::InvalidArgument(error.Error(name));
  }
  return DicomFile(std::make_unique<Impl>(*api, file, std::move(name)));
}

Result<RenderedFrame> DicomFile::RenderFirstFrame() {
  TextSink error;
  MedreactDicomFrame out{};
  if (impl_->api->render_first_frame(impl_->file, &out, &error.c) != 0) {
    return Status::InvalidArgument(error.Error(impl_->name));
  }
  RenderedFrame frame;
  frame.width = out.width;
  frame.height = out.height;
  frame.channels = out.channels;
  frame.pixels.assign(out.pixels, out.pixels + out.pixel_bytes);
  frame.frames = static_cast<unsigned long>(out.frames);
  frame.photometric = out.photometric;
  frame.transfer_syntax_uid = TransferSyntaxUid();
  frame.transfer_syntax_name = TransferSyntaxName();
  frame.voi = out.voi;
  frame.min_value = out.min_value;
  frame.max_value = out.max_value;
  return frame;
}

Result<Json> DicomFile::Metadata(const DicomMetadataOptions& options) const {
  TextSink out;
  if (impl_->api->metadata_json(impl_->file, options.keep_phi ? 1 : 0, &out.c) != 0) {
    return Status::InvalidArgument(out.Error(impl_->name));
  }
  if (out.overflow) return Status::InvalidArgument(impl_->name + ": its attributes are too large to hold");
  Result<Json> json = ParseJson(out.text);
  if (!json.ok()) {
    return Status::InvalidArgument(impl_->name + ": its attributes do not make valid DICOM JSON (" +
                                   json.status().message() + ")");
  }
  if (!json->is_object()) {
    return Status::InvalidArgument(impl_->name + ": its attributes do not make a DICOM JSON object");
  }
  return json;
}

}  // namespace medreact::imaging
