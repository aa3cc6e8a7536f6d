// `medreact dicom FILE --png OUT.png [--json META.json] [--keep-phi]`: the
// first frame of a DICOM file as an 8-bit PNG (Modality LUT, then VOI LUT or
// window, else min-max; MONOCHROME1 inverted; colour as RGB) and, with
// --json, its attributes as DICOM JSON (PS3.18) without the identifiers of
// PS3.15 Annex E's Basic Profile unless --keep-phi (src/tools/imaging).
// Outputs are checked before reading and written atomically, mode 0600.
// A one-line summary goes to stderr. Exit 0 done; 2 bad input (missing file,
// not DICOM, truncated, unsupported transfer syntax, bad output path), with the
// message; 1 when an output cannot be written or DICOM support (the plugin,
// medreact_dicom.so) cannot be loaded.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/file_io.h"
#include "core/printable.h"
#include "medreact/json.h"
#include "tools/imaging/dicom_image.h"

namespace medreact::cli {
namespace {

struct DicomFlags {
  std::string file;
  std::string png;
  std::string json;
  bool keep_phi = false;
};

int Fail(const Status& status, int code) {
  std::cerr << "medreact dicom: " << status.message() << "\n";
  return code;
}

int RunDicom(const DicomFlags& flags) {
  if (Status s = CheckOutputPath(flags.png, "--png"); !s.ok()) return Fail(s, kExitBadInput);
  if (!flags.json.empty()) {
    if (Status s = CheckOutputPath(flags.json, "--json"); !s.ok()) return Fail(s, kExitBadInput);
  }
  Result<imaging::DicomFile> file = imaging::DicomFile::Read(flags.file);
  if (!file.ok()) {
    // Without the DICOM plugin the input is not at fault.
    return Fail(file.status(), file.status().code() == StatusCode::kUnavailable ? kExitRunFailed : kExitBadInput);
  }
  Result<imaging::RenderedFrame> frame = file->RenderFirstFrame();
  if (!frame.ok()) return Fail(frame.status(), kExitBadInput);
  Result<std::string> png = imaging::EncodePng(*frame);
  if (!png.ok()) return Fail(png.status(), kExitRunFailed);
  std::string metadata;
  if (!flags.json.empty()) {
    Result<Json> json = file->Metadata({.keep_phi = flags.keep_phi});
    if (!json.ok()) return Fail(json.status(), kExitBadInput);
    metadata = DumpJson(*json, 2) + "\n";
  }
  if (Status s = WriteFileAtomic(flags.png, *png); !s.ok()) return Fail(s, kExitRunFailed);
  if (!flags.json.empty()) {
    if (Status s = WriteFileAtomic(flags.json, metadata); !s.ok()) return Fail(s, kExitRunFailed);
  }
  // The attributes are the file's text: each shown as one escaped line.
  std::cerr << "medreact dicom: " << frame->width << "x" << frame->height << " "
            << (frame->photometric.empty() ? "(no photometric)" : PrintableLine(frame->photometric)) << ", "
            << frame->frames << (frame->frames == 1 ? " frame" : " frames") << ", transfer syntax "
            << PrintableLine(frame->transfer_syntax_uid) << " (" << PrintableLine(frame->transfer_syntax_name) << ")"
            << (frame->voi.empty() ? "" : ", " + PrintableLine(frame->voi)) << "\n";
  return kExitOk;
}

}  // namespace

void AddDicomCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<DicomFlags>();
  CLI::App* cmd = app.add_subcommand("dicom", "render a DICOM file's first frame to PNG, metadata to DICOM JSON");
  cmd->add_option("file", flags->file, "the DICOM file (Part 10 or a bare dataset)")->required();
  cmd->add_option("--png", flags->png, "the PNG to write (8-bit grey or RGB, Columns x Rows)")->required();
  cmd->add_option("--json", flags->json, "also write the attributes as DICOM JSON (PS3.18), de-identified");
  cmd->add_flag("--keep-phi", flags->keep_phi,
                "keep patient, physician, institution, date and UID attributes and private tags in --json");
  cmd->callback([flags, exit_code] { *exit_code = RunDicom(*flags); });
}

}  // namespace medreact::cli
